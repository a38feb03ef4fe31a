// Appeals, approvals and grants (issue 5): creation with validation, the
// approval flow, granting in the provider (with compensation), cancel,
// revoke, bulk revoke, approver edits, the expiry job and the list queries.
#ifndef SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_H_
#define SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "server/access/core/access_events.h"
#include "server/access/core/actor.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/core/iam_client.h"
#include "server/access/core/policy_service.h"
#include "server/access/core/provider_journal.h"
#include "server/access/core/provider_service.h"

namespace sluice::access {

// The outcome of a bulk revoke: each grant is revoked on its own.
struct RevokeManyResult {
  std::vector<pb::Appeal> revoked;         // appeals whose grants were revoked
  std::vector<pb::Grant> grants;           // the revoked grants, as recorded
  std::vector<pb::RevokeFailure> failed;   // grants left active, with the error
};

// Which of a provider's resources an import looks at (Guardian's
// ImportFromProviderCriteria): by id when resource_ids is set, else by type
// and urn (empty lists match everything).
struct ImportCriteria {
  std::string provider_id;
  std::vector<std::string> resource_ids, resource_types, resource_urns;
};

// What an import found (and, when applied, did).
struct ImportResult {
  std::vector<pb::Grant> grants;  // access without a grant: new grants, source "import"
  std::vector<pb::Grant> drift;   // active grants whose access the provider lacks
  int unchanged = 0;              // accesses matching an active grant
  bool applied = false;
};

// How one grant revoke is carried out (Guardian's grant.Option).
struct RevokeOptions {
  // No grant.revoked event (Guardian's SkipNotifications).
  bool skip_notification = false;
  // The provider is not called; the grant is recorded inactive here with
  // status_in_provider unchanged (Guardian's SkipRevokeAccessInProvider).
  bool skip_revoke_in_provider = false;
};

// At most this many grants are revoked by one bulk revoke call; the caller
// repeats the call for the rest.
inline constexpr int kMaxBulkRevoke = 1000;

// What one reconciliation run did with the in-flight provider operations.
struct ReconcileReport {
  int examined = 0;
  int confirmed = 0;  // the database already agreed with the provider
  int revoked = 0;    // access granted without a record: revoked in the provider
  int completed = 0;  // a revoke interrupted before its record: recorded now
  int regranted = 0;  // an interrupted revoke of access a newer grant needs: granted again
  int failed = 0;     // could not be settled this time (retried next run)
  std::vector<std::string> details;  // one line per operation: "<op id> <op> <outcome> ..."
};

// At most this many resources per CreateAppeal (each costs a provider
// lookup, possibly an IAM call and an advisory lock in one transaction;
// review finding L2). More is InvalidArgument naming `resources`.
inline constexpr int kMaxAppealResources = 100;

// The longest appeal comment accepted (InvalidArgument beyond).
inline constexpr size_t kMaxCommentBytes = 10000;

// At most this many summary items per GenerateApprovalSummaries call (each
// is one grouped query).
inline constexpr size_t kMaxSummaryItems = 20;

// Configurable limits of appeal creation (module config `access:`).
struct AppealLimits {
  // The longest options.duration accepted when the policy lists no
  // duration_options (access.max_grant_duration; review finding L8). A
  // policy's own duration_options are the admin's explicit choice and are
  // not capped.
  absl::Duration max_grant_duration = absl::Hours(2160);  // 90 days
};

// The longest a restored grant may last when an admin gives it a new
// expiration_date, counted from the restore (security review F-H1): what a
// new appeal for the same access could get.
struct ExpirationCap {
  absl::Duration max;
  std::string source;  // where `max` comes from, for the error message
};

class AppealService {
 public:
  // Borrowed pointers must outlive the service. `iam` may be null (policies
  // with an iam config then fail with FailedPrecondition).
  AppealService(AppealRepository* appeals, ResourceRepository* resources,
                PolicyService* policies, ProviderService* providers,
                const ProviderRegistry* registry, IamClient* iam,
                std::function<absl::Time()> clock = &absl::Now, AppealLimits limits = {})
      : appeals_(appeals), resources_(resources), policies_(policies), providers_(providers),
        registry_(registry), iam_(iam), clock_(std::move(clock)), limits_(limits) {}

