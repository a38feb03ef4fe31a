// In-memory fakes of the core's repositories and a scriptable provider
// plugin, for core unit tests.
#ifndef SLUICE_SERVER_ACCESS_CORE_FAKES_H_
#define SLUICE_SERVER_ACCESS_CORE_FAKES_H_

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/core/json.h"
#include "server/access/core/provider_client.h"
#include "server/access/core/provider_journal.h"
#include "server/access/core/repositories.h"

namespace sluice::access::testing {

// The `page` of `all`; `total` (may be null) gets all.size().
template <typename T>
std::vector<T> Slice(const std::vector<T>& all, const Page& page, int64_t* total) {
  if (total != nullptr) *total = static_cast<int64_t>(all.size());
  std::vector<T> out;
  for (size_t i = page.offset; i < all.size() && out.size() < static_cast<size_t>(page.size); ++i) {
    out.push_back(all[i]);
  }
  return out;
}

class FakePolicyRepository : public PolicyRepository {
 public:
  absl::Status Insert(const pb::Policy& p, const AuditEntry& a) override {
    auto key = std::make_pair(p.id(), p.version());
    if (policies.count(key)) return absl::AlreadyExistsError("dup");
    policies[key] = p;
    inserted.push_back(key);
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
  // Every version in insertion order (the store's row created_at), then
  // any put into `policies` directly, by key.
  absl::StatusOr<std::vector<pb::Policy>> List(const Page& page, int64_t* total,
                                                const std::vector<std::string>&) override {
    std::vector<pb::Policy> all;
    std::set<std::pair<std::string, uint32_t>> seen;
    for (const auto& key : inserted) {
      if (policies.count(key) && seen.insert(key).second) all.push_back(policies.at(key));
    }
    for (const auto& [k, p] : policies) {
      if (!seen.count(k)) all.push_back(p);
    }
    return Slice(all, page, total);
  }
  std::map<std::pair<std::string, uint32_t>, pb::Policy> policies;
  std::vector<std::pair<std::string, uint32_t>> inserted;
  std::vector<AuditEntry> audit;
};

class FakeProviderRepository : public ProviderRepository {
 public:
  // The distinct types of the stored resources by provider type, sorted.
  absl::StatusOr<std::map<std::string, std::vector<std::string>>> ResourceTypes() override {
    std::map<std::string, std::set<std::string>> types;
    for (const auto& [id, list] : resources) {
      for (const auto& r : list) types[r.provider_type()].insert(r.type());
    }
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [t, set] : types) out[t] = {set.begin(), set.end()};
    return out;
  }
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
  absl::StatusOr<std::vector<StoredProvider>> ListPage(const Page& page, int64_t* total,
                                                       const ProviderFilter&) override {
    return Slice(*List(), page, total);
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
  absl::Status ValidateAccount(const pb::ProviderConfig&, absl::string_view,
                               absl::string_view account_id) override {
    validated_accounts.emplace_back(account_id);
    return account_error;
  }
  absl::Status GrantAccess(const pb::ProviderConfig&, const AccessRequest& r) override {
    granted.push_back(r);
    return grant_error;
  }
  absl::StatusOr<std::string> GrantAccessWithState(const pb::ProviderConfig& c,
                                                   const AccessRequest& r) override {
    if (auto st = GrantAccess(c, r); !st.ok()) return st;
    return grant_state;
  }
  bool UsesOtherGrants() const override { return uses_other_grants; }
  std::string NormalizeAccountId(absl::string_view, absl::string_view id) const override {
    return lower_case_accounts ? absl::AsciiStrToLower(id) : std::string(id);
  }
  absl::Status RevokeAccess(const pb::ProviderConfig&, const AccessRequest& r) override {
    if (!revoke_fail_account.empty() && r.account_id == revoke_fail_account) {
      return absl::UnavailableError("provider refused the revoke");
    }
    revoked.push_back(r);
    return revoke_error;
  }
  absl::StatusOr<std::vector<ProviderAccess>> ListAccess(
      const pb::ProviderConfig& config, const std::vector<pb::Resource>& rs) override {
    if (!lists_access) return ProviderClient::ListAccess(config, rs);
    return access;
  }
  bool lists_access = false;            // false: ListAccess is Unimplemented
  std::string grant_state;              // what GrantAccessWithState returns
  bool uses_other_grants = false;       // UsesOtherGrants
  bool lower_case_accounts = false;     // NormalizeAccountId lower-cases (as Google's plugins)
  std::vector<ProviderAccess> access;   // what ListAccess returns
  absl::Status validate = absl::OkStatus();
  absl::Status fetch_error = absl::OkStatus();
  absl::Status grant_error = absl::OkStatus();
  absl::Status revoke_error = absl::OkStatus();
  absl::Status account_error = absl::OkStatus();  // what ValidateAccount returns
  std::vector<std::string> validated_accounts;      // ValidateAccount's account_ids
  std::string revoke_fail_account;  // RevokeAccess fails for this account only
  std::vector<pb::Resource> resources;
  std::vector<AccessRequest> granted, revoked;
  int fetches = 0;
};


class FakeResourceRepository : public ResourceRepository {
 public:
  absl::StatusOr<std::vector<pb::Resource>> List(const ResourceFilter&, const Page& page,
                                                 int64_t* total) override {
    std::vector<pb::Resource> all;
    for (const auto& [id, r] : resources) all.push_back(r);
    return Slice(all, page, total);
  }
  absl::StatusOr<pb::Resource> Get(const std::string& id) override {
    if (!resources.count(id)) return absl::NotFoundError("resource not found");
    return resources[id];
  }
  absl::StatusOr<pb::Resource> Update(const std::string& id, const google::protobuf::Struct&,
                                      const google::protobuf::Map<std::string, std::string>*,
                                      const AuditEntry&) override {
    return Get(id);
  }
  absl::Status Delete(const std::string& id, const AuditEntry&) override {
    resources[id].set_is_deleted(true);
    return absl::OkStatus();
  }
  // AlreadyExists for the same (provider_type, provider_urn, type, urn).
  absl::StatusOr<pb::Resource> Create(const pb::Resource& r, const AuditEntry&) override {
    for (const auto& [id, o] : resources) {
      if (o.provider_type() == r.provider_type() && o.provider_urn() == r.provider_urn() &&
          o.type() == r.type() && o.urn() == r.urn()) {
        return absl::AlreadyExistsError("resource exists");
      }
    }
    pb::Resource stored = r;
    stored.set_id(absl::StrCat("00000000-0000-0000-0000-2", 10000000000 + resources.size()));
    resources[stored.id()] = stored;
    return stored;
  }
  std::map<std::string, pb::Resource> resources;
};

// Transactions copy the state and commit it only when fn returns OK, so a
// failure rolls back like the database would.
class FakeAppealRepository : public AppealRepository {
 public:
  struct State {
    std::map<std::string, pb::Appeal> appeals;
    std::map<std::string, pb::Grant> grants;
    std::vector<AuditEntry> audit;
    std::map<std::string, AccessEvent> events;  // the outbox, by id
    int next_id = 0;
  };
  absl::Status InTransaction(const std::function<absl::Status(AccessTx&)>& fn) override {
    if (before_transaction) before_transaction();  // e.g. a concurrent change
    absl::MutexLock lock(&mu_);
    State copy = state;
    Tx tx(&copy, this);
    absl::Status st = fn(tx);
    if (st.ok()) state = std::move(copy);
    return st;
  }
  absl::StatusOr<std::vector<pb::Appeal>> ListAppeals(const AppealFilter& f, int* total) override {
    std::vector<pb::Appeal> out;
    for (auto& [id, a] : state.appeals) {
      out.push_back(a);
      if (!f.with_approvals) out.back().clear_approvals();
    }
    *total = static_cast<int>(out.size());
    return out;
  }
  absl::StatusOr<std::vector<pb::Approval>> ListApprovals(const ApprovalFilter&, int* total) override {
    *total = 0;
    return std::vector<pb::Approval>{};
  }
  absl::StatusOr<std::vector<pb::Grant>> ListGrants(const GrantFilter&, int* total) override {
    std::vector<pb::Grant> out;
    for (auto& [id, g] : state.grants) out.push_back(g);
    *total = static_cast<int>(out.size());
    return out;
  }
  absl::StatusOr<pb::Grant> GetGrant(const std::string& id) override {
    if (!state.grants.count(id)) return absl::NotFoundError("grant not found");
    pb::Grant g = state.grants[id];
    if (resources) *g.mutable_resource() = resources->resources[g.resource_id()];  // as the join
    return g;
  }
  absl::StatusOr<bool> IsResourceApprover(const std::string& resource_id,
                                          const std::string& identity) override {
    for (const auto& [id, a] : state.appeals) {
      if (a.resource_id() != resource_id) continue;
      for (const auto& p : a.approvals()) {
        for (const auto& e : p.approvers()) {
          if (e == identity) return true;
        }
      }
    }
    return false;
  }
  absl::StatusOr<std::vector<pb::AppealComment>> ListComments(const std::string& appeal_id,
                                                              bool newest_first) override {
    std::vector<pb::AppealComment> out;
    for (const auto& c : comments) {
      if (c.appeal_id() == appeal_id) out.push_back(c);
    }
    if (newest_first) std::reverse(out.begin(), out.end());
    return out;
  }
  // state.audit filtered as PostgresAppealRepository does, newest first
  // (no timestamps: entries are in insertion order).
  absl::StatusOr<std::vector<pb::AuditLog>> ListAppealAudit(
      const std::string& appeal_id, const std::vector<std::string>& actions) override {
    std::vector<pb::AuditLog> out;
    for (size_t i = state.audit.size(); i-- > 0;) {
      const AuditEntry& e = state.audit[i];
      if (std::find(actions.begin(), actions.end(), e.action) == actions.end()) continue;
      std::string id = e.data.contains("appeal_id") ? e.data.value("appeal_id", "")
                                                     : e.data.value("id", "");
      if (id != appeal_id) continue;
      pb::AuditLog log;
      log.set_id(static_cast<int64_t>(i) + 1);
      log.set_action(e.action);
      log.set_actor(e.actor);
      (void)JsonStringToProto(e.data.dump(), log.mutable_data());
      out.push_back(std::move(log));
    }
    return out;
  }
  absl::Status InsertComment(pb::AppealComment* comment, const AuditEntry& audit) override {
    comment->set_id(absl::StrCat("comment-", comments.size() + 1));
    comments.push_back(*comment);
    state.audit.push_back(audit);
    return absl::OkStatus();
  }
  std::vector<pb::AppealComment> comments;
  // The distinct roles of `owner`'s active grants, sorted.
  absl::StatusOr<std::vector<std::string>> ListUserRoles(const std::string& owner) override {
    std::set<std::string> roles;
    for (const auto& [id, g] : state.grants) {
      if (g.owner() == owner && g.status() == "active") roles.insert(g.role());
    }
    return std::vector<std::string>(roles.begin(), roles.end());
  }
  // Records the query and answers `summary_groups`.
  absl::StatusOr<std::vector<std::pair<std::vector<std::string>, int>>> SummarizeApprovals(
      const ApprovalSummaryQuery& query) override {
    summary_queries.push_back(query);
    return summary_groups;
  }
  std::vector<ApprovalSummaryQuery> summary_queries;
  std::vector<std::pair<std::vector<std::string>, int>> summary_groups;
  State state;
  // Runs at the start of every InTransaction, outside the lock (tests).
  std::function<void()> before_transaction;
  absl::Status insert_grant_error = absl::OkStatus();
  // Expands grant.resource in the Lock* results, as the store's join does.
  FakeResourceRepository* resources = nullptr;

