#include "server/access/core/policy_rules.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/expr/expr.h"
#include "server/access/core/flow.h"

namespace sluice::access {

absl::Status CheckQuestionAnswers(const pb::Policy& policy,
                                  const google::protobuf::Struct& details) {
  const google::protobuf::Struct* answers = nullptr;
  auto it = details.fields().find(kPolicyQuestionsKey);
  if (it != details.fields().end()) {
    if (!it->second.has_struct_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("details.", kPolicyQuestionsKey, ": must be an object of answers"));
    }
    answers = &it->second.struct_value();
  }
  for (const auto& q : policy.appeal().questions()) {
    if (!q.required()) continue;
    bool answered = false;
    if (answers != nullptr) {
      auto a = answers->fields().find(q.key());
      // Guardian counts only non-empty strings as filled.
      answered = a != answers->fields().end() && a->second.has_string_value() &&
                 !a->second.string_value().empty();
    }
    if (!answered) {
      return absl::InvalidArgumentError(absl::StrCat("details.", kPolicyQuestionsKey, ".", q.key(),
                                                     ": question \"", q.key(),
                                                     "\" is required (", q.question(), ")"));
    }
  }
  return absl::OkStatus();
}

bool AllowsSelfApproval(const pb::Step& step) {
  return step.allow_self_approval() && !step.dont_allow_self_approval();
}

const pb::Step* FindStep(const pb::Policy& policy, const std::string& name) {
  for (const auto& step : policy.steps()) {
    if (step.name() == name) return &step;
  }
  return nullptr;
}

absl::Status CheckApproversLeft(const pb::Appeal& appeal, const pb::Policy& policy) {
  for (const auto& approval : appeal.approvals()) {
    if (approval.status() != "pending" && approval.status() != "blocked") continue;
    const pb::Step* step = FindStep(policy, approval.name());
    if (step == nullptr || step->strategy() != "manual" || AllowsSelfApproval(*step)) continue;
    // A later step whose `when` was false at creation has no approvers
    // resolved (InitApprovals); AdvanceFlow skips it when it gets there.
    if (approval.approvers().empty() && !step->when().empty()) continue;
    bool other = std::any_of(approval.approvers().begin(), approval.approvers().end(),
                             [&](const std::string& a) {
                               return a != appeal.account_id() && a != appeal.created_by();
                             });
    if (!other) {
      return absl::FailedPreconditionError(absl::StrCat(
          "policy ", policy.id(), " step \"", approval.name(),
          "\" has no approver other than the requester or creator, and blocks self-approval "
          "(allow_self_approval is unset or dont_allow_self_approval is set)"));
    }
  }
  return absl::OkStatus();
}

bool RequirementMatches(const pb::Requirement& req, const pb::Appeal& appeal) {
  const auto& on = req.on();
  const auto& res = appeal.resource();
  if ((!on.provider_type().empty() && on.provider_type() != res.provider_type()) ||
      (!on.provider_urn().empty() && on.provider_urn() != res.provider_urn()) ||
      (!on.resource_type().empty() && on.resource_type() != res.type()) ||
      (!on.resource_urn().empty() && on.resource_urn() != res.urn()) ||
      (!on.role().empty() && on.role() != appeal.role())) {
    return false;
  }
  if (on.expression().empty()) return true;
  auto program = expr::Program::Compile(on.expression());
  if (!program.ok()) return false;
  nlohmann::json doc = AppealDocument(appeal);
  expr::Environment env;
  env.BindJson("$appeal", &doc);
  auto match = (*program)->EvaluateTruthy(env);
  return match.ok() && *match;
}

}  // namespace sluice::access
