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
#include "server/access/core/access_services.h"
#include "server/access/core/fakes.h"
#include "server/access/core/json.h"

namespace sluice::access {

class GrantActionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pb::Policy p;
    ASSERT_TRUE(JsonStringToProto(R"({"id": "auto", "steps": [
        {"name": "a", "strategy": "auto", "approve_if": "true"}],
        "appeal": {"allow_permanent_access": true}})", &p).ok());
    ASSERT_TRUE(policies_.Create(p, "admin@x.com").ok());
    appeals_.resources = &resources_;
    auto client = std::make_unique<testing::FakeProviderClient>();
    client_ = client.get();
    std::vector<std::unique_ptr<ProviderClient>> clients;
    clients.push_back(std::move(client));
    registry_ = std::make_unique<ProviderRegistry>(std::move(clients));
    pb::Resource r;
    r.set_id(kRes);
    r.set_type("table");
    r.set_urn("t1");
    client_->resources.push_back(r);
    r.set_provider_type("fake");
    r.set_provider_urn("f");
    resources_.resources[r.id()] = r;
    pb::ProviderConfig c;
    ASSERT_TRUE(JsonStringToProto(R"({"type": "fake", "urn": "f", "allowed_account_types": ["user"],
        "resources": [{"type": "table", "policy": {"id": "auto", "version": 1}, "roles": [
          {"id": "viewer", "permissions": ["read"]},
          {"id": "editor", "permissions": ["read", "write"]}]}]})", &c).ok());
    providers_ = std::make_unique<ProviderService>(&provider_repo_, &policy_repo_, registry_.get(),
                                                   crypter_.get());
    auto created = providers_->Create(c, "admin@x.com");
    ASSERT_TRUE(created.ok()) << created.status();
    provider_id_ = created->id();
    service_ = std::make_unique<AccessServices>(&appeals_, &resources_, &policies_,
                                               providers_.get(), registry_.get(), nullptr,
                                               [this] { return now_; });
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
    pb::Policy p;
    ASSERT_TRUE(JsonStringToProto(absl::StrCat(R"({"id": "opts", "steps": [
        {"name": "a", "strategy": "auto", "approve_if": "true"}],
        "appeal": {"duration_options": [{"name": "1 day", "value": "24h"},
                                        {"name": "longest", "value": ")", longest, R"("}]}})"),
                                  &p).ok());
    ASSERT_TRUE(policies_.Create(p, "admin@x.com").ok());
    pb::Resource r;
    r.set_id(kRes2);
    r.set_type("table");
    r.set_urn("t2");
    r.set_provider_type("fake");
    r.set_provider_urn("f2");
    resources_.resources[r.id()] = r;
    pb::ProviderConfig c;
    ASSERT_TRUE(JsonStringToProto(R"({"type": "fake", "urn": "f2", "allowed_account_types": ["user"],
        "resources": [{"type": "table", "policy": {"id": "opts", "version": 1}, "roles": [
          {"id": "viewer", "permissions": ["read"]}]}]})", &c).ok());
    auto created = providers_->Create(c, "admin@x.com");
    ASSERT_TRUE(created.ok()) << created.status();
  }

  const std::string kRes = "00000000-0000-0000-0000-000000000001";
  const std::string kRes2 = "00000000-0000-0000-0000-000000000002";
  const Actor kAdmin{"admin@x.com", true};
  const Actor kEve{"eve@x.com", false};
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
  std::string provider_id_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_GRANT_GRANT_ACTIONS_FIXTURE_H_