 private:
  class Tx : public AccessTx {
   public:
    Tx(State* s, FakeAppealRepository* repo) : s_(s), repo_(repo) {}
    absl::StatusOr<pb::Appeal> GetAppeal(const std::string& id, bool) override {
      if (!s_->appeals.count(id)) return absl::NotFoundError("appeal not found");
      pb::Appeal a = s_->appeals[id];
      for (auto& [gid, g] : s_->grants) {
        if (g.appeal_id() == id) *a.mutable_grant() = g;
      }
      return a;
    }
    absl::Status InsertAppeal(pb::Appeal* a) override {
      for (auto& [id, o] : s_->appeals) {
        if (o.status() == "pending" && o.account_id() == a->account_id() &&
            o.resource_id() == a->resource_id() && o.role() == a->role()) {
          return absl::AlreadyExistsError("pending");
        }
      }
      a->set_id(absl::StrCat("00000000-0000-0000-0000-", 100000000000 + ++s_->next_id));
      for (auto& ap : *a->mutable_approvals()) ap.set_id(absl::StrCat("ap-", ++s_->next_id));
      pb::Appeal stored = *a;
      stored.clear_grant();
      s_->appeals[a->id()] = stored;
      return absl::OkStatus();
    }
    absl::Status UpdateAppeal(const pb::Appeal& a) override {
      pb::Appeal stored = a;
      stored.clear_grant();
      s_->appeals[a.id()] = stored;
      return absl::OkStatus();
    }
    // Stale approvals are dropped (the store keeps them, unlisted).
    absl::Status ReplaceAppeal(pb::Appeal* a) override {
      for (auto& [id, o] : s_->appeals) {
        if (id != a->id() && o.status() == "pending" && o.account_id() == a->account_id() &&
            o.resource_id() == a->resource_id() && o.role() == a->role()) {
          return absl::AlreadyExistsError("pending");
        }
      }
      for (auto& ap : *a->mutable_approvals()) ap.set_id(absl::StrCat("ap-", ++s_->next_id));
      return UpdateAppeal(*a);
    }
    absl::Status AppendApprovals(pb::Appeal* a, int first) override {
      for (int i = first; i < a->approvals_size(); ++i) {
        a->mutable_approvals(i)->set_id(absl::StrCat("ap-", ++s_->next_id));
      }
      return UpdateAppeal(*a);
    }
    absl::Status UpdateApprovalDetails(const std::string& approval_id,
                                       const google::protobuf::Struct& details) override {
      for (auto& [id, a] : s_->appeals) {
        for (auto& ap : *a.mutable_approvals()) {
          if (ap.id() == approval_id) *ap.mutable_details() = details;
        }
      }
      return absl::OkStatus();
    }
    absl::StatusOr<std::optional<pb::Grant>> FindActiveGrant(const std::string& account,
                                                             const std::string& resource,
                                                             const std::string& role, bool) override {
      for (auto& [id, g] : s_->grants) {
        if (g.status() == "active" && g.account_id() == account && g.resource_id() == resource &&
            g.role() == role) {
          return std::optional<pb::Grant>(g);
        }
      }
      return std::optional<pb::Grant>();
    }
    absl::Status InsertGrant(pb::Grant* g) override {
      if (!repo_->insert_grant_error.ok()) return repo_->insert_grant_error;
      g->set_id(absl::StrCat("00000000-0000-0000-0001-", 100000000000 + ++s_->next_id));
      s_->grants[g->id()] = *g;
      return absl::OkStatus();
    }
    absl::Status UpdateGrant(const pb::Grant& g) override {
      s_->grants[g.id()] = g;
      return absl::OkStatus();
    }
    absl::StatusOr<pb::Grant> GetGrant(const std::string& id, bool) override {
      if (!s_->grants.count(id)) return absl::NotFoundError("grant not found");
      pb::Grant g = s_->grants[id];
      if (repo_->resources) *g.mutable_resource() = repo_->resources->resources[g.resource_id()];
      return g;
    }
    absl::StatusOr<std::vector<pb::Grant>> LockExpiredGrants(absl::Time now, int) override {
      std::vector<pb::Grant> out;
      for (auto& [id, g] : s_->grants) {
        if (g.status() == "active" && g.has_expiration_date() &&
            absl::FromUnixSeconds(g.expiration_date().seconds()) < now) {
          out.push_back(g);
          if (repo_->resources) *out.back().mutable_resource() = repo_->resources->resources[g.resource_id()];
        }
      }
      return out;
    }
    absl::StatusOr<std::vector<pb::Grant>> FindActiveGrants(const GrantSelector& sel,
                                                            int limit) override {
      std::vector<pb::Grant> out;
      for (auto& [id, g] : s_->grants) {
        if (g.status() != "active") continue;
        if (!sel.account_ids.empty() &&
            std::find(sel.account_ids.begin(), sel.account_ids.end(), g.account_id()) ==
                sel.account_ids.end()) {
          continue;
        }
        pb::Resource r;
        if (repo_->resources) r = repo_->resources->resources[g.resource_id()];
        if (!Matches(sel.provider_types, r.provider_type()) ||
            !Matches(sel.provider_urns, r.provider_urn()) ||
            !Matches(sel.resource_types, r.type()) || !Matches(sel.resource_urns, r.urn())) {
          continue;
        }
        if (static_cast<int>(out.size()) >= limit) break;
        out.push_back(g);
        if (repo_->resources) *out.back().mutable_resource() = r;
      }
      return out;
    }
    absl::Status Audit(const AuditEntry& e) override {
      s_->audit.push_back(e);
      return absl::OkStatus();
    }
    absl::Status InsertEvents(const std::vector<AccessEvent>& events) override {
      for (const AccessEvent& e : events) s_->events.emplace(e.id, e);
      return absl::OkStatus();
    }

