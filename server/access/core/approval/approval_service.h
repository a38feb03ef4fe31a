// Approvals (Guardian's core/approval and appeal UpdateApproval): approve or
// reject a step, approver edits, admin step edits, the approval lists and
// summaries. Approving the last step grants through the shared GrantApplier
// and creates the requirements through AppealService.
#ifndef SLUICE_SERVER_ACCESS_CORE_APPROVAL_APPROVAL_SERVICE_H_
#define SLUICE_SERVER_ACCESS_CORE_APPROVAL_APPROVAL_SERVICE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/core/grant_applier.h"
#include "server/access/core/policy_service.h"
#include "server/access/core/provider_service.h"

namespace sluice::access {

// At most this many summary items per GenerateApprovalSummaries call (each
// is one grouped query).
inline constexpr size_t kMaxSummaryItems = 20;

class ApprovalService {
 public:
  // Borrowed pointers must outlive the service. `appeal_service` prepares
  // and creates the requirements an approval triggers.
  ApprovalService(GrantApplier* applier, AppealService* appeal_service, AppealRepository* appeals,
                  PolicyService* policies, ProviderService* providers)
      : applier_(applier), appeal_service_(appeal_service), appeals_(appeals),
        policies_(policies), providers_(providers) {}

  // approve|reject step `approval_name` of appeal `id` as `actor` (see the
  // issue for the codes). Row-locked: concurrent calls give one transition.
  // PermissionDenied when `actor` is not an approver of the step, or is the
  // appeal's account or creator and the step does not set
  // allow_self_approval. `audit_extra` (an object) adds fields to the audit
  // row's data, e.g. {"via": "slack", "slack_user_id": ...}; it never
  // replaces id, approval, reason or status.
  absl::StatusOr<pb::Appeal> Act(const std::string& id, const std::string& approval_name,
                                 const std::string& action, const std::string& actor,
                                 const std::string& reason,
                                 const nlohmann::json& audit_extra = nlohmann::json());
  // Adds or removes an approver of a pending step (`approval` is a UUID or a
  // step name). Removing the last approver is FailedPrecondition.
  absl::StatusOr<pb::Appeal> AddApprover(const std::string& appeal_id, const std::string& approval,
                                         const std::string& email, const std::string& actor);
  absl::StatusOr<pb::Appeal> DeleteApprover(const std::string& appeal_id,
                                            const std::string& approval, const std::string& email,
                                            const std::string& actor);
  // The approvals matching `filter` (approver set for non-admins).
  absl::StatusOr<std::vector<pb::Approval>> ListApprovals(const ApprovalFilter& filter,
                                                          int* total);
  // Appends manual steps to pending appeal `appeal_id` (Guardian's
  // AddApprovalStep; approval/approval_steps.cc): each needs a name not already on
  // the appeal and at least one approver email (InvalidArgument naming
  // steps[i]); `stage` and an `index` among the existing steps are
  // InvalidArgument (Sluice's flow is sequential). A step after an
  // undecided one is blocked. FailedPrecondition unless pending; NotFound.
  // Authorization (admins only) is the caller's.
  absl::StatusOr<pb::Appeal> AddApprovalSteps(
      const std::string& appeal_id,
      const google::protobuf::RepeatedPtrField<pb::ApprovalStepInput>& steps,
      const std::string& actor);
  // Replaces the details (when `details` is non-null) of the pending or
  // blocked step `approval_id` (UUID or name) of pending appeal `appeal_id`
  // (Guardian's UpdateApprovalStep). NotFound for the step;
  // FailedPrecondition otherwise. Authorization (admins only) is the caller's.
  absl::StatusOr<pb::Appeal> UpdateApprovalStep(const std::string& appeal_id,
                                                const std::string& approval_id,
                                                const google::protobuf::Struct* details,
                                                const std::string& actor);
  // One SummaryResult per summary item (Guardian's
  // GenerateApprovalSummaries; approval/approval_summaries.cc): the approvals
  // matching the item's filters (statuses, appeal_statuses, account_id(s),
  // account_types, resource_types, resource_urns, provider_types,
  // provider_urns, roles, step_names, created_by = an approver), counted per
  // group of its group_bys ("approval.status", "appeal.role",
  // "resource.provider_type", ...). A non-empty `approver` restricts every
  // item to that approver's approvals. InvalidArgument naming an unknown
  // filter or group_by, missing group_bys, or more than kMaxSummaryItems.
  absl::StatusOr<google::protobuf::Map<std::string, pb::SummaryResult>> SummarizeApprovals(
      const google::protobuf::Map<std::string, pb::SummaryParameters>& items,
      const std::string& approver);

 private:
  // AddApprover / DeleteApprover (`add` false).
  absl::StatusOr<pb::Appeal> EditApprovers(const std::string& appeal_id,
                                           const std::string& approval, const std::string& email,
                                           const std::string& actor, bool add);

  GrantApplier* applier_;
  AppealService* appeal_service_;
  AppealRepository* appeals_;
  PolicyService* policies_;
  ProviderService* providers_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_APPROVAL_APPROVAL_SERVICE_H_
