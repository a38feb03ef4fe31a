// The expiry job and the reconciliation job (security review M2) for the
// provider operations a crash or an ambiguous COMMIT left in flight; the
// journaling and settling of provider calls is GrantApplier's.
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "server/access/core/reconcile/reconcile_service.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {

absl::StatusOr<int> ReconcileService::ExpireGrants() {
  auto configs = providers_->PlainConfigs();
  if (!configs.ok()) return configs.status();
  absl::Time now = applier_->Now();
  std::vector<pb::Grant> candidates;
  absl::Status found = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto grants = tx.LockExpiredGrants(now, 500);
    if (!grants.ok()) return grants.status();
    candidates = std::move(*grants);
    return absl::OkStatus();
  });
  if (!found.ok()) return found;
  int expired = 0;
  for (const pb::Grant& candidate : candidates) {
    // One transaction per grant, as in bulk revoke: a failure leaves that
    // grant active in both places, never the others half done.
    absl::Status st = applier_->RevokeOne(candidate, *configs, "system", "expired", "grant.expire");
    if (!st.ok()) {
      if (absl::IsFailedPrecondition(st) && st.message() == kNoLongerActive) {
        continue;
      }
      // Left active: the next run retries it.
      spdlog::warn("msg=\"grant expiry failed; will retry\" grant={} error=\"{}\"", candidate.id(),
                   std::string(st.message()));
      continue;
    }
    ++expired;
  }
  return expired;
}

absl::StatusOr<ReconcileReport> ReconcileService::Reconcile(absl::Duration min_age) {
  ReconcileReport report;
  if (applier_->journal() == nullptr) return report;
  auto ops = applier_->journal()->InFlight(applier_->Now() - min_age, 500);
  if (!ops.ok()) return ops.status();
  for (const ProviderOperation& op : *ops) {
    ++report.examined;
    auto outcome = ReconcileOne(op);
    std::string line = absl::StrCat(op.id, " ", op.op, " account=", op.account_id,
                                    " resource=", op.resource_id, " role=", op.role, " → ");
    if (!outcome.ok()) {
      ++report.failed;
      absl::StrAppend(&line, "failed: ", outcome.status().message());
      spdlog::warn("msg=\"reconciliation failed; will retry\" {}", line);
    } else {
      std::string o = *outcome;
      report.confirmed += o == kOpConfirmed;
      report.revoked += o == kOpRevoked;
      report.completed += o == kOpCompleted;
      report.regranted += o == kOpRegranted;
      absl::StrAppend(&line, o);
      spdlog::info("msg=\"provider operation reconciled\" {}", line);
    }
    report.details.push_back(std::move(line));
  }
  return report;
}

absl::StatusOr<const char*> ReconcileService::ReconcileOne(const ProviderOperation& op) {
  auto config = providers_->GetPlainConfig(op.provider_type, op.provider_urn);
  if (!config.ok()) return config.status();
  auto client = registry_->Find(config->type());
  if (!client.ok()) return client.status();
  auto resource = resources_->Get(op.resource_id);
  if (!resource.ok()) return resource.status();
  AccessRequest req{op.account_id, op.account_type, *resource, op.role, op.permissions};
  const char* outcome = kOpConfirmed;
  absl::Status st =
      applier_->RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    // The access's lock: a live request on the same access finishes first.
    if (auto l = tx.LockAccess(op.account_id, op.resource_id, op.role); !l.ok()) return l;
    auto active = tx.FindActiveGrant(op.account_id, op.resource_id, op.role, /*for_update=*/true);
    if (!active.ok()) return active.status();
    if (op.op == "grant") {
      if (active->has_value()) return absl::OkStatus();  // recorded: keep the access
      // Granted in the provider, but the grant never committed.
      if (auto r = (*client)->RevokeAccess(*config, req); !r.ok()) return r;
      outcome = kOpRevoked;
      return absl::OkStatus();
    }
    if (!active->has_value()) return absl::OkStatus();  // revoke recorded
    pb::Grant g = **active;
    if (g.id() == op.grant_id) {
      // Revoked in the provider, still active here: finish the revoke.
      *g.mutable_resource() = *resource;
      outcome = kOpCompleted;
      return applier_->Deactivate(tx, &g, *config, "system", "reconciled: an interrupted revoke",
                                  "grant.revoke_reconciled", ops);
    }
    // A newer grant for the same access needs what the old revoke removed.
    if (auto r = (*client)->GrantAccess(*config, req); !r.ok()) return r;
    outcome = kOpRegranted;
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  applier_->JournalFinish(op.id, outcome);
  return outcome;
}

}  // namespace sluice::access
