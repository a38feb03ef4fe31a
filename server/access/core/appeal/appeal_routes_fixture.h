// The fixture of issue 28's route tests (appeal_routes_test.cc,
// approval/approval_routes_test.cc): policy "pol" with two manual steps
// (owner o@x.com, lead l@x.com), a fake provider "f" with one "manual"
// resource, and the access services (AccessServices) on in-memory fakes.
#ifndef SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_ROUTES_FIXTURE_H_
#define SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_ROUTES_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/access/core/access_services.h"
#include "server/access/core/fakes.h"
#include "server/access/core/json.h"

namespace sluice::access {

// The resource of the fixture's provider.
inline const std::string kRoutesResource = "00000000-0000-0000-0000-000000000001";

class AppealRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pb::Policy p;
    ASSERT_TRUE(JsonStringToProto(R"({"id": "pol", "steps": [
        {"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]},
        {"name": "lead", "strategy": "manual", "approvers": ["l@x.com"]}],
        "appeal": {"allow_permanent_access": true}})", &p).ok());
    ASSERT_TRUE(policies_.Create(p, "admin@x.com").ok());
    appeals_.resources = &resources_;
    auto client = std::make_unique<testing::FakeProviderClient>();
    pb::Resource r;
    r.set_id(kRoutesResource);
    r.set_type("manual");
    r.set_urn("urn-manual");
    client->resources.push_back(r);
    std::vector<std::unique_ptr<ProviderClient>> clients;
    clients.push_back(std::move(client));
    registry_ = std::make_unique<ProviderRegistry>(std::move(clients));
    r.set_provider_type("fake");
    r.set_provider_urn("f");
    resources_.resources[kRoutesResource] = r;
    pb::ProviderConfig c;
    ASSERT_TRUE(JsonStringToProto(R"({"type": "fake", "urn": "f", "allowed_account_types": ["user"],
        "resources": [{"type": "manual", "policy": {"id": "pol", "version": 1},
                       "roles": [{"id": "viewer"}, {"id": "editor"}]}]})", &c).ok());
    providers_ = std::make_unique<ProviderService>(&provider_repo_, &policy_repo_, registry_.get(),
                                                   crypter_.get());
    ASSERT_TRUE(providers_->Create(c, "admin@x.com").ok());
    service_ = std::make_unique<AccessServices>(&appeals_, &resources_, &policies_,
                                                providers_.get(), registry_.get(), nullptr);
  }

  // A pending appeal by bob for `role`.
  pb::Appeal Create(const std::string& role = "viewer") {
    pb::CreateAppealRequest req;
    auto* r = req.add_resources();
    r->set_id(kRoutesResource);
    r->set_role(role);
    auto created = service_->appeals().Create(req, "bob@x.com");
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? (*created)[0] : pb::Appeal();
  }

  testing::FakePolicyRepository policy_repo_;
  testing::FakeProviderRepository provider_repo_;
  testing::FakeResourceRepository resources_;
  testing::FakeAppealRepository appeals_;
  std::unique_ptr<ProviderRegistry> registry_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  PolicyService policies_{&policy_repo_, crypter_.get()};
  std::unique_ptr<ProviderService> providers_;
  std::unique_ptr<AccessServices> service_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_ROUTES_FIXTURE_H_