   private:
    static bool Matches(const std::vector<std::string>& allowed, const std::string& v) {
      return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
    }
    State* s_;
    FakeAppealRepository* repo_;
  };
  absl::Mutex mu_;
};

// In-memory journal: entries by id, with their status ("in_flight" or the
// outcome). `begin_error` makes Begin fail.
class FakeProviderJournal : public ProviderJournal {
 public:
  struct Entry {
    ProviderOperation op;
    std::string status = "in_flight";
  };
  absl::StatusOr<std::string> Begin(const ProviderOperation& op) override {
    if (!begin_error.ok()) return begin_error;
    Entry e{op};
    e.op.id = absl::StrCat("op-", ++next_id);
    entries[e.op.id] = e;
    return e.op.id;
  }
  absl::Status Finish(const std::string& id, const std::string& outcome) override {
    auto it = entries.find(id);
    if (it != entries.end() && it->second.status == "in_flight") it->second.status = outcome;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<ProviderOperation>> InFlight(absl::Time before, int limit) override {
    std::vector<ProviderOperation> out;
    for (const auto& [id, e] : entries) {
      if (e.status == "in_flight" && e.op.started_at <= before &&
          static_cast<int>(out.size()) < limit) {
        out.push_back(e.op);
      }
    }
    return out;
  }
  // Statuses of every entry, in creation order of ids.
  std::vector<std::string> Statuses() const {
    std::vector<std::string> out;
    for (const auto& [id, e] : entries) out.push_back(e.op.op + ":" + e.status);
    return out;
  }
  std::map<std::string, Entry> entries;
  absl::Status begin_error = absl::OkStatus();
  int next_id = 0;
};

}  // namespace sluice::access::testing

#endif  // SLUICE_SERVER_ACCESS_CORE_FAKES_H_
