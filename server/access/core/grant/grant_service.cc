// Grant reads, bulk revoke and the owner-change event (Guardian's
// core/grant service); the single-grant lifecycle is in grant_actions.cc and
// grant_update.cc.
#include "absl/strings/str_cat.h"
#include "server/access/core/grant/grant_service.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {

absl::StatusOr<std::vector<pb::Grant>> GrantService::ListGrants(const GrantFilter& filter,
                                                                int* total) {
  return appeals_->ListGrants(filter, total);
}

absl::StatusOr<pb::Grant> GrantService::GetGrant(const std::string& id, const Actor& actor) {
  if (!IsUuid(id)) return absl::NotFoundError(absl::StrCat("grant \"", id, "\" not found"));
  auto grant = appeals_->GetGrant(id);
  if (!grant.ok() || actor.admin || grant->account_id() == actor.identity ||
      (!grant->owner().empty() && grant->owner() == actor.identity)) {
    return grant;
  }
  auto approver = appeals_->IsResourceApprover(grant->resource_id(), actor.identity);
  if (!approver.ok()) return approver.status();
  if (!*approver) {
    return absl::PermissionDeniedError(absl::StrCat(
        actor.identity, " may not read grant ", id,
        ": only admins, its account and the resource's approvers may"));
  }
  return grant;
}

absl::StatusOr<std::vector<std::string>> GrantService::ListUserRoles(const std::string& owner) {
  if (owner.empty()) return absl::InvalidArgumentError("owner: required");
  return appeals_->ListUserRoles(owner);
}

absl::Status GrantService::RecordOwnerChange(AccessTx& tx, const pb::Grant& grant,
                                             const std::string& previous_owner,
                                             const std::string& actor) {
  if (grant.owner() == previous_owner) return absl::OkStatus();
  return applier_->EmitEvents(tx, {OwnerChangedEvent(grant, previous_owner, actor)});
}

absl::StatusOr<RevokeManyResult> GrantService::RevokeMany(const GrantSelector& s,
                                                          const std::string& actor,
                                                          const std::string& reason) {
  if (s.account_ids.empty()) {
    return absl::InvalidArgumentError(
        "account_ids: required for bulk revoke (as in Guardian); provider_types, "
        "provider_urns, resource_types and resource_urns narrow it");
  }
  if (s.account_ids.size() > 1000) return absl::InvalidArgumentError("account_ids: at most 1000");
  return RevokeSelected(s, actor, reason);
}

absl::StatusOr<RevokeManyResult> GrantService::RevokeSelected(const GrantSelector& s,
                                                              const std::string& actor,
                                                              const std::string& reason) {
  auto configs = providers_->PlainConfigs();
  if (!configs.ok()) return configs.status();
  std::vector<pb::Grant> candidates;
  absl::Status found = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto grants = tx.FindActiveGrants(s, kMaxBulkRevoke);
    if (!grants.ok()) return grants.status();
    candidates = std::move(*grants);
    return absl::OkStatus();
  });
  if (!found.ok()) return found;
  RevokeManyResult result;
  for (const pb::Grant& candidate : candidates) {
    // One transaction per grant: the provider call and the grant's row
    // commit or fail together, and never hold up the other grants.
    absl::Status st = applier_->RevokeOne(candidate, *configs, actor, reason, "appeal.revoke");
    if (!st.ok()) {
      pb::RevokeFailure* f = &result.failed.emplace_back();
      f->set_grant_id(candidate.id());
      f->set_appeal_id(candidate.appeal_id());
      f->set_account_id(candidate.account_id());
      f->set_error(std::string(st.message()));
      spdlog::warn("msg=\"bulk revoke: grant not revoked\" grant={} error=\"{}\"", candidate.id(),
                   std::string(st.message()));
      continue;
    }
    if (auto g = appeals_->GetGrant(candidate.id()); g.ok()) result.grants.push_back(std::move(*g));
    if (candidate.appeal_id().empty()) continue;
    auto a = applier_->GetAppeal(candidate.appeal_id());
    if (a.ok()) result.revoked.push_back(std::move(*a));
  }
  return result;
}

}  // namespace sluice::access
