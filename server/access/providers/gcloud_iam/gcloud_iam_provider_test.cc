// The gcloud_iam plugin against integration/gcp_fake: project and
// organization configs, grantable-role checks, IAM bindings read back from
// the fake, 409 ABORTED retries, failures and ListAccess.
#include "server/access/providers/gcloud_iam/gcloud_iam_provider.h"

#include <atomic>
#include <thread>

#include <google/protobuf/util/json_util.h>

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

class GcloudIamProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto f = GcpFake::Start();
    ASSERT_TRUE(f.ok()) << f.status();
    fake_ = std::move(*f);
    fake_->Seed({{"projects", {"proj"}},
                 {"organizations", {"123"}},
                 {"grantable", {{"project", {"projects/proj/roles/project.iamManager"}}}}});
    json_ = Project("projects/proj");
    config_ = Config(json_);
    provider_ = NewGcloudIamProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
  }
  Json Project(const std::string& resource_name) {
    bool org = resource_name.rfind("organizations/", 0) == 0;
    return {{"type", "gcloud_iam"},
            {"urn", "iam"},
            {"allowed_account_types", {"user", "serviceAccount"}},
            {"credentials", fake_->Credentials(resource_name, 1000)},
            {"resources",
             {{{"type", org ? "organization" : "project"},
               {"policy", {{"id", "p"}, {"version", 1}}},
               {"roles",
                {{{"id", "role-1"}, {"name", "BigQuery"},
                  {"permissions", {"roles/bigquery.admin", "roles/bigquery.dataEditor"}}},
                 {{"id", "role-2"}, {"name", "Custom"},
                  {"permissions", {"projects/proj/roles/project.iamManager"}}}}}}}}};
  }
  AccessRequest Req(const std::string& urn, const std::string& who,
                    const std::string& type = "user") {
    v1beta1::Resource r;
    r.set_type(urn.rfind("organizations/", 0) == 0 ? "organization" : "project");
    r.set_urn(urn);
    return {who, type, r, "role-1", {"roles/bigquery.admin", "roles/bigquery.dataEditor"}};
  }
  Json Policy(const std::string& kind, const std::string& id) {
    return fake_->State()["crm"][kind][id]["policy"];
  }

  std::unique_ptr<GcpFake> fake_;
  Json json_;
  v1beta1::ProviderConfig config_;
  std::unique_ptr<ProviderClient> provider_;
};

TEST_F(GcloudIamProviderTest, ValidatesProjectAndOrganizationConfigs) {
  EXPECT_TRUE(provider_->ValidateConfig(config_).ok()) << provider_->ValidateConfig(config_);
  Json org = Project("organizations/123");
  org["resources"][0]["roles"].erase(1);
  EXPECT_TRUE(provider_->ValidateConfig(Config(org)).ok()) << provider_->ValidateConfig(Config(org));
  Json bad = json_;
  bad["resources"][0]["type"] = "organization";
  EXPECT_EQ(provider_->ValidateConfig(Config(bad)).code(), absl::StatusCode::kInvalidArgument);
  bad = json_;
  bad["resources"][0]["roles"][0]["permissions"] = {"roles/not.grantable"};
  auto st = provider_->ValidateConfig(Config(bad));
  EXPECT_NE(st.message().find("resources[0].roles[0].permissions"), std::string::npos) << st;
  bad = json_;
  bad["credentials"]["resource_name"] = "folders/1";
  st = provider_->ValidateConfig(Config(bad));
  EXPECT_NE(st.message().find("credentials.resource_name"), std::string::npos) << st;
  bad = Project("projects/unknown");
  st = provider_->ValidateConfig(Config(bad));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("credentials.service_account_key"), std::string::npos) << st;
}

TEST_F(GcloudIamProviderTest, TheResourceIsTheProject) {
  auto res = provider_->GetResources(config_);
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->size(), 1u);
  EXPECT_EQ(res->at(0).type(), "project");
  EXPECT_EQ(res->at(0).urn(), "projects/proj");
  EXPECT_EQ(res->at(0).name(), "projects/proj - GCP IAM");
}

