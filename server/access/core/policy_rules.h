// Per-appeal rules a policy adds at creation and approval (issue 17):
// Guardian's policy questions, self-approval per step, and which
// requirements an appeal triggers.
#ifndef SLUICE_SERVER_ACCESS_CORE_POLICY_RULES_H_
#define SLUICE_SERVER_ACCESS_CORE_POLICY_RULES_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/struct.pb.h"
#include "proto/sluice/access/v1beta1/access.pb.h"
#include "proto/sluice/access/v1beta1/appeal.pb.h"

namespace sluice::access {

namespace pb = ::sluice::access::v1beta1;

// The appeal details key holding the answers, {"<question key>": "<answer>"}
// (Guardian's ReservedDetailsKeyPolicyQuestions).
inline constexpr char kPolicyQuestionsKey[] = "__policy_questions";

// InvalidArgument naming details.__policy_questions.<key> when a required
// question of `policy` has no non-empty string answer in `details`, or when
// __policy_questions is present but not an object. As Guardian's
// validateQuestionsAndParameters; answers to unknown keys are kept.
absl::Status CheckQuestionAnswers(const pb::Policy& policy,
                                  const google::protobuf::Struct& details);

// Whether the requester or creator may act at `step`: allow_self_approval
// set and Guardian's dont_allow_self_approval not set (both set is refused
// by ValidatePolicy). The default blocks self-approval.
bool AllowsSelfApproval(const pb::Step& step);

// The step of `policy` named `name`, or null.
const pb::Step* FindStep(const pb::Policy& policy, const std::string& name);

// FailedPrecondition naming the step when a manual approval of a new
// `appeal` still to be decided (pending or blocked) has no approver but the
// requester (account_id) and the creator while its step blocks
// self-approval: nobody could ever act on it. A step whose `when` was false
// at creation (no approvers resolved) is not checked.
absl::Status CheckApproversLeft(const pb::Appeal& appeal, const pb::Policy& policy);

// Whether `appeal` (with its resource expanded) triggers requirement `req`:
// every non-empty pattern field of req.on (provider_type, provider_urn,
// resource_type, resource_urn, role) matches the appeal's value as an
// unanchored RE2 search (Guardian's RequirementTrigger.IsMatch, Go's
// regexp.MatchString, domain/policy.go), every condition of
// req.on.conditions holds (ConditionMatches), and req.on.expression (over
// $appeal) is truthy. An expression or condition error counts as no match.
bool RequirementMatches(const pb::Requirement& req, const pb::Appeal& appeal);

// Guardian's Condition.IsMatch (domain/policy.go): the value at `field`
// ("$resource.<dot path>") of the appeal's resource, as JSON, equals
// match.eq. InvalidArgument naming `field` when it is not under $resource
// or the path is absent (Guardian errors there too).
absl::StatusOr<bool> ConditionMatches(const pb::Condition& condition, const pb::Appeal& appeal);

// The checks of a requirement trigger at policy create/update, `field` being
// "requirements[i].on": at least one of its fields set (Guardian's
// required_without_all), each pattern field a valid RE2 regular expression
// (Guardian fails at appeal time instead), each condition with a `$resource.` field and a
// match.eq, and the expression compiling. InvalidArgument naming the field.
absl::Status ValidateTrigger(const pb::RequirementTrigger& on, const std::string& field);

// "<id>@<version>" of ProviderConfig.policies (Guardian's getPolicy):
// "<id>" and "<id>@latest" give version 0, the latest. InvalidArgument
// naming `field` for an empty or malformed id or version.
absl::StatusOr<pb::PolicyRef> ParsePolicySpec(const std::string& field, const std::string& spec);

// The policy config.policies picks for `appeal` (the new appeal, with its
// resource): the first entry whose `when` (over $appeal) is truthy, as
// Guardian's getPolicy; nullopt when none is (the resource type's policy
// applies). FailedPrecondition naming policies[i] when a `when` fails to
// evaluate or a spec is malformed (the provider config is at fault).
absl::StatusOr<std::optional<pb::PolicyRef>> SelectProviderPolicy(
    const pb::ProviderConfig& config, const pb::Appeal& appeal);

// Whether `req` fails the approval when one of its appeals fails.
inline bool IsHardRequirement(const pb::Requirement& req) { return req.on_failure() == "hard"; }

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_POLICY_RULES_H_
