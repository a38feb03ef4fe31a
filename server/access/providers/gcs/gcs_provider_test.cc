// The gcs plugin against integration/gcp_fake: registration checks, bucket
// discovery with paging and labels, bucket IAM grant/revoke read back from
// the fake, 412 etag conflicts, failures, concurrency and ListAccess.
#include "server/access/providers/gcs/gcs_provider.h"

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

class GcsProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto f = GcpFake::Start();
    ASSERT_TRUE(f.ok()) << f.status();
    fake_ = std::move(*f);
    fake_->Seed({{"projects", {"proj"}},
                 {"buckets",
                  {{"logs", {{"project", "proj"}, {"labels", {{"env", "prod"}}}}},
                   {"raw", {{"project", "proj"}}},
                   {"elsewhere", {{"project", "other"}}}}}});
    json_ = {{"type", "gcs"},
             {"urn", "gcs"},
             {"allowed_account_types", {"user", "serviceAccount", "group", "domain"}},
             {"credentials", fake_->Credentials("projects/proj", 1000)},
             {"resources",
              {{{"type", "bucket"},
                {"policy", {{"id", "p"}, {"version", 1}}},
                {"roles",
                 {{{"id", "READER"}, {"name", "Reader"},
                   {"permissions", {"roles/storage.legacyBucketReader"}}},
                  {{"id", "OWNER"}, {"name", "Owner"},
                   {"permissions", {"roles/storage.legacyBucketOwner"}}}}}}}}};
    config_ = Config(json_);
    provider_ = NewGcsProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
  }
  AccessRequest Req(const std::string& bucket, const std::string& who,
                    const std::string& type = "user") {
    v1beta1::Resource r;
    r.set_type("bucket");
    r.set_urn(bucket);
    r.set_name(bucket);
    return {who, type, r, "READER", {"roles/storage.legacyBucketReader"}};
  }
  Json Bindings(const std::string& b) { return fake_->State()["buckets"][b]["policy"]["bindings"]; }

  std::unique_ptr<GcpFake> fake_;
  Json json_;
  v1beta1::ProviderConfig config_;
  std::unique_ptr<ProviderClient> provider_;
};

TEST_F(GcsProviderTest, ValidatesConfig) {
  EXPECT_TRUE(provider_->ValidateConfig(config_).ok()) << provider_->ValidateConfig(config_);
  Json bad = json_;
  bad["resources"][0]["roles"][0]["permissions"] = {"roles/bigquery.admin"};
  auto st = provider_->ValidateConfig(Config(bad));
  EXPECT_NE(st.message().find("resources[0].roles[0].permissions"), std::string::npos) << st;
  bad = json_;
  bad["credentials"].erase("resource_name");
  st = provider_->ValidateConfig(Config(bad));
  EXPECT_NE(st.message().find("credentials.resource_name: required"), std::string::npos) << st;
  bad = json_;
  bad["credentials"]["resource_name"] = "projects/missing";
  st = provider_->ValidateConfig(Config(bad));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("credentials.resource_name"), std::string::npos) << st;
  fake_->Fault({{"path", "/storage/v1/b"}, {"status", 403}});
  st = provider_->ValidateConfig(config_);
  EXPECT_NE(st.message().find("credentials.service_account_key"), std::string::npos) << st;
}

TEST_F(GcsProviderTest, ListsTheProjectsBucketsAcrossPages) {
  fake_->Configure({{"maxPageSize", 1}});
  auto res = provider_->GetResources(config_);
  ASSERT_TRUE(res.ok()) << res.status();
  ASSERT_EQ(res->size(), 2u);
  EXPECT_EQ(res->at(0).urn(), "logs");
  EXPECT_EQ(res->at(0).name(), "logs");
  EXPECT_EQ(res->at(0).type(), "bucket");
  EXPECT_EQ(res->at(0).details().fields().at("__metadata").struct_value().fields().at("labels")
                .struct_value().fields().at("env").string_value(),
            "prod");
  EXPECT_EQ(res->at(1).urn(), "raw");
}

