// What the appeal, approval, grant and reconcile services share (issue 28
// item 7): carrying a grant or a revoke out in the provider and recording it
// in one transaction, journaled and compensated (security review M2), and
// writing access events. Guardian keeps the equivalent in its grant service
// and provider service; Sluice's four services borrow one GrantApplier.
#ifndef SLUICE_SERVER_ACCESS_CORE_GRANT_APPLIER_H_
#define SLUICE_SERVER_ACCESS_CORE_GRANT_APPLIER_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "server/access/core/access_events.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/core/provider_journal.h"
#include "server/access/core/provider_service.h"

namespace sluice::access {

// How one grant revoke is carried out (Guardian's grant.Option).
struct RevokeOptions {
  // No grant.revoked event (Guardian's SkipNotifications).
  bool skip_notification = false;
  // The provider is not called; the grant is recorded inactive here with
  // status_in_provider unchanged (Guardian's SkipRevokeAccessInProvider).
  bool skip_revoke_in_provider = false;
};

// Configurable limits of appeal creation and grant edits (module config
// `access:`).
struct AppealLimits {
  // The longest options.duration accepted when the policy lists no
  // duration_options (access.max_grant_duration; review finding L8). A
  // policy's own duration_options are the admin's explicit choice and are
  // not capped. Also caps a restored or shortened grant's new expiration.
  absl::Duration max_grant_duration = absl::Hours(2160);  // 90 days
};

// RevokeOne's FailedPrecondition message when the candidate grant is no
// longer the active one (the expiry job skips those silently).
inline constexpr char kNoLongerActive[] = "no longer active (revoked or replaced meanwhile)";

// A provider call made inside a transaction, settled after it ends.
struct PendingOp {
  std::string id;                            // journal id ("" without a journal)
  std::function<absl::Status()> compensate;  // undoes the call; empty: nothing to undo
};

class GrantApplier {
 public:
  // Borrowed pointers must outlive the applier. `clock` is the time every
  // service sharing this applier uses.
  GrantApplier(AppealRepository* appeals, ResourceRepository* resources,
               const ProviderRegistry* registry, std::function<absl::Time()> clock = &absl::Now)
      : appeals_(appeals), resources_(resources), registry_(registry), clock_(std::move(clock)) {}

  // The current time of the shared clock.
  absl::Time Now() const { return clock_(); }

  // Records every provider call in `journal` (borrowed; may be null, then
  // nothing is journaled and reconciliation does nothing).
  void set_journal(ProviderJournal* journal) { journal_ = journal; }
  ProviderJournal* journal() const { return journal_; }

  // Access events (issue 17, section 1): which types are written to the
  // outbox, and `committed` (may be empty), called after a commit that may
  // have written events (the dispatcher's Wake). Default: every type, no
  // wake-up.
  void set_events(EventPolicy policy, std::function<void()> committed) {
    event_policy_ = std::move(policy);
    events_committed_ = std::move(committed);
  }
  // The enabled event types (for writes that carry their events themselves).
  const EventPolicy& event_policy() const { return event_policy_; }
  // Wakes the event dispatcher (after a commit that wrote events).
  void EventsCommitted() {
    if (events_committed_) events_committed_();
  }
  // Writes the enabled events of `events` (with recipients) in `tx`.
  absl::Status EmitEvents(AccessTx& tx, std::vector<AccessEvent> events);

  // Runs `body` in a transaction, then settles the provider calls it adds
  // to its `ops`:
  // committed on success; compensated after a definite rollback (left in
  // flight for reconciliation when compensation fails); left in flight when
  // the COMMIT itself failed, because it may have committed.
  absl::Status RunAndSettle(
      const std::function<absl::Status(AccessTx&, std::vector<PendingOp>*)>& body);
  // Journals `op` as in flight ("" without a journal). An error when the
  // journal refuses it: no provider call without a record of it.
  absl::StatusOr<std::string> JournalBegin(ProviderOperation op);
  // Marks journaled operation `id` with `outcome` (kOp*); a failure is
  // logged and left to reconciliation.
  void JournalFinish(const std::string& id, const char* outcome);
  // Sets req->other_grants when `client` UsesOtherGrants: the active grants
  // of req->account_id on `config`'s provider, except `exclude_grant_id`
  // (review F-M3: Tableau's site role is shared by all of them).
  static absl::Status AddOtherGrants(AccessTx& tx, const ProviderClient& client,
                                     const pb::ProviderConfig& config,
                                     const std::string& exclude_grant_id, AccessRequest* req);
  // Grants in the provider and records the grant (replacing an extended one).
  // The caller holds tx.LockAccess for the appeal's account, resource and
  // role, and runs inside RunAndSettle (the call is added to `ops`).
  absl::Status Activate(AccessTx& tx, pb::Appeal* appeal, const pb::ProviderConfig& config,
                        std::vector<PendingOp>* ops);
  // Revokes in the provider and records it (grant inactive; its approved
  // appeal keeps its status and gets revoked_by/at/reason; audit row); the
  // call is added to `ops`.
  absl::Status Deactivate(AccessTx& tx, pb::Grant* grant, const pb::ProviderConfig& config,
                          const std::string& actor, const std::string& reason,
                          const std::string& audit_action, std::vector<PendingOp>* ops,
                          RevokeOptions opts = {});
  // Revokes `candidate` (an active grant with its resource) in its own
  // transaction under the access's lock; FailedPrecondition kNoLongerActive
  // when it is no longer the active grant. `configs` by
  // "<provider type>/<urn>".
  absl::Status RevokeOne(const pb::Grant& candidate,
                         const std::map<std::string, pb::ProviderConfig>& configs,
                         const std::string& actor, const std::string& reason,
                         const std::string& audit_action, RevokeOptions opts = {});

  // Appeal `id` with its resource. InvalidArgument for a malformed UUID,
  // NotFound. No authorization.
  absl::StatusOr<pb::Appeal> GetAppeal(const std::string& id);
  // `appeal` with its resource filled in when missing (and found).
  absl::StatusOr<pb::Appeal> Expand(pb::Appeal appeal);

 private:
  AppealRepository* appeals_;
  ResourceRepository* resources_;
  const ProviderRegistry* registry_;
  std::function<absl::Time()> clock_;
  ProviderJournal* journal_ = nullptr;
  EventPolicy event_policy_;
  std::function<void()> events_committed_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_GRANT_APPLIER_H_
