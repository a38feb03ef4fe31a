// Per-appeal rules a policy adds at creation and approval (issue 17):
// Guardian's policy questions, self-approval per step, and which
// requirements an appeal triggers.
#ifndef SLUICE_SERVER_ACCESS_CORE_POLICY_RULES_H_
#define SLUICE_SERVER_ACCESS_CORE_POLICY_RULES_H_

#include <string>

#include "absl/status/status.h"
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
// every non-empty field of req.on equals the appeal's, and req.on.expression
// (over $appeal) is truthy. An expression error counts as no match.
bool RequirementMatches(const pb::Requirement& req, const pb::Appeal& appeal);

// Whether `req` fails the approval when one of its appeals fails.
inline bool IsHardRequirement(const pb::Requirement& req) { return req.on_failure() == "hard"; }

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_POLICY_RULES_H_
