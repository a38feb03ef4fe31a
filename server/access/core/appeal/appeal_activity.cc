// AppealService::ListActivities: an appeal's audit rows as Guardian's
// appeal activities (core/appeal/activity.go, domain/appeal_activity.go).
#include <string>
#include <utility>
#include <vector>

#include "server/access/core/appeal/appeal_service.h"

namespace sluice::access {
namespace {

// Sluice's audit action -> Guardian's audit key, for the types Guardian's
// ListActivities lists (AuditKeyCancel ... AuditKeyUpdate). Sluice's
// appeal.patch is Guardian's appeal.update (UpdateAppeal).
struct ActivityType {
  const char* sluice;
  const char* guardian;
};
constexpr ActivityType kActivityTypes[] = {
    {"appeal.cancel", "appeal.cancel"},
    {"appeal.approve", "appeal.approve"},
    {"appeal.reject", "appeal.reject"},
    {"appeal.revoke", "appeal.revoke"},
    {"appeal.add_approver", "appeal.addApprover"},
    {"appeal.delete_approver", "appeal.deleteApprover"},
    {"appeal.patch", "appeal.update"},
};

}  // namespace

absl::StatusOr<std::vector<pb::AppealActivity>> AppealService::ListActivities(
    const std::string& appeal_id, const Actor& actor) {
  auto appeal = GetFor(appeal_id, actor);  // who may read the appeal may read its events
  if (!appeal.ok()) return appeal.status();
  std::vector<std::string> actions;
  for (const ActivityType& t : kActivityTypes) actions.emplace_back(t.sluice);
  auto logs = appeals_->ListAppealAudit(appeal->id(), actions);
  if (!logs.ok()) return logs.status();
  std::vector<pb::AppealActivity> out;
  out.reserve(logs->size());
  for (pb::AuditLog& log : *logs) {
    pb::AppealActivity a;
    a.set_appeal_id(appeal->id());
    *a.mutable_timestamp() = log.timestamp();
    a.set_type(log.action());
    for (const ActivityType& t : kActivityTypes) {
      if (log.action() == t.sluice) a.set_type(t.guardian);
    }
    a.set_actor(log.actor());
    *a.mutable_data() = std::move(*log.mutable_data());
    auto& data = *a.mutable_data()->mutable_fields();
    if (log.action() == "appeal.approve" || log.action() == "appeal.reject") {
      // Guardian's approval action data (core/appeal UpdateApproval's
      // audit: domain.ApprovalAction): action, actor, approval_name, reason.
      // Sluice's audit row names the step `approval` and the appeal `id`.
      google::protobuf::Value step = data["approval"];
      data.erase("approval");
      data.erase("id");
      data.erase("status");
      data["action"].set_string_value(log.action() == "appeal.approve" ? "approve" : "reject");
      data["actor"].set_string_value(log.actor());
      data["approval_name"] = std::move(step);
      if (!data.contains("reason")) data["reason"].set_string_value("");
    }
    // Guardian's events carry the appeal in data.appeal_id (its Event.FromAuditLog).
    data["appeal_id"].set_string_value(appeal->id());
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace sluice::access
