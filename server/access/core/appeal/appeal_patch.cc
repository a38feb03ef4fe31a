// PatchAppeal (Guardian's core/appeal/service.go Patch) and appeal comments
// (Guardian's core/comment): issue 28's appeal routes.
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/message_differencer.h"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

using google::protobuf::util::MessageDifferencer;

// The request's value when set and different (then `changed`), else the
// appeal's (Guardian's validatePatchReq updateField).
std::string Pick(const std::string& requested, const std::string& current,
                 const char* field, std::vector<std::string>* changed) {
  if (requested.empty() || requested == current) return current;
  changed->push_back(field);
  return requested;
}

// The active grant for `key` (account, resource, role), if any, locked.
absl::StatusOr<std::optional<pb::Grant>> ActiveGrantOf(AccessTx& tx, const pb::Appeal& a) {
  return tx.FindActiveGrant(a.account_id(), a.resource_id(), a.role(), true);
}

}  // namespace

absl::StatusOr<pb::Appeal> AppealService::Patch(const pb::PatchAppealRequest& request,
                                                const std::string& actor) {
  if (request.id().empty()) return absl::InvalidArgumentError("id: required");
  auto existing = Get(request.id());
  if (!existing.ok()) return existing.status();
  // Guardian's validatePatchReq refuses a change of creator: only the
  // creator's own patch is accepted.
  if (existing->created_by() != actor) {
    return absl::PermissionDeniedError(absl::StrCat(
        actor, " may not patch appeal ", request.id(), ": only its creator may"));
  }
  if (existing->status() != "pending") {
    return absl::FailedPreconditionError(absl::StrCat(
        "appeal ", request.id(), " is ", existing->status(), ": only a pending appeal can be patched"));
  }
  std::vector<std::string> changed;
  const std::string account_id =
      Pick(request.account_id(), existing->account_id(), "account_id", &changed);
  const std::string account_type =
      Pick(request.account_type(), existing->account_type(), "account_type", &changed);
  const std::string description =
      Pick(request.description(), existing->description(), "description", &changed);
  pb::AppealResourceRequest r;
  r.set_id(Pick(request.resource_id(), existing->resource_id(), "resource_id", &changed));
  r.set_role(Pick(request.role(), existing->role(), "role", &changed));
  *r.mutable_options() = existing->options();
  if (request.has_options() && !MessageDifferencer::Equals(request.options(), existing->options())) {
    *r.mutable_options() = request.options();
    changed.push_back("options");
  }
  *r.mutable_details() = existing->details();
  if (request.has_details() && !MessageDifferencer::Equals(request.details(), existing->details())) {
    *r.mutable_details() = request.details();
    changed.push_back("details");
  }
  if (changed.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "appeal ", request.id(), ": no changes (set at least one of account_id, account_type, "
        "resource_id, role, options, details, description to a new value)"));
  }
  // Validated as a new appeal would be, and its policy's flow from the
  // first step (Guardian: ApplyPolicy + AdvanceApproval on the patched appeal).
  auto prepared = Prepare(r, account_id, account_type, description, existing->created_by(),
                          /*system=*/false);
  if (!prepared.ok()) return prepared.status();
  Prepared& p = *prepared;
  pb::Appeal& a = p.appeal;
  a.set_id(existing->id());
  *a.mutable_created_at() = existing->created_at();
  *a.mutable_labels() = existing->labels();
  a.set_revision(existing->revision() + 1);
  for (auto& approval : *a.mutable_approvals()) {
    approval.set_appeal_id(a.id());
    approval.set_appeal_revision(a.revision());
  }
  if (a.status() == "approved") p.hard = PrepareHardRequirements(a, p.policy);
  const absl::Time now = applier_->Now();
  absl::Status st =
      applier_->RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    // Both accesses, in one order (as creation orders its keys).
    std::set<std::tuple<std::string, std::string, std::string>> keys = {
        {existing->account_id(), existing->resource_id(), existing->role()},
        {a.account_id(), a.resource_id(), a.role()}};
    for (const auto& [account, resource, role] : keys) {
      if (auto s = tx.LockAccess(account, resource, role); !s.ok()) return s;
    }
    auto current = tx.GetAppeal(a.id(), /*for_update=*/true);
    if (!current.ok()) return current.status();
    if (current->status() != "pending") {
      return absl::FailedPreconditionError(absl::StrCat(
          "appeal ", a.id(), " is ", current->status(), ": only a pending appeal can be patched"));
    }
    if (current->revision() != existing->revision()) {
      return absl::AbortedError(absl::StrCat("appeal ", a.id(),
                                             " was changed concurrently; read it and retry"));
    }
    bool same_access = existing->account_id() == a.account_id() &&
                       existing->resource_id() == a.resource_id() && existing->role() == a.role();
    if (!same_access) {
      // An extension appeal leaves the grant it was to extend.
      auto old_grant = ActiveGrantOf(tx, *existing);
      if (!old_grant.ok()) return old_grant.status();
      if (old_grant->has_value() && (*old_grant)->pending_appeal_id() == a.id()) {
        pb::Grant g = **old_grant;
        g.clear_pending_appeal_id();
        if (auto s = tx.UpdateGrant(g); !s.ok()) return s;
      }
    }
    // The new access may already be granted: allowed only as an extension
    // inside the window (Guardian's checkExtensionEligibility).
    auto grant = ActiveGrantOf(tx, a);
    if (!grant.ok()) return grant.status();
    if (auto s = CheckExtensionEligibility(a, *grant, p.extension_window, now); !s.ok()) return s;
    absl::Status replaced = tx.ReplaceAppeal(&a);
    if (absl::IsAlreadyExists(replaced)) {
      return absl::AlreadyExistsError(absl::StrCat(
          "a pending appeal already exists for account ", a.account_id(), ", resource ",
          a.resource_id(), " and role ", a.role()));
    }
    if (!replaced.ok()) return replaced;
    if (grant->has_value() && a.status() == "pending" &&
        (*grant)->pending_appeal_id() != a.id()) {
      pb::Grant g = **grant;
      g.set_pending_appeal_id(a.id());
      if (auto s = tx.UpdateGrant(g); !s.ok()) return s;
    }
    nlohmann::json audit = {{"id", a.id()}, {"revision", a.revision()},
                            {"changed", changed}, {"status", a.status()}};
    if (auto s = tx.Audit({"appeal.patch", actor, audit}); !s.ok()) return s;
    if (a.status() == "approved") {
      if (auto s = applier_->Activate(tx, &a, p.config, ops); !s.ok()) return s;
      if (auto s = InsertHardRequirements(tx, a, &p.hard, ops); !s.ok()) return s;
    }
    // The new flow's notifications (Guardian notifies the new approvers),
    // keyed by revision so that they do not collide with the first ones.
    std::vector<AccessEvent> events = CreatedEvents(a);
    for (AccessEvent& e : events) e.id = absl::StrCat(e.id, ":r", a.revision());
    return applier_->EmitEvents(tx, std::move(events));
  });
  if (!st.ok()) return st;
  applier_->EventsCommitted();
  if (a.status() == "approved") CreateSoftRequirements(&a, p.policy, &p.hard);
  return a;
}

