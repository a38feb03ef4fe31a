// Admin edits of an appeal's flow (issue 28): AddApprovalStep and
// UpdateApprovalStep, after Guardian's core/appeal/service.go functions of
// those names, on Sluice's sequential flow (no parallel stages).
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/access/core/approval/approval_service.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

// The approval named `key` (UUID or step name), or null.
pb::Approval* FindStepOf(pb::Appeal* appeal, const std::string& key) {
  for (auto& a : *appeal->mutable_approvals()) {
    if (a.id() == key || a.name() == key) return &a;
  }
  return nullptr;
}

absl::Status CheckPendingAppeal(const pb::Appeal& appeal, const char* what) {
  if (appeal.status() == "pending") return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("appeal ", appeal.id(), " is ",
                                                    appeal.status(), ": ", what,
                                                    " needs a pending appeal"));
}

}  // namespace

absl::StatusOr<pb::Appeal> ApprovalService::AddApprovalSteps(
    const std::string& appeal_id,
    const google::protobuf::RepeatedPtrField<pb::ApprovalStepInput>& steps,
    const std::string& actor) {
  if (appeal_id.empty()) return absl::InvalidArgumentError("appeal_id: required");
  if (!IsUuid(appeal_id)) {
    return absl::InvalidArgumentError(absl::StrCat("appeal_id: \"", appeal_id, "\" is not a UUID"));
  }
  if (steps.empty()) return absl::InvalidArgumentError("steps: required");
  pb::Appeal result;
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto appeal = tx.GetAppeal(appeal_id, /*for_update=*/true);
    if (!appeal.ok()) return appeal.status();
    if (auto s = CheckPendingAppeal(*appeal, "adding approval steps"); !s.ok()) return s;
    std::set<std::string> names;
    for (const auto& a : appeal->approvals()) names.insert(a.name());
    const int first = appeal->approvals_size();
    for (int i = 0; i < steps.size(); ++i) {
      const pb::ApprovalStepInput& in = steps[i];
      const std::string field = absl::StrCat("steps[", i, "]");
      if (in.name().empty()) return absl::InvalidArgumentError(field + ".name: required");
      if (!names.insert(in.name()).second) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".name: appeal ", appeal_id, " already has a step \"", in.name(), "\""));
      }
      if (in.approvers().empty()) return absl::InvalidArgumentError(field + ".approvers: required");
      for (int j = 0; j < in.approvers_size(); ++j) {
        if (!IsEmailAddress(in.approvers(j))) {
          return absl::InvalidArgumentError(absl::StrCat(field, ".approvers[", j, "]: \"",
                                                         in.approvers(j),
                                                         "\" is not an email address"));
        }
      }
      if (!in.stage().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".stage: Sluice's approval flow is sequential; parallel stages are not "
                   "supported (leave stage empty to append the step)"));
      }
      const int index = appeal->approvals_size();  // where this step goes
      if (in.index() != 0 && in.index() < index) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".index: ", in.index(), " is among the existing steps; steps are appended "
            "(index 0, or at least ", index, ")"));
      }
      // Blocked behind any step not yet approved or skipped (Guardian's rule).
      bool blocked = false;
      for (const auto& a : appeal->approvals()) {
        blocked = blocked || (a.status() != "approved" && a.status() != "skipped");
      }
      pb::Approval* p = appeal->add_approvals();
      p->set_name(in.name());
      p->set_status(blocked ? "blocked" : "pending");
      *p->mutable_approvers() = in.approvers();
      *p->mutable_details() = in.details();
      p->set_appeal_id(appeal->id());
      p->set_policy_id(appeal->policy_id());
      p->set_policy_version(appeal->policy_version());
      p->set_appeal_revision(appeal->revision());
    }
    if (auto s = tx.AppendApprovals(&*appeal, first); !s.ok()) return s;
    std::vector<std::string> added;
    for (const auto& in : steps) added.push_back(in.name());
    if (auto s = tx.Audit({"appeal.add_approval_step", actor, {{"id", appeal_id}, {"steps", added}}});
        !s.ok()) {
      return s;
    }
    result = std::move(*appeal);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return applier_->Expand(std::move(result));
}

absl::StatusOr<pb::Appeal> ApprovalService::UpdateApprovalStep(
    const std::string& appeal_id, const std::string& approval_id,
    const google::protobuf::Struct* details, const std::string& actor) {
  if (appeal_id.empty()) return absl::InvalidArgumentError("appeal_id: required");
  if (approval_id.empty()) return absl::InvalidArgumentError("approval_id: required");
  if (!IsUuid(appeal_id)) {
    return absl::InvalidArgumentError(absl::StrCat("appeal_id: \"", appeal_id, "\" is not a UUID"));
  }
  pb::Appeal result;
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto appeal = tx.GetAppeal(appeal_id, /*for_update=*/true);
    if (!appeal.ok()) return appeal.status();
    if (auto s = CheckPendingAppeal(*appeal, "updating an approval step"); !s.ok()) return s;
    pb::Approval* approval = FindStepOf(&*appeal, approval_id);
    if (approval == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("appeal ", appeal_id, " has no approval \"", approval_id, "\""));
    }
    if (approval->status() != "pending" && approval->status() != "blocked") {
      return absl::FailedPreconditionError(absl::StrCat(
          "approval \"", approval->name(), "\" is ", approval->status(),
          ": only a pending or blocked step can be updated"));
    }
    // Guardian: absent details leave the step unchanged.
    if (details != nullptr) {
      *approval->mutable_details() = *details;
      if (auto s = tx.UpdateApprovalDetails(approval->id(), *details); !s.ok()) return s;
    }
    if (auto s = tx.Audit({"appeal.update_approval_step", actor,
                           {{"id", appeal_id}, {"approval", approval->name()}}});
        !s.ok()) {
      return s;
    }
    result = std::move(*appeal);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return applier_->Expand(std::move(result));
}

}  // namespace sluice::access
