// The grant lifecycle beyond the appeal routes (Guardian's grant API): revoke
// by grant id, bulk revoke by filters, restore, and import of
// access made outside Sluice.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "server/access/core/grant/grant_service.h"
#include "server/access/core/fault.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

AccessRequest RequestOf(const pb::Grant& g) {
  return AccessRequest{g.account_id(), g.account_type(), g.resource(), g.role(),
                       std::vector<std::string>(g.permissions().begin(), g.permissions().end())};
}

// Guardian's PermissionsKey: the sorted permissions joined with ";".
std::string PermissionsKey(std::vector<std::string> permissions) {
  std::sort(permissions.begin(), permissions.end());
  return absl::StrJoin(permissions, ";");
}

// (resource id, "<account type>:<account id>", permissions key) of a grant.
using AccessKey = std::tuple<std::string, std::string, std::string>;

// The account id as `client` stores it (NormalizeAccountId), so that a grant
// stored before normalization matches what the provider lists (review F-H2).
AccessKey KeyOf(const pb::Grant& g, const ProviderClient& client) {
  return {g.resource_id(),
          absl::StrCat(g.account_type(), ":",
                       client.NormalizeAccountId(g.account_type(), g.account_id())),
          PermissionsKey({g.permissions().begin(), g.permissions().end()})};
}

