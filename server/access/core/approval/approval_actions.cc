// Approval actions (Guardian's appeal UpdateApproval) and approver edits.
// Each runs in one transaction with the appeal row locked, so concurrent
// actions serialize: one transition, at most one GrantAccess, the losers see
// the new state (FailedPrecondition).
#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/access/core/approval/approval_service.h"
#include "server/access/core/approval_flow.h"
#include "server/access/core/policy_rules.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

absl::Status CheckUuid(const std::string& id) {
  if (!IsUuid(id)) return absl::InvalidArgumentError(absl::StrCat("id: \"", id, "\" is not a UUID"));
  return absl::OkStatus();
}

pb::Approval* FindApproval(pb::Appeal* appeal, const std::string& key) {
  for (auto& a : *appeal->mutable_approvals()) {
    if (a.name() == key || a.id() == key) return &a;
  }
  return nullptr;
}

// The default blocks self-approval; see AllowsSelfApproval.
bool StepAllowsSelfApproval(const pb::Policy& policy, const std::string& step_name) {
  const pb::Step* step = FindStep(policy, step_name);
  return step != nullptr && AllowsSelfApproval(*step);
}

}  // namespace

absl::StatusOr<pb::Appeal> ApprovalService::Act(const std::string& id,
                                                const std::string& approval_name,
                                                const std::string& action, const std::string& actor,
                                                const std::string& reason,
                                                const nlohmann::json& audit_extra) {
  if (auto st = CheckUuid(id); !st.ok()) return st;
  if (action != "approve" && action != "reject") {
    return absl::InvalidArgumentError(
        absl::StrCat("action: \"", action, "\" is not one of \"approve\", \"reject\""));
  }
  // Read what the transaction needs first, so that it never waits for a
  // second pooled connection while holding the row lock.
  auto current = appeal_service_->Get(id);
  if (!current.ok()) return current.status();
  auto policy = policies_->Get(current->policy_id(), current->policy_version());
  if (!policy.ok()) return policy.status();
  auto config = providers_->GetPlainConfig(current->resource().provider_type(),
                                           current->resource().provider_urn());
  // Prepared here, outside the transaction, in case this action activates it.
  std::vector<AppealService::RequiredAppeal> hard;
  if (action == "approve" && current->status() == "pending") {
    hard = appeal_service_->PrepareHardRequirements(*current, *policy);
  }
  pb::Appeal result;
  absl::Status st =
      applier_->RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    // The access key first, then the row: the order creation uses too, so
    // the two never wait on each other in a cycle.
    if (auto s = tx.LockAccess(current->account_id(), current->resource_id(), current->role());
        !s.ok()) {
      return s;
    }
    auto appeal = tx.GetAppeal(id, /*for_update=*/true);
    if (!appeal.ok()) return appeal.status();
    *appeal->mutable_resource() = current->resource();
    // Only when present: an empty google.protobuf.Value (no kind) does not
    // serialize to JSON (the gateway answers "nil Value").
    if (current->has_creator()) *appeal->mutable_creator() = current->creator();
    pb::Approval* approval = FindApproval(&*appeal, approval_name);
    if (approval == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("appeal ", id, " has no approval \"", approval_name, "\""));
    }
    const auto& approvers = approval->approvers();
    if (std::find(approvers.begin(), approvers.end(), actor) == approvers.end()) {
      return absl::PermissionDeniedError(
          absl::StrCat(actor, " is not an approver of step \"", approval->name(), "\""));
    }
    // Nobody approves their own access unless the policy says so (finding
    // C2: an approver list edited to include the requester).
    // The account compares ignoring case: Google plugins store it lower-cased
    // (NormalizeAccountId, review F-H2) while the actor keeps its IdP casing.
    if ((absl::EqualsIgnoreCase(actor, appeal->account_id()) || actor == appeal->created_by()) &&
        !StepAllowsSelfApproval(*policy, approval->name())) {
      return absl::PermissionDeniedError(absl::StrCat(
          actor, " requested or created appeal ", id, " and may not act on its step \"",
          approval->name(),
          "\" (the step does not set allow_self_approval, or sets dont_allow_self_approval)"));
    }
    if (appeal->status() != "pending") {
      return absl::FailedPreconditionError(
          absl::StrCat("appeal ", id, " is ", appeal->status(), ", not pending"));
    }
    if (approval->status() != "pending") {
      return absl::FailedPreconditionError(absl::StrCat(
          "approval \"", approval->name(), "\" is ", approval->status(), ", not pending"));
    }
    absl::Time now = applier_->Now();
    approval->set_actor(actor);
    approval->set_reason(reason);
    *approval->mutable_updated_at() = ToTimestamp(now);
    if (action == "approve") {
      approval->set_status("approved");
      if (auto s = AdvanceFlow(&*appeal, *policy); !s.ok()) return s;
    } else {
      approval->set_status("rejected");
      appeal->set_status("rejected");
      SkipUndecided(&*appeal);
    }
    *appeal->mutable_updated_at() = ToTimestamp(now);
    if (auto s = tx.UpdateAppeal(*appeal); !s.ok()) return s;
    nlohmann::json audit = {{"id", id}, {"approval", approval->name()}, {"reason", reason},
                            {"status", appeal->status()}};
    if (audit_extra.is_object()) {
      for (auto it = audit_extra.begin(); it != audit_extra.end(); ++it) {
        if (!audit.contains(it.key())) audit[it.key()] = it.value();
      }
    }
    if (auto s = tx.Audit({absl::StrCat("appeal.", action), actor, std::move(audit)}); !s.ok()) {
      return s;
    }
    if (appeal->status() == "approved") {
      if (!config.ok()) return config.status();
      if (auto s = applier_->Activate(tx, &*appeal, *config, ops); !s.ok()) return s;
      if (auto s = appeal_service_->InsertHardRequirements(tx, *appeal, &hard, ops); !s.ok()) {
        return s;
      }
    }
    if (auto s = applier_->EmitEvents(tx, ActionEvents(*appeal, approval->name(), actor, reason));
        !s.ok()) {
      return s;
    }
    result = std::move(*appeal);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  applier_->EventsCommitted();
  if (result.status() == "approved") {
    appeal_service_->CreateSoftRequirements(&result, *policy, &hard);
  }
  return result;
}

