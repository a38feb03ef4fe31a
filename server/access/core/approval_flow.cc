#include "server/access/core/approval_flow.h"

#include "absl/strings/str_cat.h"
#include "common/expr/expr.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

absl::StatusOr<bool> Truthy(const std::string& source, const nlohmann::json& doc,
                            absl::string_view what) {
  auto program = expr::Program::Compile(source);
  if (!program.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", program.status().message()));
  expr::Environment env;
  env.BindJson("$appeal", &doc);
  auto v = (*program)->EvaluateTruthy(env);
  if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", v.status().message()));
  return *v;
}

std::string StepLabel(const pb::Step& step, int i) {
  return absl::StrCat("step ", i, " (\"", step.name(), "\")");
}

}  // namespace

nlohmann::json AppealDocument(const pb::Appeal& appeal) {
  pb::Appeal copy = appeal;
  copy.clear_approvals();
  copy.clear_grant();
  nlohmann::json doc = ProtoToJson(copy);
  if (!doc.contains("resource")) doc["resource"] = nlohmann::json::object();
  if (!doc["resource"].contains("details")) doc["resource"]["details"] = nlohmann::json::object();
  if (!doc.contains("creator")) doc["creator"] = nlohmann::json::object();
  if (!doc.contains("details")) doc["details"] = nlohmann::json::object();
  return doc;
}

// True when some step needs the $appeal document (a condition or an
// approver expression); plain-email policies skip building it.
static bool NeedsDocument(const pb::Policy& policy) {
  for (const auto& step : policy.steps()) {
    if (!step.when().empty() || step.strategy() == "auto") return true;
    for (const auto& a : step.approvers()) {
      if (!IsEmailAddress(a)) return true;
    }
  }
  return false;
}

absl::Status InitApprovals(pb::Appeal* appeal, const pb::Policy& policy) {
  nlohmann::json doc = NeedsDocument(policy) ? AppealDocument(*appeal) : nlohmann::json();
  appeal->clear_approvals();
  for (int i = 0; i < policy.steps_size(); ++i) {
    const pb::Step& step = policy.steps(i);
    pb::Approval* a = appeal->add_approvals();
    a->set_name(step.name());
    a->set_status("blocked");
    a->set_policy_id(policy.id());
    a->set_policy_version(policy.version());
    if (step.strategy() != "manual") continue;
    if (!step.when().empty()) {
      auto when = Truthy(step.when(), doc, StepLabel(step, i) + " when");
      if (!when.ok()) return when.status();
      if (!*when) continue;  // skipped: no approvers needed
    }
    for (const std::string& entry : step.approvers()) {
      if (IsEmailAddress(entry)) {
        a->add_approvers(entry);
        continue;
      }
      auto program = expr::Program::Compile(entry);
      if (!program.ok()) return program.status();
      expr::Environment env;
      env.BindJson("$appeal", &doc);
      auto v = (*program)->Evaluate(env);
      if (!v.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(StepLabel(step, i), " approvers: ",
                                                       v.status().message()));
      }
      nlohmann::json result = expr::ToJson(*v);
      std::vector<nlohmann::json> items;
      if (result.is_array()) {
        items.assign(result.begin(), result.end());
      } else {
        items.push_back(result);
      }
      if (items.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(StepLabel(step, i), " approvers: \"",
                                                       entry, "\" yielded no email"));
      }
      for (const auto& item : items) {
        if (!item.is_string() || !IsEmailAddress(item.get<std::string>())) {
          return absl::InvalidArgumentError(absl::StrCat(StepLabel(step, i), " approvers: \"",
                                                         entry, "\" yielded ", item.dump(),
                                                         ", not an email"));
        }
        a->add_approvers(item.get<std::string>());
      }
    }
  }
  return absl::OkStatus();
}

void SkipUndecided(pb::Appeal* appeal) {
  for (auto& a : *appeal->mutable_approvals()) {
    if (a.status() == "blocked" || a.status() == "pending") a.set_status("skipped");
  }
}

absl::Status AdvanceFlow(pb::Appeal* appeal, const pb::Policy& policy) {
  // Steps added by AddApprovalStep follow the policy's steps, as manual
  // steps without a `when`.
  if (appeal->approvals_size() < policy.steps_size()) {
    return absl::InternalError("appeal approvals do not match its policy's steps");
  }
  nlohmann::json doc = NeedsDocument(policy) ? AppealDocument(*appeal) : nlohmann::json();
  for (int i = 0; i < appeal->approvals_size(); ++i) {
    pb::Approval* a = appeal->mutable_approvals(i);
    static const pb::Step* const kAddedStep = new pb::Step();  // manual, no `when`
    const pb::Step& step = i < policy.steps_size() ? policy.steps(i) : *kAddedStep;
    if (a->status() == "approved" || a->status() == "skipped") continue;
    if (a->status() == "rejected") {
      appeal->set_status("rejected");
      SkipUndecided(appeal);
      return absl::OkStatus();
    }
    // The current step (pending or blocked).
    if (!step.when().empty()) {
      auto when = Truthy(step.when(), doc, StepLabel(step, i) + " when");
      if (!when.ok()) return when.status();
      if (!*when) {
        a->set_status("skipped");
        continue;
      }
    }
    if (step.strategy() == "auto") {
      auto ok = Truthy(step.approve_if(), doc, StepLabel(step, i) + " approve_if");
      if (!ok.ok()) return ok.status();
      a->set_actor("system");
      if (*ok) {
        a->set_status("approved");
        continue;
      }
      if (step.allow_failed()) {
        a->set_status("skipped");
        continue;
      }
      a->set_status("rejected");
      a->set_reason(step.rejection_reason());
      appeal->set_status("rejected");
      SkipUndecided(appeal);
      return absl::OkStatus();
    }
    a->set_status("pending");
    return absl::OkStatus();  // later steps stay blocked
  }
  appeal->set_status("approved");
  return absl::OkStatus();
}

}  // namespace sluice::access
