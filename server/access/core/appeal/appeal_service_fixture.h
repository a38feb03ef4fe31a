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
#include "server/access/core/fake_access_test.h"

namespace sluice::access {

class AppealServiceTest : public FakeAccessTest {
 protected:
  void SetUp() override {
    StorePolicy(R"({"id": "pol", "steps": [
        {"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]}],
        "appeal": {"allow_active_access_extension_in": "1h", "allow_permanent_access": true}})");
    StorePolicy(R"({"id": "auto", "steps": [
        {"name": "a", "strategy": "auto", "approve_if": "true"}],
        "appeal": {"allow_active_access_extension_in": "1h"}})");
    for (const char* type : {"manual", "auto"}) {
      pb::Resource r;
      r.set_id(std::string("00000000-0000-0000-0000-00000000000") + (type[0] == 'm' ? "1" : "2"));
      r.set_type(type);
      r.set_urn(std::string("urn-") + type);
      StoreResource(r);
    }
    StoreProvider(R"({"type": "fake", "urn": "f", "allowed_account_types": ["user"],
        "resources": [
          {"type": "manual", "policy": {"id": "pol", "version": 1}, "roles": [{"id": "viewer", "permissions": ["read"]}]},
          {"type": "auto", "policy": {"id": "auto", "version": 1}, "roles": [{"id": "viewer"}]}]})");
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

  // The services at the fixed clock, journaling; built on first use, so a
  // test can change the fakes first.
  AccessServices& Service() {
    if (!service_) {
      StartServices();
      service_->set_journal(&journal_);
    }
    return *service_;
  }

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
