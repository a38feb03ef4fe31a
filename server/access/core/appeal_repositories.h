// Storage interfaces for appeals, approvals and grants. Multi-row changes
// that must be atomic (approval transitions, granting, revoking, expiry) run
// inside AppealRepository::InTransaction through an AccessTx, whose reads
// with `for_update` lock the rows (SELECT … FOR UPDATE) until commit.
#ifndef SLUICE_SERVER_ACCESS_CORE_APPEAL_REPOSITORIES_H_
#define SLUICE_SERVER_ACCESS_CORE_APPEAL_REPOSITORIES_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/sluice/access/v1beta1/appeal.pb.h"
#include "server/access/core/access_events.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

// Grant selection for bulk revoke (empty lists match everything).
struct GrantSelector {
  std::vector<std::string> account_ids, provider_types, provider_urns, resource_types,
      resource_urns;
};

// One open transaction.
class AccessTx {
 public:
  virtual ~AccessTx() = default;
  // The appeal with its approvals (in step order) and its active grant, or
  // NotFound. `for_update` locks the appeal row.
  virtual absl::StatusOr<pb::Appeal> GetAppeal(const std::string& id, bool for_update) = 0;
  // Inserts the appeal and its approvals; assigns their ids (UUIDs).
  // AlreadyExists when a pending appeal exists for the same account,
  // resource and role.
  virtual absl::Status InsertAppeal(pb::Appeal* appeal) = 0;
  // InsertAppeal, then Audit(audit) with audit.data["id"] set to the new
  // appeal's id. A store may write all of it in one statement.
  virtual absl::Status InsertAppealAudited(pb::Appeal* appeal, AuditEntry audit) {
    if (auto st = InsertAppeal(appeal); !st.ok()) return st;
    audit.data["id"] = appeal->id();
    return Audit(audit);
  }
  // InsertAppealAudited when no active grant exists for the appeal's account,
  // resource and role (true); otherwise writes nothing and returns false. Lets
  // the common case skip a separate grant lookup. With it, `events` (access
  // events of the new appeal, ids empty) go to the outbox with id
  // "<type>:<appeal id>" and variables.appeal_id set; a store may write all
  // of it in one statement (the create-appeal hot path).
  virtual absl::StatusOr<bool> InsertAppealUnlessActiveGrant(
      pb::Appeal* appeal, AuditEntry audit, std::vector<AccessEvent> events = {}) {
    auto existing =
        FindActiveGrant(appeal->account_id(), appeal->resource_id(), appeal->role(), false);
    if (!existing.ok()) return existing.status();
    if (existing->has_value()) return false;
    if (auto st = InsertAppealAudited(appeal, std::move(audit)); !st.ok()) return st;
    if (events.empty()) return true;
    for (AccessEvent& e : events) {
      e.id = e.type + ":" + appeal->id();
      e.variables["appeal_id"] = appeal->id();
    }
    if (auto st = InsertEvents(events); !st.ok()) return st;
    return true;
  }
  // Writes `events` to the outbox (one multi-row INSERT); an id already
  // present is skipped (ON CONFLICT DO NOTHING), so re-running a reminder
  // writes nothing new.
  virtual absl::Status InsertEvents(const std::vector<AccessEvent>& events) = 0;
  // Writes status, revoke fields, updated_at and every approval's status,
  // actor, reason and approvers.
  virtual absl::Status UpdateAppeal(const pb::Appeal& appeal) = 0;
  // Waits until no other transaction holds (account, resource, role), then
  // holds it until this one ends, so that concurrent creations of the same
  // access see each other's grant instead of both granting (and the loser's
  // rollback revoking the winner's access). A store whose transactions
  // already run one at a time may do nothing.
  virtual absl::Status LockAccess(const std::string& account_id, const std::string& resource_id,
                                  const std::string& role) {
    (void)account_id, (void)resource_id, (void)role;
    return absl::OkStatus();
  }
  // The active grant for (account, resource, role), locked when `for_update`.
  virtual absl::StatusOr<std::optional<pb::Grant>> FindActiveGrant(
      const std::string& account_id, const std::string& resource_id, const std::string& role,
      bool for_update) = 0;
  // Inserts; assigns the id.
  virtual absl::Status InsertGrant(pb::Grant* grant) = 0;
  // Writes status, status_in_provider, revoke and restore fields,
  // pending_appeal_id, owner, is_permanent, expiration_date(_reason) and
  // updated_at.
  virtual absl::Status UpdateGrant(const pb::Grant& grant) = 0;
  // The grant with its resource, or NotFound; `for_update` locks its row.
  virtual absl::StatusOr<pb::Grant> GetGrant(const std::string& id, bool for_update) = 0;
  // Active grants past their expiration at `now`, locked, skipping rows other
  // replicas hold (FOR UPDATE SKIP LOCKED); at most `limit`.
  virtual absl::StatusOr<std::vector<pb::Grant>> LockExpiredGrants(absl::Time now, int limit) = 0;
  // Active grants matching `selector` (with their resources), oldest first,
  // at most `limit`; not locked (bulk revoke locks each one on its own).
  virtual absl::StatusOr<std::vector<pb::Grant>> FindActiveGrants(const GrantSelector& s,
                                                                  int limit) = 0;
  // Writes an audit_logs row in this transaction.
  virtual absl::Status Audit(const AuditEntry& entry) = 0;
  // PatchAppeal's write (Guardian's UpdateByID after Patch): sets the
  // appeal's resource, policy, status, account, role and data (options,
  // details, description, revision, ...), marks its current approvals stale
  // (approvers cleared) and inserts `appeal`'s approvals for its revision,
  // assigning their ids. AlreadyExists when another pending appeal holds the
  // same account, resource and role.
  virtual absl::Status ReplaceAppeal(pb::Appeal* appeal) = 0;
  // Inserts appeal->approvals(first..) as the appeal's steps `first`.. of
  // its current revision, with their details; assigns their ids
  // (AddApprovalStep).
  virtual absl::Status AppendApprovals(pb::Appeal* appeal, int first) = 0;
  // Replaces one approval's details (UpdateApprovalStep).
  virtual absl::Status UpdateApprovalDetails(const std::string& approval_id,
                                             const google::protobuf::Struct& details) = 0;
};

