// The bigquery plugin against integration/gcp_fake: registration checks,
// discovery with paging and filters, dataset access entries and table IAM
// bindings read back from the fake, etag conflicts, injected failures,
// concurrency and ListAccess.
#include "server/access/providers/bigquery/bigquery_provider.h"

#include <thread>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "integration/gcp_fake/gcp_fake_process.h"

namespace sluice::access {
namespace {

using integration::GcpFake;
using Json = nlohmann::json;

v1beta1::ProviderConfig Config(const Json& j) {
  v1beta1::ProviderConfig c;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(j.dump(), &c).ok());
  return c;
}

class BigQueryProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto f = GcpFake::Start();
    ASSERT_TRUE(f.ok()) << f.status();
    fake_ = std::move(*f);
    fake_->Seed({{"bigquery",
                  {{"proj",
                    {{"datasets",
                      {{"sales",
                        {{"labels", {{"team", "data"}}},
                         {"access", {{{"role", "OWNER"}, {"specialGroup", "projectOwners"}}}},
                         {"tables", {{"orders", {{"labels", {{"pii", "yes"}}}}}, {"refunds", {}}}}}},
                       {"web", {{"tables", {{"visits", {}}}}}},
                       {"tmp", Json::object()}}}}}}}});
    creds_ = fake_->Credentials("projects/proj", 1000);
    json_ = {{"type", "bigquery"},
             {"urn", "bq"},
             {"allowed_account_types", {"user", "serviceAccount", "group"}},
             {"credentials", creds_},
             {"resources",
              {{{"type", "dataset"},
                {"policy", {{"id", "p"}, {"version", 1}}},
                {"roles",
                 {{{"id", "viewer"}, {"name", "Viewer"}, {"permissions", {"READER"}}},
                  {{"id", "editor"}, {"name", "Editor"}, {"permissions", {"WRITER"}}}}}},
               {{"type", "table"},
                {"policy", {{"id", "p"}, {"version", 1}}},
                {"roles",
                 {{{"id", "viewer"},
                   {"name", "Viewer"},
                   {"permissions", {"roles/bigquery.dataViewer", "roles/bigquery.jobUser"}}}}}}}}};
    config_ = Config(json_);
    provider_ = NewBigQueryProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
  }

  v1beta1::Resource Dataset(const std::string& id) {
    v1beta1::Resource r;
    r.set_type("dataset");
    r.set_urn("proj:" + id);
    r.set_name(id);
    return r;
  }
  v1beta1::Resource Table(const std::string& ds, const std::string& t) {
    v1beta1::Resource r;
    r.set_type("table");
    r.set_urn("proj:" + ds + "." + t);
    r.set_name(t);
    return r;
  }
  AccessRequest Req(const v1beta1::Resource& r, const std::string& who,
                    std::vector<std::string> perms, const std::string& type = "user") {
    return {who, type, r, "viewer", std::move(perms)};
  }
  Json Access(const std::string& ds) { return fake_->State()["bigquery"]["proj"]["datasets"][ds]["access"]; }
  Json Bindings(const std::string& ds, const std::string& t) {
    return fake_->State()["bigquery"]["proj"]["datasets"][ds]["tables"][t]["policy"]["bindings"];
  }
  int Count(const std::string& key) { return fake_->Stats()["requests"].value(key, 0); }

  std::unique_ptr<GcpFake> fake_;
  Json creds_, json_;
  v1beta1::ProviderConfig config_;
  std::unique_ptr<ProviderClient> provider_;
};