bool Selected(const std::vector<std::string>& allowed, const std::string& value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// Guardian's reduceGrantsByProviderRole: the roles of `rc` (most permissions
// first) whose permissions the account holds become one grant each, using
// up those permissions; each permission left over becomes a grant whose
// role is the permission itself.
std::vector<pb::Grant> ReduceByRole(const pb::ResourceConfig& rc, std::set<std::string> held,
                                    const pb::Grant& base) {
  std::vector<const pb::Role*> roles;
  for (const auto& r : rc.roles()) roles.push_back(&r);
  std::stable_sort(roles.begin(), roles.end(), [](const pb::Role* a, const pb::Role* b) {
    return a->permissions_size() > b->permissions_size();
  });
  std::vector<pb::Grant> out;
  for (const pb::Role* role : roles) {
    std::vector<std::string> perms;
    for (const auto& p : role->permissions()) perms.push_back(PermissionString(p));
    if (perms.empty() || !std::all_of(perms.begin(), perms.end(),
                                      [&](const std::string& p) { return held.count(p) > 0; })) {
      continue;
    }
    pb::Grant g = base;
    g.set_role(role->id());
    for (const auto& p : perms) {
      g.add_permissions(p);
      held.erase(p);
    }
    out.push_back(std::move(g));
  }
  for (const auto& p : held) {
    pb::Grant g = base;
    g.set_role(p);
    g.add_permissions(p);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

absl::StatusOr<pb::Grant> GrantService::GrantForOwner(const std::string& id, const Actor& actor,
                                                      const char* what) {
  if (!IsUuid(id)) return absl::InvalidArgumentError(absl::StrCat("id: \"", id, "\" is not a UUID"));
  auto grant = appeals_->GetGrant(id);
  if (!grant.ok()) return grant.status();
  if (!actor.admin && (grant->owner().empty() || grant->owner() != actor.identity)) {
    return absl::PermissionDeniedError(absl::StrCat(
        actor.identity, " may not ", what, " grant ", id, ": only admins and its owner (",
        grant->owner().empty() ? "none" : grant->owner(), ") may"));
  }
  return grant;
}

absl::StatusOr<pb::Grant> GrantService::RevokeGrant(const std::string& id, const Actor& actor,
                                                    const std::string& reason,
                                                    RevokeOptions opts) {
  // Leaving access in the provider while the record says revoked is an
  // admin's call (e.g. the access is already gone there).
  if (opts.skip_revoke_in_provider && !actor.admin) {
    return absl::PermissionDeniedError(absl::StrCat(
        "skip_revoke_in_provider: only an access admin may revoke a grant without revoking it "
        "in the provider; ", actor.identity, " is not one"));
  }
  auto current = GrantForOwner(id, actor, "revoke");
  if (!current.ok()) return current.status();
  if (current->status() != "active") {
    return absl::FailedPreconditionError(
        absl::StrCat("grant ", id, " is ", current->status(), ", not active"));
  }
  auto configs = providers_->PlainConfigs();
  if (!configs.ok()) return configs.status();
  absl::Status st =
      applier_->RevokeOne(*current, *configs, actor.identity, reason, "grant.revoke", opts);
  if (!st.ok()) return st;
  return appeals_->GetGrant(id);
}

absl::StatusOr<RevokeManyResult> GrantService::RevokeGrants(const GrantSelector& s,
                                                            const std::string& actor,
                                                            const std::string& reason) {
  if (s.account_ids.empty() && s.provider_types.empty() && s.provider_urns.empty() &&
      s.resource_types.empty() && s.resource_urns.empty()) {
    return absl::InvalidArgumentError(
        "account_ids, provider_types, provider_urns, resource_types, resource_urns: at least one "
        "filter is required for bulk revoke");
  }
  for (const auto* list : {&s.account_ids, &s.provider_types, &s.provider_urns,
                           &s.resource_types, &s.resource_urns}) {
    if (list->size() > 1000) return absl::InvalidArgumentError("filters: at most 1000 values each");
  }
  return RevokeSelected(s, actor, reason);
}

absl::StatusOr<ExpirationCap> GrantService::RestoreCapOf(
    const pb::Grant& grant, const pb::ProviderConfig& config) {
  ExpirationCap cap{limits_.max_grant_duration, "access.max_grant_duration"};
  const pb::ResourceConfig* rc = nullptr;
  for (const auto& r : config.resources()) {
    if (r.type() == grant.resource().type()) rc = &r;
  }
  if (rc == nullptr || rc->policy().id().empty()) return cap;
  auto policy = policies_->Get(rc->policy().id(), rc->policy().version());
  if (absl::IsNotFound(policy.status())) return cap;
  if (!policy.ok()) return policy.status();
  // Both caps hold (issue 26): the policy's longest duration_options and
  // access.max_grant_duration, whichever is shorter. A restore skips the
  // approval that a long duration option would otherwise have needed.
  absl::Duration longest = absl::ZeroDuration();
  for (const auto& o : policy->appeal().duration_options()) {
    auto d = ParseDurationField("duration_options", o.value());
    if (d.ok() && *d > longest) longest = *d;
  }
  if (longest > absl::ZeroDuration() && longest < cap.max) {
    cap = {longest, absl::StrCat("the longest of policy ", policy->id(), " version ",
                                 policy->version(), "'s duration_options")};
  }
  return cap;
}

namespace {

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_sec, t, absl::UTCTimeZone());
}

// True when `g` has an expiration date that has passed at `now`.
bool Expired(const pb::Grant& g, absl::Time now) {
  return !g.is_permanent() && g.has_expiration_date() && FromTimestamp(g.expiration_date()) <= now;
}

// The restore rules (security review F-H1) that depend on the grant's
// state, checked before the provider call and again on the locked row.
// Guardian's Grant.Restore refuses an expired grant and takes no new
// expiration; Sluice lets an access admin restore one with a new date
// (`cap` then bounds it).
absl::Status CheckRestore(const pb::Grant& g, const Actor& actor,
                          const std::optional<absl::Time>& expiration, absl::Time now,
                          const std::optional<ExpirationCap>& cap) {
  if (g.status() == "active") {
    return absl::FailedPreconditionError(absl::StrCat("grant ", g.id(), " is already active"));
  }
  if (g.resource().is_deleted()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "grant ", g.id(), ": its resource ", g.resource_id(), " is deleted; it cannot be restored"));
  }
  if (!actor.admin) {
    if (expiration.has_value()) {
      return absl::PermissionDeniedError(absl::StrCat(
          "expiration_date: only an access admin may give a restored grant a new expiration "
          "date; ", actor.identity, " may only undo their own revoke, keeping the grant's own "
          "expiration_date"));
    }
    if (g.revoked_by() != actor.identity) {
      return absl::PermissionDeniedError(absl::StrCat(
          actor.identity, " may not restore grant ", g.id(), ": it was revoked by ",
          g.revoked_by().empty() ? "nobody recorded" : g.revoked_by(),
          "; an owner may only undo their own revoke, and only an access admin may restore a "
          "grant revoked by an admin, another caller or the expiry job (system)"));
    }
    if (Expired(g, now)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "grant ", g.id(), " expired at ", Rfc3339(FromTimestamp(g.expiration_date())),
          "; an expired grant is not restored (appeal again, or ask an access admin)"));
    }
    return absl::OkStatus();
  }
  if (expiration.has_value()) {
    if (*expiration <= now) return absl::InvalidArgumentError("expiration_date: must be in the future");
    if (cap.has_value() && *expiration > now + cap->max) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expiration_date: ", Rfc3339(*expiration), " is beyond the cap for this grant, ",
          absl::FormatDuration(cap->max), " from now (", cap->source, "): at most ",
          Rfc3339(now + cap->max)));
    }
    return absl::OkStatus();
  }
  if (Expired(g, now)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expiration_date: required, in the future: grant ", g.id(), " expired at ",
        Rfc3339(FromTimestamp(g.expiration_date()))));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<pb::Grant> GrantService::RestoreGrant(const std::string& id, const Actor& actor,
                                                     const std::string& reason,
                                                     std::optional<absl::Time> expiration) {
  if (reason.empty()) return absl::InvalidArgumentError("reason: required");
  auto current = GrantForOwner(id, actor, "restore");
  if (!current.ok()) return current.status();
  absl::Time now = applier_->Now();
  if (auto st = CheckRestore(*current, actor, expiration, now, std::nullopt); !st.ok()) return st;
  auto config = providers_->GetPlainConfig(current->resource().provider_type(),
                                           current->resource().provider_urn());
  if (!config.ok()) return config.status();
  std::optional<ExpirationCap> cap;
  if (expiration.has_value()) {
    auto c = RestoreCapOf(*current, *config);
    if (!c.ok()) return c.status();
    cap = *c;
    if (auto st = CheckRestore(*current, actor, expiration, now, cap); !st.ok()) return st;
  }
  auto client = registry_->Find(config->type());
  if (!client.ok()) return client.status();
  absl::Status st =
      applier_->RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    if (auto l = tx.LockAccess(current->account_id(), current->resource_id(), current->role());
        !l.ok()) {
      return l;
    }
    auto g = tx.GetGrant(id, /*for_update=*/true);
    if (!g.ok()) return g.status();
    // The row may have changed since it was read above (another revoke or
    // restore): the rules hold for the locked row (with its resource).
    if (auto s = CheckRestore(*g, actor, expiration, now, cap); !s.ok()) return s;
    if (!actor.admin && g->owner() != actor.identity) {
      return absl::PermissionDeniedError(absl::StrCat(actor.identity, " no longer owns grant ", id));
    }
    auto held = tx.FindActiveGrant(g->account_id(), g->resource_id(), g->role(), true);
    if (!held.ok()) return held.status();
    if (held->has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the access of grant ", id, " is held again by active grant ",
                       (*held)->id(), "; nothing to restore"));
    }
    AccessRequest req = RequestOf(*g);
    if (auto s = GrantApplier::AddOtherGrants(tx, **client, *config, g->id(), &req); !s.ok()) {
      return s;
    }
    auto op_id = applier_->JournalBegin({"", "grant", req.account_id, req.account_type,
                                         g->resource_id(), req.role, req.permissions,
                                         config->type(), config->urn(), g->appeal_id(), g->id(),
                                         absl::Time()});
    if (!op_id.ok()) return op_id.status();
    auto provider_state = (*client)->GrantAccessWithState(*config, req);
    if (!provider_state.ok()) {
      const absl::Status& s = provider_state.status();
      applier_->JournalFinish(*op_id, kOpFailed);
      return absl::Status(s.code(), absl::StrCat("granting access in provider ", config->urn(),
                                                 " failed: ", s.message()));
    }
    req.provider_state = *provider_state;
    g->set_provider_state(*provider_state);
    FaultPoint("crash_after_provider_grant");
    ProviderClient* plugin = *client;
    pb::ProviderConfig cfg = *config;
    ops->push_back({*op_id, [plugin, cfg, req] { return plugin->RevokeAccess(cfg, req); }});
    std::string previous_expiration =
        g->is_permanent() || !g->has_expiration_date()
            ? "permanent"
            : Rfc3339(FromTimestamp(g->expiration_date()));
    g->set_status("active");
    g->set_status_in_provider("active");
    g->set_restored_by(actor.identity);
    *g->mutable_restored_at() = ToTimestamp(now);
    g->set_restore_reason(reason);
    if (expiration.has_value()) {  // an admin's new date, within the cap
      g->set_is_permanent(false);
      *g->mutable_expiration_date() = ToTimestamp(*expiration);
      g->set_expiration_date_reason(absl::StrCat("restored by ", actor.identity));
    }
    *g->mutable_updated_at() = ToTimestamp(now);
    if (auto s = tx.UpdateGrant(*g); !s.ok()) return s;
    // The holder and the owner hear of access that came back without an
    // approval; the audit row keeps who, why, which revoke was undone and
    // until when.
    if (auto s = applier_->EmitEvents(tx, {RestoredEvent(*g)}); !s.ok()) return s;
    return tx.Audit({"grant.restore", actor.identity,
                     {{"grant_id", id},
                      {"reason", reason},
                      {"revoked_by", g->revoked_by()},
                      {"previous_expiration_date", previous_expiration},
                      {"expiration_date", g->is_permanent() || !g->has_expiration_date()
                                              ? "permanent"
                                              : Rfc3339(FromTimestamp(g->expiration_date()))}}});
  });
  if (!st.ok()) return st;
  applier_->EventsCommitted();
  return appeals_->GetGrant(id);
}