absl::StatusOr<pb::Appeal> ApprovalService::EditApprovers(const std::string& appeal_id,
                                                          const std::string& approval,
                                                          const std::string& email,
                                                          const std::string& actor, bool add) {
  if (auto st = CheckUuid(appeal_id); !st.ok()) return st;
  if (!IsEmailAddress(email)) {
    return absl::InvalidArgumentError(absl::StrCat("email: \"", email, "\" is not an email"));
  }
  pb::Appeal result;
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto appeal = tx.GetAppeal(appeal_id, true);
    if (!appeal.ok()) return appeal.status();
    pb::Approval* a = FindApproval(&*appeal, approval);
    if (a == nullptr) {
      return absl::NotFoundError(absl::StrCat("appeal ", appeal_id, " has no approval \"", approval, "\""));
    }
    if (appeal->status() != "pending" || a->status() != "pending") {
      return absl::FailedPreconditionError(absl::StrCat(
          "approvers can change only while appeal and step are pending (appeal ", appeal->status(),
          ", approval ", a->status(), ")"));
    }
    auto* list = a->mutable_approvers();
    auto it = std::find(list->begin(), list->end(), email);
    if (add) {
      if (it != list->end()) return absl::AlreadyExistsError(absl::StrCat(email, " is already an approver"));
      a->add_approvers(email);
    } else {
      if (it == list->end()) return absl::NotFoundError(absl::StrCat(email, " is not an approver"));
      if (list->size() == 1) {
        return absl::FailedPreconditionError("cannot remove the last approver of a step");
      }
      list->erase(it);
    }
    *appeal->mutable_updated_at() = ToTimestamp(applier_->Now());
    if (auto s = tx.UpdateAppeal(*appeal); !s.ok()) return s;
    if (auto s = tx.Audit({add ? "appeal.add_approver" : "appeal.delete_approver", actor,
                           {{"id", appeal_id}, {"approval", a->name()}, {"email", email}}});
        !s.ok()) {
      return s;
    }
    result = std::move(*appeal);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return applier_->Expand(std::move(result));
}

absl::StatusOr<pb::Appeal> ApprovalService::AddApprover(const std::string& appeal_id,
                                                        const std::string& approval,
                                                        const std::string& email,
                                                        const std::string& actor) {
  return EditApprovers(appeal_id, approval, email, actor, true);
}

absl::StatusOr<pb::Appeal> ApprovalService::DeleteApprover(const std::string& appeal_id,
                                                           const std::string& approval,
                                                           const std::string& email,
                                                           const std::string& actor) {
  return EditApprovers(appeal_id, approval, email, actor, false);
}

absl::StatusOr<std::vector<pb::Approval>> ApprovalService::ListApprovals(
    const ApprovalFilter& filter, int* total) {
  return appeals_->ListApprovals(filter, total);
}

}  // namespace sluice::access
