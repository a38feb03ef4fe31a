#include "server/access/core/policy_rules.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/expr/expr.h"
#include "re2/re2.h"
#include "server/access/core/approval_flow.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"

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

namespace {

// The trigger's pattern fields with the appeal values they are matched
// against, in Guardian's order.
std::vector<std::pair<const char*, std::pair<const std::string*, const std::string*>>>
TriggerPatterns(const pb::RequirementTrigger& on, const pb::Appeal* appeal) {
  static const std::string kNone;
  const pb::Resource* res = appeal != nullptr ? &appeal->resource() : nullptr;
  return {
      {"provider_type", {&on.provider_type(), res ? &res->provider_type() : &kNone}},
      {"provider_urn", {&on.provider_urn(), res ? &res->provider_urn() : &kNone}},
      {"resource_type", {&on.resource_type(), res ? &res->type() : &kNone}},
      {"resource_urn", {&on.resource_urn(), res ? &res->urn() : &kNone}},
      {"role", {&on.role(), appeal ? &appeal->role() : &kNone}},
  };
}

}  // namespace

bool RequirementMatches(const pb::Requirement& req, const pb::Appeal& appeal) {
  const auto& on = req.on();
  for (const auto& [name, p] : TriggerPatterns(on, &appeal)) {
    const std::string& pattern = *p.first;
    if (pattern.empty()) continue;
    // Go's regexp.MatchString: an unanchored search (RE2 syntax in both).
    RE2 re(pattern, RE2::Quiet);
    if (!re.ok() || !RE2::PartialMatch(*p.second, re)) return false;
  }
  for (const auto& condition : on.conditions()) {
    auto match = ConditionMatches(condition, appeal);
    if (!match.ok() || !*match) return false;
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

namespace {
constexpr char kResourcePrefix[] = "$resource.";  // Guardian's ApproversKeyResource + "."
}  // namespace

absl::StatusOr<bool> ConditionMatches(const pb::Condition& condition, const pb::Appeal& appeal) {
  const std::string& field = condition.field();
  if (!absl::StartsWith(field, kResourcePrefix)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "field: \"", field, "\" is not a path into the resource (write $resource.<path>)"));
  }
  nlohmann::json doc = ProtoToJson(appeal.resource());
  const nlohmann::json* at = &doc;
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(field).substr(sizeof(kResourcePrefix) - 1), '.')) {
    if (!at->is_object() || !at->contains(std::string(part))) {
      return absl::InvalidArgumentError(
          absl::StrCat("field: \"", field, "\" is absent from resource ", appeal.resource().id()));
    }
    at = &(*at)[std::string(part)];
  }
  nlohmann::json want = ProtoToJson(condition.match().eq());
  return *at == want;
}

absl::Status ValidateTrigger(const pb::RequirementTrigger& on, const std::string& field) {
  if (on.provider_type().empty() && on.provider_urn().empty() && on.resource_type().empty() &&
      on.resource_urn().empty() && on.role().empty() && on.conditions().empty() &&
      on.expression().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": set at least one of provider_type, provider_urn, resource_type, resource_urn, "
               "role, conditions, expression (an empty trigger would fire for every appeal)"));
  }
  for (const auto& [name, p] : TriggerPatterns(on, nullptr)) {
    if (p.first->empty()) continue;
    RE2 re(*p.first, RE2::Quiet);
    if (!re.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ".", name, ": \"", *p.first, "\" is not a regular expression (", re.error(),
          "); trigger fields are matched as Guardian's, an unanchored RE2 search: write ^...$ for "
          "an exact value"));
    }
  }
  for (int i = 0; i < on.conditions_size(); ++i) {
    const auto& c = on.conditions(i);
    std::string fc = absl::StrCat(field, ".conditions[", i, "]");
    if (!absl::StartsWith(c.field(), kResourcePrefix) ||
        c.field().size() <= sizeof(kResourcePrefix) - 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(fc, ".field: \"", c.field(),
                       "\" must be a path into the appeal's resource, $resource.<path>"));
    }
    if (!c.has_match() || !c.match().has_eq()) {
      return absl::InvalidArgumentError(fc + ".match.eq: required");
    }
  }
  if (!on.expression().empty()) return CheckExpression(field + ".expression", on.expression());
  return absl::OkStatus();
}

absl::StatusOr<pb::PolicyRef> ParsePolicySpec(const std::string& field, const std::string& spec) {
  std::vector<std::string> parts = absl::StrSplit(spec, absl::MaxSplits('@', 1));
  pb::PolicyRef ref;
  ref.set_id(parts[0]);
  if (!IsValidId(ref.id())) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", spec, "\" is not <policy id>@<version> (id must match ^[A-Za-z0-9_-]+$)"));
  }
  if (parts.size() > 1 && parts[1] != "latest") {
    uint32_t version = 0;
    if (!absl::SimpleAtoi(parts[1], &version) || version == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": \"", spec, "\" has no valid version (a positive number, or \"latest\")"));
    }
    ref.set_version(version);
  }
  return ref;
}

absl::StatusOr<std::optional<pb::PolicyRef>> SelectProviderPolicy(
    const pb::ProviderConfig& config, const pb::Appeal& appeal) {
  if (config.policies().empty()) return std::optional<pb::PolicyRef>();
  nlohmann::json doc = AppealDocument(appeal);
  expr::Environment env;
  env.BindJson("$appeal", &doc);
  for (int i = 0; i < config.policies_size(); ++i) {
    const auto& entry = config.policies(i);
    std::string field = absl::StrCat("provider ", config.urn(), " policies[", i, "]");
    if (entry.when().empty()) continue;  // Guardian skips an entry without `when`
    auto program = expr::Program::Compile(entry.when());
    if (!program.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat(field, ".when: ", program.status().message()));
    }
    auto hit = (*program)->EvaluateTruthy(env);
    if (!hit.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(field, ".when: ", hit.status().message()));
    }
    if (!*hit) continue;
    auto ref = ParsePolicySpec(field + ".policy", entry.policy());
    if (!ref.ok()) return absl::FailedPreconditionError(ref.status().message());
    return std::optional<pb::PolicyRef>(*ref);
  }
  return std::optional<pb::PolicyRef>();
}

}  // namespace sluice::access