  // One appeal per listed resource (1 to kMaxAppealResources), in one
  // transaction (all or nothing).
  // Error codes per issue 5: NotFound / FailedPrecondition (resource,
  // resource type, IAM), InvalidArgument (resources count, role, account
  // type, account id refused by the provider's ValidateAccount, duration
  // missing when permanent access is not allowed, not among the policy's
  // duration_options, or longer than limits.max_grant_duration when the
  // policy has none; approvers), AlreadyExists (pending appeal, active
  // grant outside the extension window), PermissionDenied (on behalf
  // without allow_on_behalf). With request.dry_run the appeals that would
  // be stored are returned (no ids) and nothing is written, granted,
  // emitted or audited (Guardian's CreateWithDryRun).
  absl::StatusOr<std::vector<pb::Appeal>> Create(const pb::CreateAppealRequest& request,
                                                 const std::string& creator);
  // InvalidArgument for a malformed UUID, NotFound. No authorization: for
  // internal use and admins.
  absl::StatusOr<pb::Appeal> Get(const std::string& id);
  // Get as `actor`: PermissionDenied unless an admin, the creator, the
  // account or an approver of the appeal.
  absl::StatusOr<pb::Appeal> GetFor(const std::string& id, const Actor& actor);
  // The appeals matching `filter` (built by the API from the request,
  // with visible_to / created_by set for non-admins); `total` counts all.
  absl::StatusOr<std::vector<pb::Appeal>> List(const AppealFilter& filter, int* total);
  // Creator only (PermissionDenied); pending only (FailedPrecondition).
  absl::StatusOr<pb::Appeal> Cancel(const std::string& id, const std::string& actor);
  // Active only (FailedPrecondition); revokes in the provider. An admin or
  // the grant's own account only (PermissionDenied).
  absl::StatusOr<pb::Appeal> Revoke(const std::string& id, const Actor& actor,
                                    const std::string& reason);
  // Revokes the active grants matching `selector` (at most kMaxBulkRevoke,
  // oldest first). `account_ids` is required (InvalidArgument), as in
  // Guardian's BulkRevoke. Each grant is locked, revoked in the provider and
  // recorded in its own transaction, so a failure leaves that one grant
  // active in both places and the others revoked in both. Authorization
  // (admins only) is the caller's job.
  absl::StatusOr<RevokeManyResult> RevokeMany(const GrantSelector& selector,
                                              const std::string& actor,
                                              const std::string& reason);
  // approve|reject step `approval_name` of appeal `id` as `actor` (see the
  // issue for the codes). Row-locked: concurrent calls give one transition.
  // PermissionDenied when `actor` is not an approver of the step, or is the
  // appeal's account or creator and the step does not set
  // allow_self_approval.
  absl::StatusOr<pb::Appeal> Act(const std::string& id, const std::string& approval_name,
                                 const std::string& action, const std::string& actor,
                                 const std::string& reason);
  // Adds or removes an approver of a pending step (`approval` is a UUID or a
  // step name). Removing the last approver is FailedPrecondition.
  absl::StatusOr<pb::Appeal> AddApprover(const std::string& appeal_id, const std::string& approval,
                                         const std::string& email, const std::string& actor);
  absl::StatusOr<pb::Appeal> DeleteApprover(const std::string& appeal_id,
                                            const std::string& approval, const std::string& email,
                                            const std::string& actor);
  // The approvals matching `filter` (approver set for non-admins).
  absl::StatusOr<std::vector<pb::Approval>> ListApprovals(const ApprovalFilter& filter,
                                                          int* total);
  // The grants matching `filter` (visible_to set for non-admins).
  absl::StatusOr<std::vector<pb::Grant>> ListGrants(const GrantFilter& filter, int* total);
  // NotFound; PermissionDenied unless `actor` is an admin, the grant's
  // account or owner, or an approver of the grant's resource.
  absl::StatusOr<pb::Grant> GetGrant(const std::string& id, const Actor& actor);
  // Grant lifecycle (grant/grant_actions.cc; Guardian's grant API). Update,
  // revoke and restore need the grant's owner or an admin
  // (PermissionDenied); a malformed id is InvalidArgument, an unknown one
  // NotFound.
  //
  // Sets the grant's owner (Guardian's UpdateGrant: the only updatable
  // field). InvalidArgument naming `owner` when empty, when it holds a
  // control character, or when it is neither an email address nor the
  // grant's account id (security review F-L7). Fires grant.owner_changed
  // when the owner changes.
  absl::StatusOr<pb::Grant> UpdateGrantOwner(const std::string& id, const std::string& owner,
                                             const Actor& actor);
  // PATCH /grants/{id} (grant/grant_update.cc): the owner (as UpdateGrantOwner)
  // and/or a new expiration_date with its reason. The expiration is for
  // admins only (PermissionDenied naming expiration_date) and follows
  // Guardian's GrantUpdate.Validate: the grant active (FailedPrecondition),
  // the date in the future and not after the current one, the reason
  // required; and within RestoreCapOf's cap, counted from now
  // (InvalidArgument naming expiration_date or expiration_date_reason).
  // The grant becomes non-permanent; an audit row "grant.update_expiration"
  // keeps the previous and new dates and the reason. InvalidArgument naming
  // owner when neither is given.
  absl::StatusOr<pb::Grant> UpdateGrant(const std::string& id, const std::string& owner,
                                        std::optional<absl::Time> expiration,
                                        const std::string& expiration_reason,
                                        const Actor& actor);
  // Revokes one active grant in the provider and here (FailedPrecondition
  // unless active). Its appeal stays `approved` (as Guardian's RevokeGrant)
  // and records revoked_by/at/reason; the grant's status says the access is
  // gone.
  // opts.skip_revoke_in_provider needs an admin (PermissionDenied naming
  // it).
  absl::StatusOr<pb::Grant> RevokeGrant(const std::string& id, const Actor& actor,
                                        const std::string& reason, RevokeOptions opts = {});
  // Bulk revoke by filters (POST /grants/revoke): like RevokeMany, but any
  // one filter suffices; none is InvalidArgument naming the filters.
  // Authorization (admins only) is the caller's job.
  absl::StatusOr<RevokeManyResult> RevokeGrants(const GrantSelector& selector,
                                                const std::string& actor,
                                                const std::string& reason);
  // Grants an inactive grant's access again in the provider (journaled and
  // compensated like any grant) and makes it active with restored_by/at/
  // reason set; writes grant.restored (to its account and owner) and an
  // audit row with the resulting expiration_date. Its appeal is unchanged.
  // Rules (security review F-H1; Guardian's Grant.Restore refuses expired
  // grants and takes no new date):
  //  - the owner may only undo their own revoke (revoked_by == caller),
  //    before the grant's own expiration_date, keeping that date: a
  //    grant revoked by an admin, another caller or the expiry job
  //    ("system") is PermissionDenied, an expired one FailedPrecondition,
  //    and any `expiration` PermissionDenied naming expiration_date;
  //  - an admin may restore any of them; an expired grant needs a new
  //    `expiration` (InvalidArgument naming expiration_date otherwise),
  //    and a new `expiration` must be in the future and within the cap
  //    (InvalidArgument naming expiration_date and the cap): the longest of
  //    the resource's policy's duration_options, or, when it lists none,
  //    limits.max_grant_duration, counted from now.
  // FailedPrecondition when it is active, its resource is deleted or
  // another active grant holds the same access. InvalidArgument naming
  // `reason` when empty.
  absl::StatusOr<pb::Grant> RestoreGrant(const std::string& id, const Actor& actor,
                                         const std::string& reason,
                                         std::optional<absl::Time> expiration);
  // Imports the provider's access (Guardian's ImportFromProvider): a grant
  // (source "import", permanent, no appeal or owner) for each role whose
  // permissions an account holds on a resource without an active grant for
  // it; active grants whose access is missing are reported as drift (and,
  // when `apply`, marked status_in_provider "inactive"). Nothing is written
  // unless `apply`. NotFound for the provider; FailedPrecondition when its
  // plugin cannot list access. Authorization (admins only) is the caller's.
  absl::StatusOr<ImportResult> ImportGrants(const ImportCriteria& criteria, bool apply,
                                            const std::string& actor);

