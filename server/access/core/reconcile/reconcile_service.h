// The background jobs of the access API (Guardian's grant expiry job and
// Sluice's reconciliation, security review M2): revoking expired grants and
// settling provider operations a crash or an ambiguous COMMIT left in flight.
#ifndef SLUICE_SERVER_ACCESS_CORE_RECONCILE_RECONCILE_SERVICE_H_
#define SLUICE_SERVER_ACCESS_CORE_RECONCILE_RECONCILE_SERVICE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/core/grant_applier.h"
#include "server/access/core/provider_service.h"

namespace sluice::access {

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

class ReconcileService {
 public:
  // Borrowed pointers must outlive the service. The journal is the
  // applier's (GrantApplier::set_journal).
  ReconcileService(GrantApplier* applier, AppealRepository* appeals,
                   ResourceRepository* resources, ProviderService* providers,
                   const ProviderRegistry* registry)
      : applier_(applier), appeals_(appeals), resources_(resources), providers_(providers),
        registry_(registry) {}

  // The expiry job: revokes every active grant past its expiration date,
  // each in its own transaction (provider failures are logged and retried
  // next run). Returns how many were expired.
  absl::StatusOr<int> ExpireGrants();

  // The reconciliation job (security review M2): settles every journaled
  // provider operation still in flight after `min_age` (a crash or an
  // ambiguous COMMIT left it), under the access's lock: a grant without an
  // active grant row is revoked in the provider; a revoke whose grant is
  // still active is completed. Runs periodically and on demand
  // (GrantService.ReconcileGrants).
  absl::StatusOr<ReconcileReport> Reconcile(absl::Duration min_age);

 private:
  // Settles one journaled operation (Reconcile's body). Returns the outcome.
  absl::StatusOr<const char*> ReconcileOne(const ProviderOperation& op);

  GrantApplier* applier_;
  AppealRepository* appeals_;
  ResourceRepository* resources_;
  ProviderService* providers_;
  const ProviderRegistry* registry_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_RECONCILE_RECONCILE_SERVICE_H_
