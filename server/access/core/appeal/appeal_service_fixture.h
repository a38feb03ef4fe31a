// The fixture of the appeal, approval and reconcile service tests: policy
// "pol" (one manual step, approver o@x.com) and "auto", a fake provider "f"
// with a "manual" and an "auto" resource, and the access services
// (AccessServices) on in-memory fakes at a fixed clock, journaling.
#ifndef SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_FIXTURE_H_
#define SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/access/core/access_services.h"
#include "server/access/core/fakes.h"
#include "server/access/core/json.h"

namespace sluice::access {

class AppealServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pb::Policy p;
    ASSERT_TRUE(JsonStringToProto(R"({"id": "pol", "steps": [
        {"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]}],
        "appeal": {"allow_active_access_extension_in": "1h", "allow_permanent_access": true}})",
                                  &p).ok());
    ASSERT_TRUE(policies_.Create(p, "admin@x.com").ok());
    pb::Policy auto_p;
    ASSERT_TRUE(JsonStringToProto(R"({"id": "auto", "steps": [
        {"name": "a", "strategy": "auto", "approve_if": "true"}],
        "appeal": {"allow_active_access_extension_in": "1h"}})", &auto_p).ok());
    ASSERT_TRUE(policies_.Create(auto_p, "admin@x.com").ok());
    appeals_.resources = &resources_;
    auto client = std::make_unique<testing::FakeProviderClient>();
    client_ = client.get();
    std::vector<std::unique_ptr<ProviderClient>> clients;
    clients.push_back(std::move(client));
    registry_ = std::make_unique<ProviderRegistry>(std::move(clients));
    for (const char* type : {"manual", "auto"}) {
      pb::Resource r;
      r.set_id(std::string("00000000-0000-0000-0000-00000000000") + (type[0] == 'm' ? "1" : "2"));
      r.set_type(type);
      r.set_urn(std::string("urn-") + type);
      client_->resources.push_back(r);
      resources_.resources[r.id()] = r;
      resources_.resources[r.id()].set_provider_type("fake");
      resources_.resources[r.id()].set_provider_urn("f");
    }
    pb::ProviderConfig c;
    ASSERT_TRUE(JsonStringToProto(R"({"type": "fake", "urn": "f", "allowed_account_types": ["user"],
        "resources": [
          {"type": "manual", "policy": {"id": "pol", "version": 1}, "roles": [{"id": "viewer", "permissions": ["read"]}]},
          {"type": "auto", "policy": {"id": "auto", "version": 1}, "roles": [{"id": "viewer"}]}]})", &c).ok());
    providers_ = std::make_unique<ProviderService>(&provider_repo_, &policy_repo_, registry_.get(),
                                                   crypter_.get());
    auto created = providers_->Create(c, "admin@x.com");
    ASSERT_TRUE(created.ok()) << created.status();
  }
  pb::CreateAppealRequest Request(const std::string& resource_id, const std::string& duration = "") {
    pb::CreateAppealRequest req;
    auto* r = req.add_resources();
    r->set_id(resource_id);
    r->set_role("viewer");
    r->mutable_options()->set_duration(duration);
    return req;
  }
  const std::string kManual = "00000000-0000-0000-0000-000000000001";
  const std::string kAuto = "00000000-0000-0000-0000-000000000002";
  absl::Time now_ = absl::FromUnixSeconds(1800000000);
  testing::FakePolicyRepository policy_repo_;
  testing::FakeProviderRepository provider_repo_;
  testing::FakeResourceRepository resources_;
  testing::FakeAppealRepository appeals_;
  testing::FakeProviderClient* client_ = nullptr;
  std::unique_ptr<ProviderRegistry> registry_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  PolicyService policies_{&policy_repo_, crypter_.get()};
  std::unique_ptr<ProviderService> providers_;
  std::unique_ptr<AccessServices> service_;

  AccessServices& Service() {
    if (!service_) {
      service_ = std::make_unique<AccessServices>(&appeals_, &resources_, &policies_, providers_.get(),
                                                 registry_.get(), nullptr, [this] { return now_; });
      service_->set_journal(&journal_);
    }
    return *service_;
  }
  testing::FakeProviderJournal journal_;

  // Replaces policy "pol" (the manual resource's) with `json` as a new
  // version and points the provider config at it.
  void SetManualPolicy(const std::string& json) {
    pb::Policy p;
    ASSERT_TRUE(JsonStringToProto(json, &p).ok()) << json;
    auto updated = policies_.Update("pol", p, "admin@x.com");
    ASSERT_TRUE(updated.ok()) << updated.status();
    pb::ProviderConfig c;
    ASSERT_TRUE(JsonStringToProto(absl::StrCat(R"({"resources": [
        {"type": "manual", "policy": {"id": "pol", "version": )", updated->version(), R"(},
         "roles": [{"id": "viewer"}]},
        {"type": "auto", "policy": {"id": "auto", "version": 1}, "roles": [{"id": "viewer"}]}]})"),
                                  &c).ok());
    int64_t total = 0;
    auto provider = providers_->List(Page{}, &total);
    ASSERT_TRUE(provider.ok() && !provider->empty());
    ASSERT_TRUE(providers_->Update((*provider)[0].id(), c, "admin@x.com").ok());
  }
  // The stored appeals for `resource_id`.
  std::vector<pb::Appeal> AppealsOn(const std::string& resource_id) {
    std::vector<pb::Appeal> out;
    for (const auto& [id, a] : appeals_.state.appeals) {
      if (a.resource_id() == resource_id) out.push_back(a);
    }
    return out;
  }
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_FIXTURE_H_
