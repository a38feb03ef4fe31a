// Grants (Guardian's core/grant): reads, owner and expiration updates,
// revoke (single and bulk), restore, import from the provider and the
// caller's roles. Revoking and granting in the provider go through the
// shared GrantApplier.
#ifndef SLUICE_SERVER_ACCESS_CORE_GRANT_GRANT_SERVICE_H_
#define SLUICE_SERVER_ACCESS_CORE_GRANT_GRANT_SERVICE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/access/core/actor.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/core/grant_applier.h"
#include "server/access/core/policy_service.h"
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

// At most this many grants are revoked by one bulk revoke call; the caller
// repeats the call for the rest.
inline constexpr int kMaxBulkRevoke = 1000;

// The longest a restored grant may last when an admin gives it a new
// expiration_date, counted from the restore (security review F-H1): what a
// new appeal for the same access could get.
struct ExpirationCap {
  absl::Duration max;
  std::string source;  // where `max` comes from, for the error message
};

class GrantService {
 public:
  // Borrowed pointers must outlive the service. `limits` caps a restored or
  // shortened grant's new expiration (RestoreCapOf).
  GrantService(GrantApplier* applier, AppealRepository* appeals, ResourceRepository* resources,
               PolicyService* policies, ProviderService* providers,
               const ProviderRegistry* registry, AppealLimits limits = {})
      : applier_(applier), appeals_(appeals), resources_(resources), policies_(policies),
        providers_(providers), registry_(registry), limits_(limits) {}

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

  // Revokes the active grants matching `selector` (at most kMaxBulkRevoke,
  // oldest first). `account_ids` is required (InvalidArgument), as in
  // Guardian's BulkRevoke. Each grant is locked, revoked in the provider and
  // recorded in its own transaction, so a failure leaves that one grant
  // active in both places and the others revoked in both. Authorization
  // (admins only) is the caller's job.
  absl::StatusOr<RevokeManyResult> RevokeMany(const GrantSelector& selector,
                                              const std::string& actor,
                                              const std::string& reason);
  // The distinct roles of `owner`'s active grants, sorted (Guardian's
  // ListUserRoles).
  absl::StatusOr<std::vector<std::string>> ListUserRoles(const std::string& owner);
  // For the grant owner-update path (PATCH /grants/{id}): writes the
  // grant.owner_changed event (OwnerChangedEvent: old and new owner) in the
  // caller's transaction `tx`; `grant` is the grant after the change, with
  // its resource and updated_at. Call EventsCommitted() after the commit.
  // Writes nothing when the owner did not change or the type is disabled.
  absl::Status RecordOwnerChange(AccessTx& tx, const pb::Grant& grant,
                                 const std::string& previous_owner, const std::string& actor);

 private:
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

  GrantApplier* applier_;
  AppealRepository* appeals_;
  ResourceRepository* resources_;
  PolicyService* policies_;
  ProviderService* providers_;
  const ProviderRegistry* registry_;
  AppealLimits limits_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_GRANT_GRANT_SERVICE_H_