struct AppealFilter {
  // Non-empty: only appeals this identity created, is the account of, or is
  // an approver of (a non-admin caller's view).
  std::string visible_to;
  std::vector<std::string> ids, account_ids, account_types, statuses, provider_types,
      provider_urns, resource_types, resource_urns, resource_ids, roles;
  std::string role, created_by;
  // Guardian's role and provider urn matchers (ORed with `roles` and
  // `provider_urns`, as applyLikeAndInFilter does).
  StringMatch role_match, provider_urn_match;
  // Substring of account_id, role, resource urn or name (Guardian: LIKE).
  std::string q;
  TimeRange created;
  // (column, descending) pairs, validated by the core.
  std::vector<std::pair<std::string, bool>> order_by;
  int size = 50, offset = 0;
  // Fill each appeal's approvals (its current, non-stale steps); false:
  // approvals stay empty (Guardian's ListAppealsFilter.WithApprovals).
  bool with_approvals = false;
};

struct ApprovalFilter {
  // approver: only approvals listing this identity (empty: every one).
  std::string account_id, approver;
  std::vector<std::string> statuses;
  // On the approval's appeal and its resource (Guardian's ListApprovals).
  std::vector<std::string> appeal_statuses, account_ids, account_types, resource_types,
      resource_urns, provider_types, provider_urns, roles;
  // The approval's step name (Guardian's step_names).
  std::vector<std::string> step_names;
  // Guardian's role and provider urn matchers (ORed with `roles` and
  // `provider_urns`, as applyLikeAndInFilter does).
  StringMatch role_match, provider_urn_match;
  std::string q;
  TimeRange created;  // the appeal's created_at
  std::vector<std::pair<std::string, bool>> order_by;
  int size = 50, offset = 0;
};

struct GrantFilter {
  // Non-empty: only grants of this account (or owner), or on resources
  // whose appeals list this identity as an approver (a non-admin's view).
  std::string visible_to;
  std::string q, owner;
  std::vector<std::string> statuses, account_ids, account_types, resource_ids, roles,
      provider_types, provider_urns, resource_types, resource_urns, owners;
  // Guardian's role and provider urn matchers (ORed with `roles` and
  // `provider_urns`, as applyLikeAndInFilter does).
  StringMatch role_match, provider_urn_match;
  // > 0 and statuses contains "active": expiration_date within now .. now+N
  // days (Guardian's grant_repository.go).
  int expiring_in_days = 0;
  // Fill each returned grant's pending_appeal_id from a pending appeal of
  // the same account, resource and role (Guardian's core/grant List).
  bool with_pending_appeal = false;
  TimeRange created;
  std::vector<std::pair<std::string, bool>> order_by;
  int size = 50, offset = 0;
};