TEST_F(GcloudIamProviderTest, GrantsAndRevokesProjectAndOrganizationBindings) {
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("projects/proj", "a@example.com")).ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("projects/proj", "a@example.com")).ok());
  Json b = Policy("projects", "proj")["bindings"];
  ASSERT_EQ(b.size(), 2u) << b;
  EXPECT_EQ(b[0]["members"], Json::parse(R"(["user:a@example.com"])"));
  ASSERT_TRUE(provider_->RevokeAccess(config_, Req("projects/proj", "a@example.com")).ok());
  ASSERT_TRUE(provider_->RevokeAccess(config_, Req("projects/proj", "a@example.com")).ok());
  EXPECT_TRUE(Policy("projects", "proj")["bindings"].empty());

  Json org = Project("organizations/123");
  ASSERT_TRUE(provider_->GrantAccess(Config(org), Req("organizations/123", "s@p.iam.gserviceaccount.com",
                                                      "serviceAccount"))
                  .ok());
  EXPECT_NE(Policy("organizations", "123").dump().find("serviceAccount:s@p.iam.gserviceaccount.com"),
            std::string::npos);
}

// Review F-H2: the project policy holds Google's casing; the revoke finds
// it, and fails when a fresh read still shows the member bound.
TEST_F(GcloudIamProviderTest, RevokeMatchesGooglesCasingAndVerifies) {
  fake_->Seed({{"principals", {"jane.doe@x.com"}}});
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("projects/proj", "Jane.Doe@x.com")).ok());
  ASSERT_EQ(Policy("projects", "proj")["bindings"][0]["members"][0], "user:jane.doe@x.com");
  auto st = provider_->RevokeAccess(config_, Req("projects/proj", "Jane.Doe@x.com"));
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_TRUE(Policy("projects", "proj")["bindings"].empty()) << Policy("projects", "proj");

  ASSERT_TRUE(provider_->GrantAccess(config_, Req("projects/proj", "jane.doe@x.com")).ok());
  fake_->Configure({{"keepMembers", {"user:jane.doe@x.com"}}});
  st = provider_->RevokeAccess(config_, Req("projects/proj", "Jane.Doe@x.com"));
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_NE(st.message().find("still bound"), std::string::npos) << st;
}

TEST_F(GcloudIamProviderTest, RetriesAbortedAndReportsFailures) {
  fake_->Fault({{"path", ":setIamPolicy"}, {"status", 409}, {"count", 2}});
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("projects/proj", "a@example.com")).ok());
  EXPECT_EQ(fake_->Stats()["requests"]["POST /v1/projects/proj:setIamPolicy"], 3);
  fake_->Fault({{"path", ":setIamPolicy"}, {"status", 403}});
  auto st = provider_->GrantAccess(config_, Req("projects/proj", "b@example.com"));
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  fake_->Fault({{"path", ":getIamPolicy"}, {"delay_ms", 1500}, {"count", 3}});
  st = provider_->RevokeAccess(config_, Req("projects/proj", "a@example.com"));
  EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded) << st;
  absl::SleepFor(absl::Milliseconds(1600));
  EXPECT_NE(Policy("projects", "proj").dump().find("user:a@example.com"), std::string::npos);
}

TEST_F(GcloudIamProviderTest, ConcurrentGrantsAllLandAndListAccessReportsThem) {
  auto second = NewGcloudIamProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&, i] {
      ProviderClient* p = i % 2 ? provider_.get() : second.get();
      if (!p->GrantAccess(config_, Req("projects/proj", "u" + std::to_string(i) + "@example.com"))
               .ok()) {
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures, 0);
  v1beta1::Resource r;
  r.set_type("project");
  r.set_urn("projects/proj");
  auto access = provider_->ListAccess(config_, {r});
  ASSERT_TRUE(access.ok()) << access.status();
  ASSERT_EQ(access->size(), 6u);
  EXPECT_EQ(access->at(0).permissions,
            (std::vector<std::string>{"roles/bigquery.admin", "roles/bigquery.dataEditor"}));
  EXPECT_EQ(access->at(0).resource_type, "project");
}

}  // namespace
}  // namespace sluice::access
