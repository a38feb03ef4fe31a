// Cancel and revoke of one appeal. Each runs in one transaction with the
// appeal (or grant) rows locked, so concurrent actions serialize: one
// transition, the losers see the new state (FailedPrecondition).
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/fault.h"
#include "server/access/core/approval_flow.h"
#include "server/access/core/policy_rules.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

absl::Status CheckUuid(const std::string& id) {
  if (!IsUuid(id)) return absl::InvalidArgumentError(absl::StrCat("id: \"", id, "\" is not a UUID"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<pb::Appeal> AppealService::Cancel(const std::string& id, const std::string& actor) {
  if (auto st = CheckUuid(id); !st.ok()) return st;
  pb::Appeal result;
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto appeal = tx.GetAppeal(id, true);
    if (!appeal.ok()) return appeal.status();
    if (appeal->created_by() != actor) {
      return absl::PermissionDeniedError(
          absl::StrCat("only the creator (", appeal->created_by(), ") can cancel appeal ", id));
    }
    if (appeal->status() != "pending") {
      return absl::FailedPreconditionError(
          absl::StrCat("appeal ", id, " is ", appeal->status(), ", not pending"));
    }
    appeal->set_status("canceled");  // Guardian's spelling
    SkipUndecided(&*appeal);
    *appeal->mutable_updated_at() = ToTimestamp(applier_->Now());
    if (auto s = tx.UpdateAppeal(*appeal); !s.ok()) return s;
    if (auto s = tx.Audit({"appeal.cancel", actor, {{"id", id}}}); !s.ok()) return s;
    result = std::move(*appeal);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return applier_->Expand(std::move(result));
}

absl::StatusOr<pb::Appeal> AppealService::Revoke(const std::string& id, const Actor& who,
                                                 const std::string& reason) {
  if (auto st = CheckUuid(id); !st.ok()) return st;
  auto current = Get(id);
  if (!current.ok()) return current.status();
  // An email account compares ignoring case (Google plugins store it
  // lower-cased, review F-H2); other account ids exactly.
  bool own = current->account_id() == who.identity ||
             (absl::StrContains(current->account_id(), '@') &&
              absl::EqualsIgnoreCase(current->account_id(), who.identity));
  if (!who.admin && !own) {
    return absl::PermissionDeniedError(absl::StrCat(
        who.identity, " may not revoke appeal ", id,
        ": only admins and the grant's own account (", current->account_id(), ") may"));
  }
  const std::string& actor = who.identity;
  auto config = providers_->GetPlainConfig(current->resource().provider_type(),
                                           current->resource().provider_urn());
  absl::Status st =
      applier_->RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    if (auto l = tx.LockAccess(current->account_id(), current->resource_id(), current->role());
        !l.ok()) {
      return l;
    }
    auto appeal = tx.GetAppeal(id, true);
    if (!appeal.ok()) return appeal.status();
    if (appeal->status() != "approved") {
      return absl::FailedPreconditionError(
          absl::StrCat("appeal ", id, " is ", appeal->status(), ", not approved"));
    }
    // An approved appeal holds access only while its grant is active (a
    // revoked or replaced one keeps "approved", as in Guardian).
    auto grant = tx.FindActiveGrant(appeal->account_id(), appeal->resource_id(), appeal->role(), true);
    if (!grant.ok()) return grant.status();
    if (!grant->has_value() || (*grant)->appeal_id() != id) {
      return absl::FailedPreconditionError(absl::StrCat(
          "appeal ", id, " has no active grant (already revoked, expired or replaced)"));
    }
    if (!config.ok()) return config.status();
    pb::Grant g = **grant;
    *g.mutable_resource() = current->resource();
    return applier_->Deactivate(tx, &g, *config, actor, reason, "appeal.revoke", ops);
  });
  if (!st.ok()) return st;
  applier_->EventsCommitted();
  return Get(id);
}

}  // namespace sluice::access