TEST_F(BigQueryProviderTest, ValidatesConfigWithARealCall) {
  EXPECT_TRUE(provider_->ValidateConfig(config_).ok()) << provider_->ValidateConfig(config_);

  Json bad = json_;
  bad["credentials"]["service_account_key"] = "not base64!";
  auto st = provider_->ValidateConfig(Config(bad));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("credentials.service_account_key"), std::string::npos) << st;

  // A well-formed key the token endpoint does not know: 400 invalid_grant.
  auto other = GcpFake::Start();
  ASSERT_TRUE(other.ok());
  bad = json_;
  Json stranger = (*other)->NewKey("proj");
  stranger["token_uri"] = fake_->base_url() + "/token";
  bad["credentials"]["service_account_key"] = absl::Base64Escape(stranger.dump());
  st = provider_->ValidateConfig(Config(bad));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("credentials.service_account_key"), std::string::npos) << st;
  EXPECT_NE(st.message().find("invalid_grant"), std::string::npos) << st;

  bad = json_;
  bad["credentials"]["resource_name"] = "projects/nope";
  st = provider_->ValidateConfig(Config(bad));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("credentials.resource_name"), std::string::npos) << st;

  bad = json_;
  bad["credentials"]["resource_name"] = "organizations/1";
  EXPECT_EQ(provider_->ValidateConfig(Config(bad)).code(), absl::StatusCode::kInvalidArgument);

  bad = json_;
  bad["resources"][1]["roles"][0]["permissions"] = {"roles/storage.admin"};
  st = provider_->ValidateConfig(Config(bad));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("resources[1].roles[0].permissions"), std::string::npos) << st;

  bad = json_;
  bad["resources"][0]["roles"][0]["permissions"] = {"READ"};
  EXPECT_EQ(provider_->ValidateConfig(Config(bad)).code(), absl::StatusCode::kInvalidArgument);

  bad = json_;
  bad["resources"][0]["type"] = "view";
  EXPECT_EQ(provider_->ValidateConfig(Config(bad)).code(), absl::StatusCode::kInvalidArgument);

  // An outage is not the caller's fault: not InvalidArgument.
  fake_->Fault({{"path", "/datasets"}, {"status", 503}, {"count", -1}});
  EXPECT_EQ(provider_->ValidateConfig(config_).code(), absl::StatusCode::kUnavailable);
}

TEST_F(BigQueryProviderTest, ListsDatasetsAndTablesAcrossPagesWithLabels) {
  fake_->Configure({{"maxPageSize", 1}});
  auto res = provider_->GetResources(config_);
  ASSERT_TRUE(res.ok()) << res.status();
  std::vector<std::string> urns;
  for (const auto& r : *res) urns.push_back(r.type() + " " + r.urn());
  EXPECT_EQ(urns, (std::vector<std::string>{"dataset proj:sales", "table proj:sales.orders",
                                            "table proj:sales.refunds", "dataset proj:tmp",
                                            "dataset proj:web", "table proj:web.visits"}));
  EXPECT_EQ(res->at(0).name(), "sales");
  EXPECT_EQ(res->at(0).details().fields().at("__metadata").struct_value().fields().at("labels")
                .struct_value().fields().at("team").string_value(),
            "data");
  EXPECT_EQ(res->at(1).name(), "orders");
  EXPECT_TRUE(res->at(1).details().fields().count("__metadata"));
  EXPECT_GE(Count("GET /bigquery/v2/projects/proj/datasets"), 3);  // one page per dataset
}

TEST_F(BigQueryProviderTest, DatasetFilterLimitsWhichTablesAreListed) {
  json_["resources"][0]["filter"] = "$resource.name == \"web\"";
  auto res = provider_->GetResources(Config(json_));
  ASSERT_TRUE(res.ok()) << res.status();
  for (const auto& r : *res) {
    if (r.type() == "table") {
      EXPECT_EQ(r.urn(), "proj:web.visits");
    }
  }
  EXPECT_EQ(Count("GET /bigquery/v2/projects/proj/datasets/sales/tables"), 0);
}

TEST_F(BigQueryProviderTest, GrantsAndRevokesDatasetAccessEntries) {
  auto req = Req(Dataset("sales"), "alice@example.com", {"READER"});
  ASSERT_TRUE(provider_->GrantAccess(config_, req).ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, req).ok());  // idempotent
  Json access = Access("sales");
  int found = 0;
  for (const auto& e : access) found += e.value("userByEmail", "") == "alice@example.com";
  EXPECT_EQ(found, 1) << access;
  EXPECT_EQ(access.size(), 2u) << "the owner entry is kept";

  auto group = Req(Dataset("sales"), "team@example.com", {"WRITER"}, "group");
  ASSERT_TRUE(provider_->GrantAccess(config_, group).ok());
  EXPECT_NE(Access("sales").dump().find("\"groupByEmail\":\"team@example.com\""), std::string::npos);

  ASSERT_TRUE(provider_->RevokeAccess(config_, req).ok());
  ASSERT_TRUE(provider_->RevokeAccess(config_, req).ok());  // already gone
  EXPECT_EQ(Access("sales").dump().find("alice@example.com"), std::string::npos);
  // A dataset that no longer exists holds no access either.
  EXPECT_TRUE(provider_->RevokeAccess(config_, Req(Dataset("gone"), "a@example.com", {"READER"})).ok());
}

