// In-memory fakes of the core's repositories and a scriptable provider
// plugin, for core unit tests.
#ifndef SLUICE_SERVER_ACCESS_CORE_FAKES_H_
#define SLUICE_SERVER_ACCESS_CORE_FAKES_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/access/core/provider_client.h"
#include "server/access/core/repositories.h"

namespace sluice::access::testing {

class FakePolicyRepository : public PolicyRepository {
 public:
  absl::Status Insert(const pb::Policy& p, const AuditEntry& a) override {
    auto key = std::make_pair(p.id(), p.version());
    if (policies.count(key)) return absl::AlreadyExistsError("dup");
    policies[key] = p;
    audit.push_back(a);
    return absl::OkStatus();
  }
  absl::StatusOr<pb::Policy> Get(const std::string& id, uint32_t version) override {
    const pb::Policy* found = nullptr;
    for (const auto& [k, p] : policies) {
      if (k.first == id && (version == 0 || k.second == version)) found = &p;
    }
    if (!found) return absl::NotFoundError("policy not found");
    return *found;
  }
  absl::StatusOr<std::vector<pb::Policy>> ListLatest() override {
    std::map<std::string, pb::Policy> latest;
    for (const auto& [k, p] : policies) latest[k.first] = p;
    std::vector<pb::Policy> out;
    for (auto& [k, p] : latest) out.push_back(p);
    return out;
  }
  std::map<std::pair<std::string, uint32_t>, pb::Policy> policies;
  std::vector<AuditEntry> audit;
};

class FakeProviderRepository : public ProviderRepository {
 public:
  absl::StatusOr<StoredProvider> Create(const StoredProvider& p,
                                        const std::vector<pb::Resource>& r,
                                        const AuditEntry& a) override {
    StoredProvider s = p;
    s.provider.set_id(absl::StrCat("id-", ++next_id));
    providers[s.provider.id()] = s;
    resources[s.provider.id()] = r;
    audit.push_back(a);
    return s;
  }
  absl::StatusOr<StoredProvider> Update(const StoredProvider& p,
                                        const std::vector<pb::Resource>& r,
                                        const AuditEntry& a) override {
    if (!providers.count(p.provider.id())) return absl::NotFoundError("provider not found");
    providers[p.provider.id()] = p;
    resources[p.provider.id()] = r;
    audit.push_back(a);
    return p;
  }
  absl::StatusOr<StoredProvider> Get(const std::string& id) override {
    if (!providers.count(id)) return absl::NotFoundError("provider not found");
    return providers[id];
  }
  absl::StatusOr<StoredProvider> GetByTypeUrn(const std::string& type,
                                              const std::string& urn) override {
    for (const auto& [id, p] : providers) {
      if (p.provider.type() == type && p.provider.urn() == urn) return p;
    }
    return absl::NotFoundError("provider not found");
  }
  absl::StatusOr<std::vector<StoredProvider>> List() override {
    std::vector<StoredProvider> out;
    for (const auto& [id, p] : providers) out.push_back(p);
    return out;
  }
  absl::Status Delete(const std::string& id, const AuditEntry& a) override {
    if (!providers.erase(id)) return absl::NotFoundError("provider not found");
    audit.push_back(a);
    return absl::OkStatus();
  }
  absl::Status SyncResources(const pb::Provider& p, const std::vector<pb::Resource>& r,
                             const AuditEntry& a) override {
    resources[p.id()] = r;
    audit.push_back(a);
    return absl::OkStatus();
  }
  int next_id = 0;
  std::map<std::string, StoredProvider> providers;
  std::map<std::string, std::vector<pb::Resource>> resources;
  std::vector<AuditEntry> audit;
};

// A plugin whose resources and failures the test sets.
class FakeProviderClient : public ProviderClient {
 public:
  std::string Type() const override { return "fake"; }
  absl::Status ValidateConfig(const pb::ProviderConfig&) const override { return validate; }
  absl::StatusOr<std::vector<pb::Resource>> GetResources(const pb::ProviderConfig&) override {
    ++fetches;
    if (!fetch_error.ok()) return fetch_error;
    return resources;
  }
  std::vector<std::string> GetAccountTypes() const override { return {"user", "serviceAccount"}; }
  absl::Status GrantAccess(const pb::ProviderConfig&, const AccessRequest& r) override {
    granted.push_back(r);
    return grant_error;
  }
  absl::Status RevokeAccess(const pb::ProviderConfig&, const AccessRequest& r) override {
    revoked.push_back(r);
    return revoke_error;
  }
  absl::Status validate = absl::OkStatus();
  absl::Status fetch_error = absl::OkStatus();
  absl::Status grant_error = absl::OkStatus();
  absl::Status revoke_error = absl::OkStatus();
  std::vector<pb::Resource> resources;
  std::vector<AccessRequest> granted, revoked;
  int fetches = 0;
};

}  // namespace sluice::access::testing

#endif  // SLUICE_SERVER_ACCESS_CORE_FAKES_H_