// One approval summary item (GenerateApprovalSummaries): the approvals
// (current revisions only) matching every non-empty filter, grouped by
// `group_columns` (SQL expressions from the core's allow-list, never from
// the request).
struct ApprovalSummaryQuery {
  std::vector<std::string> statuses, appeal_statuses, account_ids, account_types, resource_types,
      resource_urns, provider_types, provider_urns, roles, step_names;
  // Any of these is among the approval's approvers.
  std::vector<std::string> approvers;
  std::vector<std::string> group_columns;
};

class AppealRepository {
 public:
  virtual ~AppealRepository() = default;
  // Runs `fn` in one transaction; commits when it returns OK.
  virtual absl::Status InTransaction(const std::function<absl::Status(AccessTx&)>& fn) = 0;
  // AccessTx::InsertAppealUnlessActiveGrant on its own: true when the appeal
  // (ids assigned), its approvals and its audit row were written; false,
  // writing nothing, when an active grant exists for its account, resource
  // and role; AlreadyExists when a pending appeal does. The create-appeal
  // fast path: a store that writes it as one statement needs no explicit
  // transaction (PostgreSQL: one round trip instead of BEGIN/INSERT/COMMIT).
  // `events` as in AccessTx::InsertAppealUnlessActiveGrant.
  virtual absl::StatusOr<bool> InsertAppealUnlessActiveGrant(
      pb::Appeal* appeal, AuditEntry audit, std::vector<AccessEvent> events = {}) {
    bool inserted = false;
    absl::Status st = InTransaction([&](AccessTx& tx) -> absl::Status {
      auto r = tx.InsertAppealUnlessActiveGrant(appeal, std::move(audit), std::move(events));
      if (!r.ok()) return r.status();
      inserted = *r;
      return absl::OkStatus();
    });
    if (!st.ok()) return st;
    return inserted;
  }
  // Appeals with approvals and resource expanded; `total` counts all matches.
  virtual absl::StatusOr<std::vector<pb::Appeal>> ListAppeals(const AppealFilter& f,
                                                               int* total) = 0;
  // Approvals with their appeal (and its resource) expanded.
  virtual absl::StatusOr<std::vector<pb::Approval>> ListApprovals(const ApprovalFilter& f,
                                                                   int* total) = 0;
  // Grants with resource and appeal expanded.
  virtual absl::StatusOr<std::vector<pb::Grant>> ListGrants(const GrantFilter& f, int* total) = 0;
  // NotFound.
  virtual absl::StatusOr<pb::Grant> GetGrant(const std::string& id) = 0;
  // True when `identity` is listed as an approver on any approval of an
  // appeal for resource `resource_id` (who may see that resource's grants).
  virtual absl::StatusOr<bool> IsResourceApprover(const std::string& resource_id,
                                                  const std::string& identity) = 0;
  // The comments of appeal `appeal_id` by created_at (newest first when
  // `newest_first`), ties by id.
  virtual absl::StatusOr<std::vector<pb::AppealComment>> ListComments(
      const std::string& appeal_id, bool newest_first) = 0;
  // The audit rows of appeal `appeal_id` (data.appeal_id or data.id) whose
  // action is one of `actions`, newest first, ties by id (Guardian's
  // audit_log_repository List with AppealID, ordered by timestamp DESC).
  virtual absl::StatusOr<std::vector<pb::AuditLog>> ListAppealAudit(
      const std::string& appeal_id, const std::vector<std::string>& actions) = 0;
  // Inserts `comment` (appeal_id, created_by, body) with an audit row;
  // assigns id and timestamps.
  virtual absl::Status InsertComment(pb::AppealComment* comment, const AuditEntry& audit) = 0;
  // The distinct roles of the active grants owned by `owner`, sorted
  // (Guardian's GrantRepository.ListUserRoles, restricted to active grants).
  virtual absl::StatusOr<std::vector<std::string>> ListUserRoles(const std::string& owner) = 0;
  // The groups of `query`: each group's values (in group_columns order)
  // and its count, ordered by the values.
  virtual absl::StatusOr<std::vector<std::pair<std::vector<std::string>, int>>>
  SummarizeApprovals(const ApprovalSummaryQuery& query) = 0;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_APPEAL_REPOSITORIES_H_