  // Issue 28's routes (appeal_patch.cc).
  //
  // Changes pending appeal request.id() (Guardian's Patch): the set fields
  // of account_id, account_type, resource_id, role, options, details and
  // description that differ replace the appeal's. The appeal is validated
  // as on create (same codes), its policy's flow starts again (the old
  // approvals become stale), revision grows by one, and a flow that
  // approves at once grants access. `actor` must be its creator
  // (PermissionDenied); pending only and at least one change
  // (FailedPrecondition); AlreadyExists when the new access has a pending
  // appeal or an active grant outside the extension window; Aborted when
  // another patch won the race.
  absl::StatusOr<pb::Appeal> Patch(const pb::PatchAppealRequest& request,
                                   const std::string& actor);
  // The comments of an appeal `actor` may read (GetFor's rule and codes);
  // order_by "created_at[:asc]" (default) or "created_at:desc", anything
  // else InvalidArgument.
  absl::StatusOr<std::vector<pb::AppealComment>> ListComments(
      const std::string& appeal_id, const std::vector<std::string>& order_by, const Actor& actor);
  // Adds a comment by `actor` on an appeal they may read. InvalidArgument
  // naming `body` when empty or longer than kMaxCommentBytes.
  absl::StatusOr<pb::AppealComment> CreateComment(const std::string& appeal_id,
                                                  const std::string& body, const Actor& actor);
  // The distinct roles of `owner`'s active grants, sorted (Guardian's
  // ListUserRoles).
  absl::StatusOr<std::vector<std::string>> ListUserRoles(const std::string& owner);
  // Appends manual steps to pending appeal `appeal_id` (Guardian's
  // AddApprovalStep; approval/approval_steps.cc): each needs a name not already on
  // the appeal and at least one approver email (InvalidArgument naming
  // steps[i]); `stage` and an `index` among the existing steps are
  // InvalidArgument (Sluice's flow is sequential). A step after an
  // undecided one is blocked. FailedPrecondition unless pending; NotFound.
  // Authorization (admins only) is the caller's.
  absl::StatusOr<pb::Appeal> AddApprovalSteps(
      const std::string& appeal_id,
      const google::protobuf::RepeatedPtrField<pb::ApprovalStepInput>& steps,
      const std::string& actor);
  // Replaces the details (when `details` is non-null) of the pending or
  // blocked step `approval_id` (UUID or name) of pending appeal `appeal_id`
  // (Guardian's UpdateApprovalStep). NotFound for the step;
  // FailedPrecondition otherwise. Authorization (admins only) is the caller's.
  absl::StatusOr<pb::Appeal> UpdateApprovalStep(const std::string& appeal_id,
                                                const std::string& approval_id,
                                                const google::protobuf::Struct* details,
                                                const std::string& actor);
  // One SummaryResult per summary item (Guardian's
  // GenerateApprovalSummaries; approval/approval_summaries.cc): the approvals
  // matching the item's filters (statuses, appeal_statuses, account_id(s),
  // account_types, resource_types, resource_urns, provider_types,
  // provider_urns, roles, step_names, created_by = an approver), counted per
  // group of its group_bys ("approval.status", "appeal.role",
  // "resource.provider_type", ...). A non-empty `approver` restricts every
  // item to that approver's approvals. InvalidArgument naming an unknown
  // filter or group_by, missing group_bys, or more than kMaxSummaryItems.
  absl::StatusOr<google::protobuf::Map<std::string, pb::SummaryResult>> SummarizeApprovals(
      const google::protobuf::Map<std::string, pb::SummaryParameters>& items,
      const std::string& approver);

