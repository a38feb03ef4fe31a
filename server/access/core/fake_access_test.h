// The base of the core service tests: the access services (AccessServices)
// on in-memory fakes, and the steps that build them. A fixture derives from
// it, stores its policies, resources and provider configs with the helpers,
// then starts the services.
#ifndef SLUICE_SERVER_ACCESS_CORE_FAKE_ACCESS_TEST_H_
#define SLUICE_SERVER_ACCESS_CORE_FAKE_ACCESS_TEST_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "server/access/core/access_services.h"
#include "server/access/core/fakes.h"
#include "server/access/core/json.h"

namespace sluice::access {

class FakeAccessTest : public ::testing::Test {
 protected:
  // The registry of one fake provider plugin (client_, type "fake") and the
  // provider service over the fake repositories.
  FakeAccessTest() {
    appeals_.resources = &resources_;
    auto client = std::make_unique<testing::FakeProviderClient>();
    client_ = client.get();
    std::vector<std::unique_ptr<ProviderClient>> clients;
    clients.push_back(std::move(client));
    registry_ = std::make_unique<ProviderRegistry>(std::move(clients));
    providers_ = std::make_unique<ProviderService>(&provider_repo_, &policy_repo_, registry_.get(),
                                                   crypter_.get());
  }

  // Stores the policy `json` (a Policy in JSON) as admin@x.com.
  void StorePolicy(const std::string& json) {
    pb::Policy p;
    ASSERT_TRUE(JsonStringToProto(json, &p).ok()) << json;
    auto created = policies_.Create(p, "admin@x.com");
    ASSERT_TRUE(created.ok()) << created.status();
  }

  // Stores `r` as a resource of provider fake/`provider_urn`; with `listed`,
  // the fake plugin lists it too (as a provider sync would find it).
  void StoreResource(pb::Resource r, const std::string& provider_urn = "f", bool listed = true) {
    if (listed) client_->resources.push_back(r);
    r.set_provider_type("fake");
    r.set_provider_urn(provider_urn);
    resources_.resources[r.id()] = std::move(r);
  }

  // Creates the provider `json` (a ProviderConfig in JSON) as admin@x.com;
  // returns its id ("" after a failed assertion).
  std::string StoreProvider(const std::string& json) {
    pb::ProviderConfig c;
    EXPECT_TRUE(JsonStringToProto(json, &c).ok()) << json;
    auto created = providers_->Create(c, "admin@x.com");
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->id() : "";
  }

  // Builds service_: at the fixed clock now_, or on absl::Now.
  void StartServices(bool fixed_clock = true) {
    std::function<absl::Time()> clock = &absl::Now;
    if (fixed_clock) clock = [this] { return now_; };
    service_ = std::make_unique<AccessServices>(&appeals_, &resources_, &policies_, providers_.get(),
                                                registry_.get(), nullptr, std::move(clock));
  }

  absl::Time now_ = absl::FromUnixSeconds(1800000000);
  testing::FakePolicyRepository policy_repo_;
  testing::FakeProviderRepository provider_repo_;
  testing::FakeResourceRepository resources_;
  testing::FakeAppealRepository appeals_;
  testing::FakeProviderJournal journal_;
  testing::FakeProviderClient* client_ = nullptr;
  std::unique_ptr<ProviderRegistry> registry_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  PolicyService policies_{&policy_repo_, crypter_.get()};
  std::unique_ptr<ProviderService> providers_;
  std::unique_ptr<AccessServices> service_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_FAKE_ACCESS_TEST_H_