TEST_F(GcsProviderTest, GrantsAndRevokesBucketBindings) {
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("logs", "a@example.com")).ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("logs", "a@example.com")).ok());
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("logs", "example.com", "domain")).ok());
  Json b = Bindings("logs");
  ASSERT_EQ(b.size(), 1u) << b;
  EXPECT_EQ(b[0]["role"], "roles/storage.legacyBucketReader");
  EXPECT_EQ(b[0]["members"], Json::parse(R"(["user:a@example.com","domain:example.com"])"));
  ASSERT_TRUE(provider_->RevokeAccess(config_, Req("logs", "a@example.com")).ok());
  ASSERT_TRUE(provider_->RevokeAccess(config_, Req("logs", "a@example.com")).ok());
  EXPECT_EQ(Bindings("logs")[0]["members"], Json::parse(R"(["domain:example.com"])"));
  EXPECT_TRUE(provider_->RevokeAccess(config_, Req("deleted-bucket", "a@example.com")).ok());
}

// Review F-H2: Google keeps a principal's canonical casing ("jane.doe@x.com"),
// so a revoke of "Jane.Doe@x.com" must find the binding case-insensitively.
TEST_F(GcsProviderTest, RevokeRemovesTheMemberInGooglesCasing) {
  fake_->Seed({{"principals", {"jane.doe@x.com"}}});
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("logs", "Jane.Doe@x.com")).ok());
  EXPECT_EQ(Bindings("logs")[0]["members"], Json::parse(R"(["user:jane.doe@x.com"])"))
      << "the fake keeps Google's casing";
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("logs", "Jane.Doe@x.com")).ok());
  auto st = provider_->RevokeAccess(config_, Req("logs", "Jane.Doe@x.com"));
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_TRUE(Bindings("logs").empty()) << Bindings("logs");
}

// Review F-H2: a revoke reports success only when a fresh read shows the
// member unbound.
TEST_F(GcsProviderTest, RevokeFailsWhenTheBindingStays) {
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("logs", "jane.doe@x.com")).ok());
  fake_->Configure({{"keepMembers", {"user:JANE.DOE@x.com"}}});
  auto st = provider_->RevokeAccess(config_, Req("logs", "Jane.Doe@x.com"));
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_NE(st.message().find("still bound"), std::string::npos) << st;
  EXPECT_EQ(Bindings("logs")[0]["members"], Json::parse(R"(["user:jane.doe@x.com"])"));
}

TEST_F(GcsProviderTest, RetriesPreconditionFailuresAndReportsOutages) {
  fake_->Fault({{"method", "PUT"}, {"status", 412}, {"count", 3}});
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("raw", "a@example.com")).ok());
  EXPECT_EQ(fake_->Stats()["requests"]["PUT /storage/v1/b/raw/iam"], 4);
  fake_->Fault({{"path", "/b/raw"}, {"status", 502}, {"count", -1}});
  auto st = provider_->GrantAccess(config_, Req("raw", "b@example.com"));
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
  st = provider_->RevokeAccess(config_, Req("raw", "a@example.com"));
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
  fake_->ClearFaults();
  EXPECT_EQ(Bindings("raw")[0]["members"], Json::parse(R"(["user:a@example.com"])"));
}

TEST_F(GcsProviderTest, ConcurrentGrantsFromTwoReplicasAllLand) {
  auto second = NewGcsProvider(std::shared_ptr<HttpClient>(NewCurlHttpClient()));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      ProviderClient* p = i % 2 ? provider_.get() : second.get();
      if (!p->GrantAccess(config_, Req("raw", "u" + std::to_string(i) + "@example.com")).ok()) {
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(Bindings("raw")[0]["members"].size(), 8u);
}

TEST_F(GcsProviderTest, ListsAccessAndHonoursAccountTypes) {
  ASSERT_TRUE(provider_->GrantAccess(config_, Req("logs", "g@example.com", "group")).ok());
  v1beta1::Resource r;
  r.set_type("bucket");
  r.set_urn("logs");
  auto access = provider_->ListAccess(config_, {r});
  ASSERT_TRUE(access.ok()) << access.status();
  ASSERT_EQ(access->size(), 1u);
  EXPECT_EQ(access->at(0).account_type, "group");
  EXPECT_EQ(access->at(0).account_id, "g@example.com");
  EXPECT_EQ(access->at(0).permissions,
            (std::vector<std::string>{"roles/storage.legacyBucketReader"}));
  json_["allowed_account_types"] = {"user"};
  EXPECT_EQ(provider_->GrantAccess(Config(json_), Req("logs", "example.com", "domain")).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice::access
