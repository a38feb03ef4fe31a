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

#include "server/access/core/fake_access_test.h"

namespace sluice::access {

// The resource of the fixture's provider.
inline const std::string kRoutesResource = "00000000-0000-0000-0000-000000000001";

class AppealRoutesTest : public FakeAccessTest {
 protected:
  void SetUp() override {
    StorePolicy(R"({"id": "pol", "steps": [
        {"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]},
        {"name": "lead", "strategy": "manual", "approvers": ["l@x.com"]}],
        "appeal": {"allow_permanent_access": true}})");
    pb::Resource r;
    r.set_id(kRoutesResource);
    r.set_type("manual");
    r.set_urn("urn-manual");
    StoreResource(r);
    StoreProvider(R"({"type": "fake", "urn": "f", "allowed_account_types": ["user"],
        "resources": [{"type": "manual", "policy": {"id": "pol", "version": 1},
                       "roles": [{"id": "viewer"}, {"id": "editor"}]}]})");
    StartServices(/*fixed_clock=*/false);
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
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_ROUTES_FIXTURE_H_