  // The expiry job: revokes every active grant past its expiration date,
  // each in its own transaction (provider failures are logged and retried
  // next run). Returns how many were expired.
  absl::StatusOr<int> ExpireGrants();

  // Records every provider call in `journal` (borrowed; may be null, then
  // nothing is journaled and Reconcile does nothing).
  void set_journal(ProviderJournal* journal) { journal_ = journal; }

  // Access events (issue 17, section 1): which types are written to the
  // outbox, and `committed` (may be empty), called after a commit that may
  // have written events (the dispatcher's Wake). Default: every type, no
  // wake-up.
  void set_events(EventPolicy policy, std::function<void()> committed) {
    event_policy_ = std::move(policy);
    events_committed_ = std::move(committed);
  }
  // For the grant owner-update path (PATCH /grants/{id}): writes the
  // grant.owner_changed event (OwnerChangedEvent: old and new owner) in the
  // caller's transaction `tx`; `grant` is the grant after the change, with
  // its resource and updated_at. Call EventsCommitted() after the commit.
  // Writes nothing when the owner did not change or the type is disabled.
  absl::Status RecordOwnerChange(AccessTx& tx, const pb::Grant& grant,
                                 const std::string& previous_owner, const std::string& actor);
  // Wakes the event dispatcher (after a commit that wrote events).
  void EventsCommitted() {
    if (events_committed_) events_committed_();
  }

