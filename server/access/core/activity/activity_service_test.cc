// ActivityService with in-memory fakes: which providers import, how the
// request becomes the plugin's query, and what is stored.
#include "server/access/core/activity/activity_service.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/access/core/activity/fake_activity_repository.h"
#include "server/access/core/fakes.h"
#include "server/access/core/json.h"
#include "server/access/core/policy_service.h"

namespace sluice::access {
namespace {

// A plugin of type "logged" that reads activity, and records its query.
class LoggedClient : public testing::FakeProviderClient {
 public:
  std::string Type() const override { return "logged"; }
  bool SupportsActivities() const override { return true; }
  absl::StatusOr<std::vector<pb::ProviderActivity>> GetActivities(
      const pb::ProviderConfig& config, const ActivityQuery& q) override {
    configs.push_back(config);
    queries.push_back(q);
    return activities;
  }
  std::vector<pb::ProviderConfig> configs;
  std::vector<ActivityQuery> queries;
  std::vector<pb::ProviderActivity> activities;
};

class ActivityServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pb::Policy policy;
    ASSERT_TRUE(JsonStringToProto(R"({"id": "pol", "steps": [
        {"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]}]})", &policy).ok());
    ASSERT_TRUE(policies_.Create(policy, "admin@x.com").ok());
    auto logged = std::make_unique<LoggedClient>();
    logged_ = logged.get();
    pb::Resource r;
    r.set_type("dataset");
    r.set_urn("p:d");
    logged->resources.push_back(r);
    std::vector<std::unique_ptr<ProviderClient>> clients;
    clients.push_back(std::move(logged));
    clients.push_back(std::make_unique<testing::FakeProviderClient>());
    registry_ = std::make_unique<ProviderRegistry>(std::move(clients));
    providers_ = std::make_unique<ProviderService>(&provider_repo_, &policy_repo_, registry_.get(),
                                                   crypter_.get());
    for (const char* type : {"logged", "fake"}) {
      pb::ProviderConfig c;
      c.set_type(type);
      c.set_urn(absl::StrCat(type, "-1"));
      c.add_allowed_account_types("user");
      auto* rc = c.add_resources();
      rc->set_type(type == std::string("logged") ? "dataset" : "manual");
      rc->add_roles()->set_id("viewer");
      rc->mutable_policy()->set_id("pol");
      rc->mutable_policy()->set_version(1);
      auto p = providers_->Create(c, "admin@x.com");
      ASSERT_TRUE(p.ok()) << p.status();
      ids_[type] = p->id();
    }
    pb::Resource dataset;
    dataset.set_id("00000000-0000-0000-0000-00000000000d");
    dataset.set_provider_type("logged");
    dataset.set_provider_urn("logged-1");
    dataset.set_type("dataset");
    dataset.set_urn("p:d");
    resources_.resources[dataset.id()] = dataset;
    pb::Resource foreign = dataset;
    foreign.set_id("00000000-0000-0000-0000-00000000000f");
    foreign.set_provider_type("fake");
    foreign.set_provider_urn("fake-1");
    resources_.resources[foreign.id()] = foreign;
    service_ = std::make_unique<ActivityService>(&activities_, providers_.get(), &resources_,
                                                 registry_.get());
  }

  testing::FakePolicyRepository policy_repo_;
  testing::FakeProviderRepository provider_repo_;
  testing::FakeResourceRepository resources_;
  testing::FakeActivityRepository activities_;
  LoggedClient* logged_ = nullptr;
  std::unique_ptr<ProviderRegistry> registry_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  PolicyService policies_{&policy_repo_, crypter_.get()};
  std::unique_ptr<ProviderService> providers_;
  std::unique_ptr<ActivityService> service_;
  std::map<std::string, std::string> ids_;
};

TEST_F(ActivityServiceTest, AProviderWithoutActivitySupportIsRefusedNamingItsType) {
  pb::ImportActivitiesRequest req;
  req.set_provider_id(ids_["fake"]);
  auto got = service_->Import(req);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(got.status().message(), "provider type \"fake\" does not support activity import");
  EXPECT_TRUE(activities_.stored.empty());
}

TEST_F(ActivityServiceTest, ImportPassesTheFilterAndStoresWhatThePluginRead) {
  pb::ProviderActivity a;
  a.set_provider_activity_id("insert-1");
  a.set_account_id("u@x.com");
  a.set_type("google.cloud.bigquery.v2.JobService.InsertJob");
  a.mutable_resource()->set_type("dataset");
  a.mutable_resource()->set_urn("p:d");
  logged_->activities = {a};
  pb::ImportActivitiesRequest req;
  ASSERT_TRUE(JsonStringToProto(R"({"account_ids": ["u@x.com"],
      "resource_ids": ["00000000-0000-0000-0000-00000000000d"],
      "timestamp_gte": "2026-01-02T03:04:05.600Z"})", &req).ok());
  req.set_provider_id(ids_["logged"]);
  auto got = service_->Import(req);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(logged_->queries.size(), 1u);
  const ActivityQuery& q = logged_->queries[0];
  EXPECT_EQ(q.account_ids, std::vector<std::string>{"u@x.com"});
  ASSERT_EQ(q.resources.size(), 1u);
  EXPECT_EQ(q.resources[0].urn(), "p:d");
  EXPECT_EQ(q.timestamp_gte, "2026-01-02T03:04:05Z");  // Guardian's time.RFC3339
  EXPECT_EQ(q.timestamp_lte, "");
  EXPECT_EQ(logged_->configs[0].urn(), "logged-1");
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].provider_id(), ids_["logged"]);
  EXPECT_EQ((*got)[0].resource().provider_urn(), "logged-1");  // for the store's match
  EXPECT_EQ(activities_.stored.size(), 1u);
  EXPECT_EQ(service_->Get((*got)[0].id())->provider_activity_id(), "insert-1");
}

TEST_F(ActivityServiceTest, BadRequestsNameTheField) {
  pb::ImportActivitiesRequest req;
  EXPECT_EQ(service_->Import(req).status().message(), "provider_id: required");
  req.set_provider_id("00000000-0000-0000-0000-0000000000ee");
  EXPECT_EQ(service_->Import(req).status().code(), absl::StatusCode::kNotFound);
  req.set_provider_id(ids_["logged"]);
  req.add_resource_ids("00000000-0000-0000-0000-000000000099");
  auto missing = service_->Import(req);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("resource_ids[0]"), std::string::npos);
  req.set_resource_ids(0, "00000000-0000-0000-0000-00000000000f");
  auto foreign = service_->Import(req);
  EXPECT_EQ(foreign.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(foreign.status().message().find("not of provider"), std::string::npos);
  EXPECT_TRUE(logged_->queries.empty());
}

}  // namespace
}  // namespace sluice::access