TEST_F(BigQueryProviderTest, GrantsAndRevokesTableBindingsInOneWrite) {
  auto req = Req(Table("sales", "orders"), "bot@proj.iam.gserviceaccount.com",
                 {"roles/bigquery.dataViewer", "roles/bigquery.jobUser"}, "serviceAccount");
  ASSERT_TRUE(provider_->GrantAccess(config_, req).ok());
  Json b = Bindings("sales", "orders");
  ASSERT_EQ(b.size(), 2u) << b;
  EXPECT_EQ(b[0]["members"][0], "serviceAccount:bot@proj.iam.gserviceaccount.com");
  EXPECT_EQ(Count("POST /bigquery/v2/projects/proj/datasets/sales/tables/orders:setIamPolicy"), 1);
  ASSERT_TRUE(provider_->GrantAccess(config_, req).ok());
  EXPECT_EQ(Count("POST /bigquery/v2/projects/proj/datasets/sales/tables/orders:setIamPolicy"), 1)
      << "nothing to write the second time";
  ASSERT_TRUE(provider_->RevokeAccess(config_, req).ok());
  EXPECT_TRUE(Bindings("sales", "orders").empty());
  ASSERT_TRUE(provider_->RevokeAccess(config_, req).ok());
}

// Review F-H2: Google keeps a principal's canonical casing, so revokes match
// dataset entries and table members case-insensitively.
TEST_F(BigQueryProviderTest, RevokeRemovesTheMemberInGooglesCasing) {
  fake_->Seed({{"principals", {"jane.doe@x.com"}}});
  auto ds = Req(Dataset("sales"), "Jane.Doe@x.com", {"READER"});
  auto table = Req(Table("sales", "orders"), "Jane.Doe@x.com",
                   {"roles/bigquery.dataViewer", "roles/bigquery.jobUser"});
  ASSERT_TRUE(provider_->GrantAccess(config_, ds).ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, table).ok());
  ASSERT_NE(Access("sales").dump().find("\"userByEmail\":\"jane.doe@x.com\""), std::string::npos)
      << Access("sales");
  ASSERT_EQ(Bindings("sales", "orders")[0]["members"][0], "user:jane.doe@x.com");
  ASSERT_TRUE(provider_->GrantAccess(config_, ds).ok());
  auto st = provider_->RevokeAccess(config_, ds);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(absl::AsciiStrToLower(Access("sales").dump()).find("jane.doe"), std::string::npos)
      << Access("sales");
  st = provider_->RevokeAccess(config_, table);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_TRUE(Bindings("sales", "orders").empty()) << Bindings("sales", "orders");
}

// Review F-H2: a revoke reports success only when a fresh read shows the
// member unbound, for dataset entries and table bindings alike.
TEST_F(BigQueryProviderTest, RevokeFailsWhenTheBindingStays) {
  auto ds = Req(Dataset("sales"), "jane.doe@x.com", {"READER"});
  auto table = Req(Table("sales", "orders"), "jane.doe@x.com", {"roles/bigquery.dataViewer"});
  ASSERT_TRUE(provider_->GrantAccess(config_, ds).ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, table).ok());
  fake_->Configure({{"keepMembers", {"user:jane.doe@x.com"}}});
  for (const auto& req : {ds, table}) {
    auto st = provider_->RevokeAccess(config_, req);
    EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
    EXPECT_NE(st.message().find("still bound"), std::string::npos) << st;
  }
  EXPECT_NE(Access("sales").dump().find("jane.doe@x.com"), std::string::npos);
}

TEST_F(BigQueryProviderTest, RetriesEtagConflictsAndTransientErrors) {
  fake_->Fault({{"method", "PATCH"}, {"path", "/datasets/sales"}, {"status", 412}, {"count", 2}});
  fake_->Fault({{"method", "GET"}, {"path", "/datasets/sales"}, {"status", 503}});
  fake_->Fault({{"path", ":setIamPolicy"}, {"status", 409}});
  fake_->Fault({{"path", ":getIamPolicy"}, {"status", 429}});
  ASSERT_TRUE(provider_->GrantAccess(config_, Req(Dataset("sales"), "a@example.com", {"READER"})).ok());
  EXPECT_EQ(Count("PATCH /bigquery/v2/projects/proj/datasets/sales"), 3);
  ASSERT_TRUE(provider_->GrantAccess(config_, Req(Table("sales", "orders"), "a@example.com",
                                                  {"roles/bigquery.dataViewer"}))
                  .ok());
  EXPECT_NE(Bindings("sales", "orders").dump().find("user:a@example.com"), std::string::npos);
}