absl::StatusOr<ImportResult> GrantService::ImportGrants(const ImportCriteria& c, bool apply,
                                                        const std::string& actor) {
  if (c.provider_id.empty()) return absl::InvalidArgumentError("id: required (the provider's id)");
  auto provider = providers_->Get(c.provider_id);
  if (!provider.ok()) return provider.status();
  auto config = providers_->GetPlainConfig(provider->type(), provider->urn());
  if (!config.ok()) return config.status();
  auto client = registry_->Find(config->type());
  if (!client.ok()) return client.status();
  ResourceFilter rf;
  rf.provider_type = provider->type();
  rf.provider_urn = provider->urn();
  auto listed = resources_->List(rf, Page{1 << 30, 0}, nullptr);
  if (!listed.ok()) return listed.status();
  std::vector<pb::Resource> resources;
  for (auto& r : *listed) {
    bool keep = !c.resource_ids.empty()
                    ? Selected(c.resource_ids, r.id())
                    : Selected(c.resource_types, r.type()) && Selected(c.resource_urns, r.urn());
    if (keep) resources.push_back(std::move(r));
  }
  auto access = (*client)->ListAccess(*config, resources);
  if (absl::IsUnimplemented(access.status())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "provider ", provider->id(), ": the ", config->type(),
        " plugin cannot list access (ListAccess is not implemented), so it cannot import"));
  }
  if (!access.ok()) return access.status();
  std::map<std::pair<std::string, std::string>, const pb::Resource*> by_urn;
  std::set<std::string> resource_ids;
  for (const auto& r : resources) {
    by_urn[{r.type(), r.urn()}] = &r;
    resource_ids.insert(r.id());
  }
  // Permissions held per (resource, account type, account id).
  std::map<std::tuple<const pb::Resource*, std::string, std::string>, std::set<std::string>> held;
  for (const ProviderAccess& a : *access) {
    auto it = by_urn.find({a.resource_type, a.resource_urn});
    if (it == by_urn.end()) continue;  // not a resource Sluice knows (as in Guardian)
    auto& perms =
        held[{it->second, a.account_type, (*client)->NormalizeAccountId(a.account_type, a.account_id)}];
    perms.insert(a.permissions.begin(), a.permissions.end());
  }
  GrantSelector sel;
  sel.provider_types = {provider->type()};
  sel.provider_urns = {provider->urn()};
  std::vector<pb::Grant> active;
  absl::Status found = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto grants = tx.FindActiveGrants(sel, 1 << 30);
    if (!grants.ok()) return grants.status();
    active = std::move(*grants);
    return absl::OkStatus();
  });
  if (!found.ok()) return found;
  std::map<AccessKey, const pb::Grant*> by_key;
  for (const auto& g : active) {
    if (resource_ids.count(g.resource_id())) by_key[KeyOf(g, **client)] = &g;
  }
  ImportResult result;
  std::set<std::string> seen;
  for (const auto& [key, perms] : held) {
    const auto& [resource, account_type, account_id] = key;
    const pb::ResourceConfig* rc = nullptr;
    for (const auto& r : config->resources()) {
      if (r.type() == resource->type()) rc = &r;
    }
    if (rc == nullptr) continue;
    pb::Grant base;
    base.set_status("active");
    base.set_status_in_provider("active");
    base.set_account_id(account_id);
    base.set_account_type(account_type);
    base.set_resource_id(resource->id());
    *base.mutable_resource() = *resource;
    base.set_is_permanent(true);
    base.set_source("import");
    if (account_type == "user") base.set_owner(account_id);  // Guardian's AccessEntry.ToGrant
    for (pb::Grant& g : ReduceByRole(*rc, perms, base)) {
      auto existing = by_key.find(KeyOf(g, **client));
      if (existing != by_key.end()) {
        seen.insert(existing->second->id());
        ++result.unchanged;
        continue;
      }
      result.grants.push_back(std::move(g));
    }
  }
  for (const auto& [key, g] : by_key) {
    if (!seen.count(g->id())) result.drift.push_back(*g);
  }
  if (!apply) return result;
  if (auto st = ApplyImport(&result, actor); !st.ok()) return st;
  return result;
}

