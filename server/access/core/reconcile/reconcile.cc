// Consistency between the providers and the database under faults (security
// review M2): journaling provider calls, settling them after the transaction
// that records their effect, and the reconciliation job for the ones a crash
// or an ambiguous COMMIT left in flight.
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {

absl::StatusOr<std::string> AppealService::JournalBegin(ProviderOperation op) {
  if (journal_ == nullptr) return std::string();
  op.started_at = clock_();
  auto id = journal_->Begin(op);
  if (!id.ok()) {
    // No provider call without a record of it.
    return absl::Status(id.status().code(),
                        absl::StrCat("cannot journal the provider call: ", id.status().message()));
  }
  return id;
}

void AppealService::JournalFinish(const std::string& id, const char* outcome) {
  if (journal_ == nullptr || id.empty()) return;
  if (auto st = journal_->Finish(id, outcome); !st.ok()) {
    // The reconciler will find it in flight and settle it the same way.
    spdlog::warn("msg=\"provider operation not settled\" op={} outcome={} error=\"{}\"", id,
                 outcome, std::string(st.message()));
  }
}

absl::Status AppealService::RunAndSettle(
    const std::function<absl::Status(AccessTx&, std::vector<PendingOp>*)>& body) {
  std::vector<PendingOp> ops;
  bool body_ok = false;
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    ops.clear();  // a store may run the body again after a reconnect
    absl::Status s = body(tx, &ops);
    body_ok = s.ok();
    return s;
  });
  for (PendingOp& op : ops) {
    if (st.ok()) {
      JournalFinish(op.id, kOpCommitted);
    } else if (body_ok) {
      // The COMMIT failed: it may have committed. Only the reconciler, which
      // reads what the database holds, can tell.
      spdlog::warn("msg=\"commit failed after a provider call; left to reconciliation\" op={}",
                   op.id);
    } else if (!op.compensate) {
      JournalFinish(op.id, kOpCompensated);  // nothing to undo (an extension)
    } else if (absl::Status c = op.compensate(); c.ok()) {
      JournalFinish(op.id, kOpCompensated);
    } else {
      spdlog::error("msg=\"compensation failed; left to reconciliation\" op={} error=\"{}\"", op.id,
                    std::string(c.message()));
    }
  }
  return st;
}

absl::StatusOr<ReconcileReport> AppealService::Reconcile(absl::Duration min_age) {
  ReconcileReport report;
  if (journal_ == nullptr) return report;
  auto ops = journal_->InFlight(clock_() - min_age, 500);
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

absl::StatusOr<const char*> AppealService::ReconcileOne(const ProviderOperation& op) {
  auto config = providers_->GetPlainConfig(op.provider_type, op.provider_urn);
  if (!config.ok()) return config.status();
  auto client = registry_->Find(config->type());
  if (!client.ok()) return client.status();
  auto resource = resources_->Get(op.resource_id);
  if (!resource.ok()) return resource.status();
  AccessRequest req{op.account_id, op.account_type, *resource, op.role, op.permissions};
  const char* outcome = kOpConfirmed;
  absl::Status st = RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
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
      return Deactivate(tx, &g, *config, "system", "reconciled: an interrupted revoke",
                        "grant.revoke_reconciled", ops);
    }
    // A newer grant for the same access needs what the old revoke removed.
    if (auto r = (*client)->GrantAccess(*config, req); !r.ok()) return r;
    outcome = kOpRegranted;
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  JournalFinish(op.id, outcome);
  return outcome;
}

}  // namespace sluice::access