absl::StatusOr<std::vector<pb::AppealComment>> AppealService::ListComments(
    const std::string& appeal_id, const std::vector<std::string>& order_by, const Actor& actor) {
  bool newest_first = false;
  for (const std::string& o : order_by) {
    if (o == "created_at" || o == "created_at:asc") {
      newest_first = false;
    } else if (o == "created_at:desc") {
      newest_first = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "order_by: \"", o, "\" is not one of created_at, created_at:asc, created_at:desc"));
    }
  }
  auto appeal = GetFor(appeal_id, actor);  // who may read the appeal may read its comments
  if (!appeal.ok()) return appeal.status();
  return appeals_->ListComments(appeal->id(), newest_first);
}

absl::StatusOr<pb::AppealComment> AppealService::CreateComment(const std::string& appeal_id,
                                                               const std::string& body,
                                                               const Actor& actor) {
  if (body.empty()) return absl::InvalidArgumentError("body: required");
  if (body.size() > kMaxCommentBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("body: at most ", kMaxCommentBytes, " bytes, got ", body.size()));
  }
  auto appeal = GetFor(appeal_id, actor);
  if (!appeal.ok()) return appeal.status();
  pb::AppealComment c;
  c.set_appeal_id(appeal->id());
  c.set_created_by(actor.identity);
  c.set_body(body);
  AuditEntry audit{"appeal.comment", actor.identity, {{"appeal_id", appeal->id()}}};
  if (auto st = appeals_->InsertComment(&c, audit); !st.ok()) return st;
  return c;
}


}  // namespace sluice::access
