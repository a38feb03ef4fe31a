#include "server/access/providers/gcp/gcp_api.h"

#include "gtest/gtest.h"

namespace sluice::access::gcp {
namespace {

TEST(Bindings, AddAndRemoveKeepOtherMembersAndConditionalBindings) {
  Json policy = Json::parse(R"({"etag":"e1","version":3,"bindings":[
      {"role":"roles/viewer","members":["user:b@x.com"]},
      {"role":"roles/viewer","members":["user:c@x.com"],"condition":{"expression":"true"}}]})");
  EXPECT_TRUE(AddBindings(&policy, {"roles/viewer", "roles/editor"}, "user:a@x.com"));
  EXPECT_FALSE(AddBindings(&policy, {"roles/viewer", "roles/editor"}, "user:a@x.com"));
  EXPECT_EQ(policy["bindings"][0]["members"], Json::parse(R"(["user:b@x.com","user:a@x.com"])"));
  EXPECT_EQ(policy["bindings"][1]["members"], Json::parse(R"(["user:c@x.com"])"));
  EXPECT_EQ(policy["bindings"][2]["role"], "roles/editor");
  EXPECT_EQ(policy["etag"], "e1");
  EXPECT_TRUE(RemoveBindings(&policy, {"roles/viewer", "roles/editor"}, "user:a@x.com"));
  EXPECT_FALSE(RemoveBindings(&policy, {"roles/viewer", "roles/editor"}, "user:a@x.com"));
  EXPECT_EQ(policy["bindings"].size(), 2u) << "the emptied editor binding is dropped";
  EXPECT_FALSE(RemoveBindings(&policy, {"roles/viewer"}, "user:c@x.com"))
      << "conditional bindings are not ours to change";
}

// Review F-H2: Google keeps a principal's canonical casing, so members of
// the principal types compare case-insensitively.
TEST(Bindings, PrincipalsCompareCaseInsensitively) {
  Json policy = Json::parse(R"({"bindings":[
      {"role":"roles/viewer","members":["user:jane.doe@x.com","group:Team@x.com"]},
      {"role":"roles/editor","members":["domain:X.com","user:b@x.com"]}]})");
  EXPECT_FALSE(AddBindings(&policy, {"roles/viewer"}, "user:Jane.Doe@X.com"));
  EXPECT_EQ(policy["bindings"][0]["members"].size(), 2u) << policy;
  EXPECT_TRUE(RemoveBindings(&policy, {"roles/viewer"}, "user:Jane.Doe@x.com"));
  EXPECT_TRUE(RemoveBindings(&policy, {"roles/viewer"}, "group:team@x.com"));
  EXPECT_TRUE(RemoveBindings(&policy, {"roles/editor"}, "domain:x.com"));
  EXPECT_EQ(policy["bindings"].size(), 1u) << policy;
  EXPECT_EQ(policy["bindings"][0]["members"], Json::parse(R"(["user:b@x.com"])"));
  EXPECT_FALSE(RemoveBindings(&policy, {"roles/editor"}, "serviceAccount:b@x.com"))
      << "the member type is not an email: it compares exactly";
}

TEST(Bindings, AccessFromPolicyKeysAccountsInLowerCase) {
  Json policy = Json::parse(R"({"bindings":[
      {"role":"roles/a","members":["user:Jane.Doe@x.com"]},
      {"role":"roles/b","members":["user:jane.doe@X.com"]}]})");
  v1beta1::Resource r;
  r.set_type("bucket");
  r.set_urn("b1");
  auto got = AccessFromPolicy(policy, r);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].account_id, "jane.doe@x.com");
  EXPECT_EQ(got[0].permissions, (std::vector<std::string>{"roles/a", "roles/b"}));
}

TEST(Bindings, AccessFromPolicySkipsSpecialAndDeletedMembers) {
  Json policy = Json::parse(R"({"bindings":[
      {"role":"roles/a","members":["user:u@x.com","allUsers","deleted:user:d@x.com?uid=1",
                                   "projectOwner:p","domain:x.com"]},
      {"role":"roles/b","members":["user:u@x.com"]}]})");
  v1beta1::Resource r;
  r.set_type("bucket");
  r.set_urn("b1");
  auto got = AccessFromPolicy(policy, r);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].account_type, "domain");
  EXPECT_EQ(got[1].account_id, "u@x.com");
  EXPECT_EQ(got[1].permissions, (std::vector<std::string>{"roles/a", "roles/b"}));
  EXPECT_EQ(got[1].resource_urn, "b1");
}

TEST(Names, RoleNamesAndAccounts) {
  EXPECT_TRUE(IsRoleName("roles/bigquery.dataViewer"));
  EXPECT_TRUE(IsRoleName("projects/integration/roles/project.iamManager"));
  EXPECT_TRUE(IsRoleName("organizations/1/roles/custom"));
  EXPECT_FALSE(IsRoleName("READER"));
  EXPECT_FALSE(IsRoleName("roles/"));
  EXPECT_FALSE(IsRoleName("projects/p/roles"));
  EXPECT_TRUE(CheckAccount("user", "a@x.com").ok());
  EXPECT_TRUE(CheckAccount("domain", "x.com").ok());
  EXPECT_FALSE(CheckAccount("domain", "a@x.com").ok());
  EXPECT_FALSE(CheckAccount("user", "allAuthenticatedUsers").ok());
  EXPECT_FALSE(CheckAccount("group", "a@x.com,b@x.com").ok());
  EXPECT_FALSE(CheckAccount("user", "").ok());
}

TEST(Credentials, NamesTheFieldAndBuildsUrls) {
  google::protobuf::Struct s;
  auto st = ParseCredentials(s, true).status();
  EXPECT_NE(st.message().find("credentials.service_account_key"), std::string::npos);
  (*s.mutable_fields())["service_account_key"].set_string_value("e30=");  // "{}"
  st = ParseCredentials(s, true).status();
  EXPECT_NE(st.message().find("credentials.service_account_key: service account key"),
            std::string::npos)
      << st;
  Credentials c;
  c.resource_name = "projects/p1";
  EXPECT_EQ(c.Url(Api::kBigQuery), "https://bigquery.googleapis.com/bigquery/v2");
  EXPECT_EQ(c.Url(Api::kResourceManager), "https://cloudresourcemanager.googleapis.com/v1");
  c.api_base_url = "http://127.0.0.1:9";
  EXPECT_EQ(c.Url(Api::kStorage), "http://127.0.0.1:9/storage/v1");
  EXPECT_EQ(c.ResourceId(), "p1");
}

TEST(ReadModifyWrite, RetriesOnlyAborted) {
  int reads = 0, writes = 0;
  auto st = ReadModifyWrite([&]() -> absl::StatusOr<Json> { ++reads; return Json::object(); },
                            [](Json*) { return true; },
                            [&](const Json&) {
                              return ++writes < 3 ? absl::AbortedError("etag")
                                                  : absl::OkStatus();
                            });
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(reads, 3);
  writes = 0;
  st = ReadModifyWrite([&]() -> absl::StatusOr<Json> { return Json::object(); },
                       [](Json*) { return true; },
                       [&](const Json&) { ++writes; return absl::UnavailableError("down"); });
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(writes, 1);
}

}  // namespace
}  // namespace sluice::access::gcp