TEST_F(BigQueryProviderTest, FailuresLeaveNoAccessAndSayWhy) {
  auto req = Req(Dataset("web"), "a@example.com", {"READER"});
  fake_->Fault({{"path", "/datasets/web"}, {"status", 503}, {"count", -1}});
  auto st = provider_->GrantAccess(config_, req);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
  EXPECT_NE(st.message().find("503"), std::string::npos) << st;
  fake_->ClearFaults();

  fake_->Fault({{"method", "PATCH"}, {"status", 403}});
  st = provider_->GrantAccess(config_, req);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_NE(st.message().find("403 PERMISSION_DENIED"), std::string::npos) << st;

  fake_->Fault({{"path", "/datasets/web"}, {"delay_ms", 1500}, {"count", -1}});
  st = provider_->GrantAccess(config_, req);
  EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded) << st;
  fake_->ClearFaults();
  absl::SleepFor(absl::Milliseconds(1600));  // let delayed answers finish
  EXPECT_EQ(Access("web").dump().find("a@example.com"), std::string::npos);

  // A revoke that fails reports it.
  fake_->Fault({{"path", "/datasets/web"}, {"status", 500}, {"count", -1}});
  EXPECT_EQ(provider_->RevokeAccess(config_, req).code(), absl::StatusCode::kUnavailable);
}

TEST_F(BigQueryProviderTest, ConcurrentGrantsFromTwoReplicasAllLand) {
  // Two plugin instances share no lock: only the etag keeps them apart.
  auto second = NewBigQueryProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      ProviderClient* p = i % 2 ? provider_.get() : second.get();
      std::string who = "u" + std::to_string(i) + "@example.com";
      if (!p->GrantAccess(config_, Req(Dataset("tmp"), who, {"READER"})).ok()) ++failures;
      if (!p->GrantAccess(config_, Req(Table("web", "visits"), who, {"roles/bigquery.dataViewer"}))
               .ok()) {
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(Access("tmp").size(), 8u) << Access("tmp");
  EXPECT_EQ(Bindings("web", "visits")[0]["members"].size(), 8u);
}

TEST_F(BigQueryProviderTest, ListsAccessPerResource) {
  ASSERT_TRUE(provider_->GrantAccess(config_, Req(Dataset("sales"), "a@example.com", {"READER"})).ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, Req(Dataset("sales"), "b@p.iam.gserviceaccount.com",
                                                  {"WRITER"}, "serviceAccount"))
                  .ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, Req(Table("sales", "orders"), "g@example.com",
                                                  {"roles/bigquery.dataViewer"}, "group"))
                  .ok());
  auto access = provider_->ListAccess(config_, {Dataset("sales"), Table("sales", "orders")});
  ASSERT_TRUE(access.ok()) << access.status();
  std::vector<std::string> got;
  for (const auto& a : *access) {
    got.push_back(a.resource_urn + " " + a.account_type + ":" + a.account_id + " " +
                  a.permissions.at(0));
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "proj:sales serviceAccount:b@p.iam.gserviceaccount.com WRITER",
                     "proj:sales user:a@example.com READER",
                     "proj:sales.orders group:g@example.com roles/bigquery.dataViewer"}));
}

TEST_F(BigQueryProviderTest, HonoursAccountTypesAndRefusesSpecialMembers) {
  json_["allowed_account_types"] = {"user"};
  auto st = provider_->GrantAccess(Config(json_), Req(Dataset("sales"), "s@p.iam.gserviceaccount.com",
                                                      {"READER"}, "serviceAccount"));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(provider_->ValidateAccount(config_, "user", "allUsers").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(provider_->ValidateAccount(config_, "user", "user:x@example.com").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(provider_->ValidateAccount(config_, "user", "x@example.com").ok());
}

TEST_F(BigQueryProviderTest, OneTokenServesManyCalls) {
  ASSERT_TRUE(provider_->GetResources(config_).ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, Req(Dataset("sales"), "a@example.com", {"READER"})).ok());
  EXPECT_EQ(fake_->Stats()["tokenRequests"], 1);
}

}  // namespace
}  // namespace sluice::access
