// The fixture of the grant lifecycle tests (grant_actions_test.cc,
// grant_update_test.cc): an "auto" policy, a fake provider "f" with one
// table resource, and the access services (AccessServices) on in-memory
// fakes at a fixed clock.
#ifndef SLUICE_SERVER_ACCESS_CORE_GRANT_GRANT_ACTIONS_FIXTURE_H_
#define SLUICE_SERVER_ACCESS_CORE_GRANT_GRANT_ACTIONS_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/access/core/fake_access_test.h"

namespace sluice::access {

class GrantActionsTest : public FakeAccessTest {
 protected:
  void SetUp() override {
    StorePolicy(R"({"id": "auto", "steps": [
        {"name": "a", "strategy": "auto", "approve_if": "true"}],
        "appeal": {"allow_permanent_access": true}})");
    pb::Resource r;
    r.set_id(kRes);
    r.set_type("table");
    r.set_urn("t1");
    StoreResource(r);
    provider_id_ = StoreProvider(R"({"type": "fake", "urn": "f", "allowed_account_types": ["user"],
        "resources": [{"type": "table", "policy": {"id": "auto", "version": 1}, "roles": [
          {"id": "viewer", "permissions": ["read"]},
          {"id": "editor", "permissions": ["read", "write"]}]}]})");
    StartServices();
    service_->set_journal(&journal_);
  }
  // An active grant of `role` on the table for `account`, owned by it.
  pb::Grant Granted(const std::string& account, const std::string& role = "viewer",
                    const std::string& duration = "", const std::string& resource = "") {
    pb::CreateAppealRequest req;
    auto* r = req.add_resources();
    r->set_id(resource.empty() ? kRes : resource);
    r->set_role(role);
    r->mutable_options()->set_duration(duration);
    auto created = service_->appeals().Create(req, account);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return {};
    EXPECT_EQ((*created)[0].status(), "approved");
    return (*created)[0].grant();
  }
  // The outbox events of `type` about grant `grant_id`.
  std::vector<AccessEvent> Events(const std::string& type, const std::string& grant_id) {
    std::vector<AccessEvent> out;
    for (const auto& [id, e] : appeals_.state.events) {
      if (e.type == type && e.variables.value("grant_id", "") == grant_id) out.push_back(e);
    }
    return out;
  }
  // The last audit row of `action`, or an empty entry.
  AuditEntry LastAudit(const std::string& action) {
    for (auto it = appeals_.state.audit.rbegin(); it != appeals_.state.audit.rend(); ++it) {
      if (it->action == action) return *it;
    }
    return {};
  }
  // A second provider ("f2") whose table resource kRes2 follows policy
  // "opts": duration_options 24h and 168h (no permanent access).
  void AddPolicyWithDurationOptions(const std::string& longest = "168h") {
    StorePolicy(absl::StrCat(R"({"id": "opts", "steps": [
        {"name": "a", "strategy": "auto", "approve_if": "true"}],
        "appeal": {"duration_options": [{"name": "1 day", "value": "24h"},
                                        {"name": "longest", "value": ")", longest, R"("}]}})"));
    pb::Resource r;
    r.set_id(kRes2);
    r.set_type("table");
    r.set_urn("t2");
    StoreResource(r, "f2", /*listed=*/false);
    StoreProvider(R"({"type": "fake", "urn": "f2", "allowed_account_types": ["user"],
        "resources": [{"type": "table", "policy": {"id": "opts", "version": 1}, "roles": [
          {"id": "viewer", "permissions": ["read"]}]}]})");
  }

  const std::string kRes = "00000000-0000-0000-0000-000000000001";
  const std::string kRes2 = "00000000-0000-0000-0000-000000000002";
  const Actor kAdmin{"admin@x.com", true};
  const Actor kEve{"eve@x.com", false};
  std::string provider_id_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_GRANT_GRANT_ACTIONS_FIXTURE_H_