  // The reconciliation job (security review M2): settles every journaled
  // provider operation still in flight after `min_age` (a crash or an
  // ambiguous COMMIT left it), under the access's lock: a grant without an
  // active grant row is revoked in the provider; a revoke whose grant is
  // still active is completed. Runs periodically and on demand
  // (GrantService.ReconcileGrants).
  absl::StatusOr<ReconcileReport> Reconcile(absl::Duration min_age);

 private:
  // Guardian's checkExtensionEligibility: OK when `active` is empty, or when
  // it expires within `extension_window` (the policy's
  // allow_active_access_extension_in) from `now`; AlreadyExists naming the
  // grant otherwise (permanent grants are never inside the window). Serves
  // appeal creation and PatchAppeal.
  static absl::Status CheckExtensionEligibility(const pb::Appeal& a,
                                                const std::optional<pb::Grant>& active,
                                                const std::string& extension_window,
                                                absl::Time now);
  struct Prepared;
  // One additional appeal of a hard requirement (Requirement.on_failure
  // "hard"), prepared before the transaction that activates the appeal
  // requiring it, because preparing reads through pooled connections.
  struct RequiredAppeal {
    int requirement = 0;  // index into policy.requirements
    int index = 0;        // index into that requirement's appeals
    absl::Status error;   // why it could not be prepared
    std::shared_ptr<Prepared> prepared;  // set when error is OK
  };
  // Everything one new appeal needs, fetched before the transaction.
  struct Prepared {
    pb::Appeal appeal;
    pb::Policy policy;
    pb::ProviderConfig config;
    std::string extension_window;       // policy's, else provider's
    std::vector<RequiredAppeal> hard;   // created with the appeal when it is active at once
  };
  // Validates one requested resource and builds its appeal. `policy_override`
  // (may be null) replaces the policy the resource's provider config names
  // (AdditionalAppeal.policy; version 0 = latest). `system` appeals (the
  // additional appeals of requirements) skip the on-behalf, IAM and
  // question checks.
  absl::StatusOr<Prepared> Prepare(const pb::AppealResourceRequest& r, const std::string& account_id,
                                   const std::string& account_type, const std::string& description,
                                   const std::string& creator, bool system,
                                   const pb::PolicyRef* policy_override = nullptr);
  absl::StatusOr<std::vector<pb::Appeal>> CreatePrepared(std::vector<Prepared> prepared,
                                                         const std::string& creator);
  // The one appeal insert of creation, on its own (`tx` null: the fast
  // path) or inside `tx`: the appeal, its approvals and its audit row unless
  // an active grant exists for the same access (false then); on the fast
  // path also the appeal's enabled access events (CreatedEvents).
  // AlreadyExists naming the access when a pending appeal exists.
  absl::StatusOr<bool> InsertUnlessGranted(AccessTx* tx, pb::Appeal* appeal,
                                           const std::string& creator);
  // `p` when an active grant for the same access may exist (locked): an
  // extension inside the window is inserted and linked from the grant
  // (pending_appeal_id); outside it, AlreadyExists naming the grant.
  absl::Status InsertBesideGrant(AccessTx& tx, Prepared& p, const std::string& creator,
                                 absl::Time now);
  // A provider call made inside a transaction, settled after it ends.
  struct PendingOp {
    std::string id;                            // journal id ("" without a journal)
    std::function<absl::Status()> compensate;  // undoes the call; empty: nothing to undo
  };
  // Runs `body` in a transaction, then settles the provider calls it adds
  // to its `ops`:
  // committed on success; compensated after a definite rollback (left in
  // flight for Reconcile when compensation fails); left in flight when the
  // COMMIT itself failed, because it may have committed.
  absl::Status RunAndSettle(
      const std::function<absl::Status(AccessTx&, std::vector<PendingOp>*)>& body);
  // Journals `op` as in flight ("" without a journal).
  absl::StatusOr<std::string> JournalBegin(ProviderOperation op);
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
                        const pb::Policy& policy, std::vector<PendingOp>* ops);
  // Revokes in the provider and records it (grant inactive; its approved
  // appeal keeps its status and gets revoked_by/at/reason; audit row); the
  // call is added to `ops`.
  absl::Status Deactivate(AccessTx& tx, pb::Grant* grant, const pb::ProviderConfig& config,
                          const std::string& actor, const std::string& reason,
                          const std::string& audit_action, std::vector<PendingOp>* ops,
                          RevokeOptions opts = {});
  // Revokes `candidate` (an active grant with its resource) in its own
  // transaction under the access's lock; FailedPrecondition when it is no
  // longer the active grant. `configs` by "<provider type>/<urn>".
  absl::Status RevokeOne(const pb::Grant& candidate,
                         const std::map<std::string, pb::ProviderConfig>& configs,
                         const std::string& actor, const std::string& reason,
                         const std::string& audit_action, RevokeOptions opts = {});
  // The revoke loop of RevokeMany and RevokeGrants (selector validated).
  absl::StatusOr<RevokeManyResult> RevokeSelected(const GrantSelector& selector,
                                                  const std::string& actor,
                                                  const std::string& reason);
  // Grant lifecycle helpers (grant/grant_actions.cc). The grant `id` with its
  // resource, when `actor` is its owner or an admin (`what` names the action
  // in the PermissionDenied message).
  absl::StatusOr<pb::Grant> GrantForOwner(const std::string& id, const Actor& actor,
                                          const char* what);
  // The cap on an admin's new expiration for restoring `grant` (with its
  // resource) under `config`: the shorter of limits_.max_grant_duration and
  // the longest duration_options of the policy that the resource's type
  // names in `config` (issue 26: both caps hold).
  absl::StatusOr<ExpirationCap> RestoreCapOf(const pb::Grant& grant,
                                             const pb::ProviderConfig& config);
  // Writes the new grants of an import and marks the drift (apply mode).
  absl::Status ApplyImport(ImportResult* result, const std::string& actor);
  // Settles one journaled operation (Reconcile's body). Returns the outcome.
  absl::StatusOr<const char*> ReconcileOne(const ProviderOperation& op);
  // Requirements (appeal_requirements.cc). Prepares additional appeal
  // `add` for the account of `appeal` (resource by id or identifier).
  absl::StatusOr<Prepared> PrepareAdditional(const pb::AdditionalAppeal& add,
                                             const pb::Appeal& appeal);
  // The additional appeals of the hard requirements `appeal` triggers, each
  // prepared or with its preparation error. Empty without hard requirements.
  std::vector<RequiredAppeal> PrepareHardRequirements(const pb::Appeal& appeal,
                                                      const pb::Policy& policy);
  // Inside the transaction that made `appeal` active: inserts (and, when
  // their own flow approves them at once, activates) the prepared hard
  // additional appeals. An existing pending appeal or active grant for the
  // same access satisfies one. Any other failure, a preparation error or an
  // additional appeal rejected by its flow is FailedPrecondition naming
  // requirements[i].appeals[j], which rolls the approval back.
  absl::Status InsertHardRequirements(AccessTx& tx, const pb::Appeal& appeal,
                                      std::vector<RequiredAppeal>* hard,
                                      std::vector<PendingOp>* ops);
  // After the commit that made `appeal` active: creates the additional
  // appeals of its soft requirements (each in its own transaction), then the
  // requirements of the hard ones created with it (as soft). Failures other
  // than AlreadyExists are logged and stored in appeal->requirement_failures.
  void CreateSoftRequirements(pb::Appeal* appeal, const pb::Policy& policy,
                              std::vector<RequiredAppeal>* hard);
  // Stores `appeal`'s requirement_failures on its row.
  void RecordRequirementFailures(const pb::Appeal& appeal);
  absl::StatusOr<pb::Appeal> Expand(pb::Appeal appeal);
  // Writes the enabled events of `events` (with recipients) in `tx`.
  absl::Status EmitEvents(AccessTx& tx, std::vector<AccessEvent> events);
  absl::StatusOr<pb::Appeal> EditApprovers(const std::string& appeal_id, const std::string& approval,
                                           const std::string& email, const std::string& actor,
                                           bool add);

  AppealRepository* appeals_;
  ResourceRepository* resources_;
  PolicyService* policies_;
  ProviderService* providers_;
  const ProviderRegistry* registry_;
  IamClient* iam_;
  std::function<absl::Time()> clock_;
  ProviderJournal* journal_ = nullptr;
  AppealLimits limits_;
  EventPolicy event_policy_;
  std::function<void()> events_committed_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_H_