absl::Status GrantService::ApplyImport(ImportResult* result, const std::string& actor) {
  auto now = ToTimestamp(applier_->Now());
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    for (pb::Grant& g : result->grants) {
      if (auto l = tx.LockAccess(g.account_id(), g.resource_id(), g.role()); !l.ok()) return l;
      auto held = tx.FindActiveGrant(g.account_id(), g.resource_id(), g.role(), false);
      if (!held.ok()) return held.status();
      if (held->has_value()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "account ", g.account_id(), " already has an active grant ", (*held)->id(),
            " for role ", g.role(), " on resource ", g.resource_id(),
            " with other permissions; revoke it or fix the provider's role config first"));
      }
      *g.mutable_created_at() = now;
      *g.mutable_updated_at() = now;
      if (auto s = tx.InsertGrant(&g); !s.ok()) return s;
    }
    for (pb::Grant& g : result->drift) {
      // Re-read under the row lock: the list above was read before this
      // transaction, and a grant revoked meanwhile must stay revoked.
      auto current = tx.GetGrant(g.id(), /*for_update=*/true);
      if (!current.ok()) return current.status();
      if (current->status() != "active") continue;
      current->set_status_in_provider("inactive");
      *current->mutable_updated_at() = now;
      if (auto s = tx.UpdateGrant(*current); !s.ok()) return s;
      g = std::move(*current);
    }
    return tx.Audit({"grant.import", actor,
                     {{"imported", std::to_string(result->grants.size())},
                      {"drift", std::to_string(result->drift.size())}}});
  });
  if (!st.ok()) return st;
  result->applied = true;
  return absl::OkStatus();
}

}  // namespace sluice::access
