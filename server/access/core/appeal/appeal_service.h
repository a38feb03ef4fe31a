// Appeals (issue 5; Guardian's core/appeal): creation with validation and
// requirements, reads, cancel, revoke by appeal, patch and comments. The
// approval actions are ApprovalService's (core/approval), the grant
// lifecycle GrantService's (core/grant), expiry and reconciliation
// ReconcileService's (core/reconcile); granting in the provider is the
// shared GrantApplier's (core/grant_applier.h).
#ifndef SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_H_
#define SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/access/core/actor.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/core/grant_applier.h"
#include "server/access/core/iam_client.h"
#include "server/access/core/policy_service.h"
#include "server/access/core/provider_service.h"

namespace sluice::access {

// At most this many resources per CreateAppeal (each costs a provider
// lookup, possibly an IAM call and an advisory lock in one transaction;
// review finding L2). More is InvalidArgument naming `resources`.
inline constexpr int kMaxAppealResources = 100;

// The longest appeal comment accepted (InvalidArgument beyond).
inline constexpr size_t kMaxCommentBytes = 10000;

class AppealService {
 public:
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

  // Borrowed pointers must outlive the service; `applier` also gives the
  // clock. `iam` may be null (policies with an iam config then fail with
  // FailedPrecondition).
  AppealService(GrantApplier* applier, AppealRepository* appeals, ResourceRepository* resources,
                PolicyService* policies, ProviderService* providers,
                const ProviderRegistry* registry, IamClient* iam, AppealLimits limits = {})
      : applier_(applier), appeals_(appeals), resources_(resources), policies_(policies),
        providers_(providers), registry_(registry), iam_(iam), limits_(limits) {}

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
  // The audit events of an appeal `actor` may read (GetFor's rule and
  // codes), newest first, as Guardian's ListActivities
  // (core/appeal/activity.go): Sluice's appeal.cancel, approve, reject,
  // revoke, add_approver, delete_approver and patch rows, typed with
  // Guardian's audit keys (appeal.addApprover, appeal.deleteApprover,
  // appeal.update) and with data.appeal_id set (appeal_activity.cc).
  absl::StatusOr<std::vector<pb::AppealActivity>> ListActivities(const std::string& appeal_id,
                                                                 const Actor& actor);

  // Requirements (issue 17; appeal_requirements.cc), for the approval path
  // (ApprovalService::Act) as for creation and patch.
  //
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
  // Prepares additional appeal `add` for the account of `appeal` (resource
  // by id or identifier).
  absl::StatusOr<Prepared> PrepareAdditional(const pb::AdditionalAppeal& add,
                                             const pb::Appeal& appeal);
  // Stores `appeal`'s requirement_failures on its row.
  void RecordRequirementFailures(const pb::Appeal& appeal);

  GrantApplier* applier_;
  AppealRepository* appeals_;
  ResourceRepository* resources_;
  PolicyService* policies_;
  ProviderService* providers_;
  const ProviderRegistry* registry_;
  IamClient* iam_;
  AppealLimits limits_;
};

// Everything one new appeal needs, fetched before the transaction.
struct AppealService::Prepared {
  pb::Appeal appeal;
  pb::Policy policy;
  pb::ProviderConfig config;
  std::string extension_window;       // policy's, else provider's
  std::vector<RequiredAppeal> hard;   // created with the appeal when it is active at once
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_APPEAL_APPEAL_SERVICE_H_
