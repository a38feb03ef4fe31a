// The approval flow (issue 5), as pure functions over an Appeal and the
// policy version it references. Applied at creation and after every action:
//   - one approval per step, named after it; the first undecided step is
//     `pending`, later ones `blocked`;
//   - a step whose `when` is false is `skipped`;
//   - an auto step evaluates `approve_if`: true → approved; false → skipped
//     with allow_failed, otherwise rejected (with rejection_reason) and the
//     appeal is rejected;
//   - when every step is approved or skipped the appeal becomes `approved`
//     (also right at creation: Guardian issues #94 and #390). Appeal
//     statuses are Guardian's (domain/appeal.go): pending, approved,
//     rejected, canceled.
#ifndef SLUICE_SERVER_ACCESS_CORE_APPROVAL_FLOW_H_
#define SLUICE_SERVER_ACCESS_CORE_APPROVAL_FLOW_H_

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "proto/sluice/access/v1beta1/appeal.pb.h"

namespace sluice::access {

namespace pb = ::sluice::access::v1beta1;

// The `$appeal` document expressions see: the appeal as proto JSON (field
// names), with resource and creator expanded.
nlohmann::json AppealDocument(const pb::Appeal& appeal);

// Creates the approvals of a new appeal (all `blocked`) and resolves the
// approvers of every manual step whose `when` is not false: each entry is an
// email or an expression yielding an email or a list of emails.
// InvalidArgument naming the step when a result is not an email or an
// expression fails.
absl::Status InitApprovals(pb::Appeal* appeal, const pb::Policy& policy);

// Moves the flow on from the first undecided step (see the file comment).
// Sets appeal->status to rejected or approved when the flow ends. Expression
// errors are InvalidArgument naming the step.
absl::Status AdvanceFlow(pb::Appeal* appeal, const pb::Policy& policy);

// Marks every blocked/pending approval skipped (after a rejection/cancel).
void SkipUndecided(pb::Appeal* appeal);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_APPROVAL_FLOW_H_
