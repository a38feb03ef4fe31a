// The provider operation journal (security review M2): every GrantAccess and
// RevokeAccess is recorded as in flight, and committed, before the provider
// is called, and settled after the database transaction that records its
// effect. A crash, an OOM kill or an ambiguous COMMIT between the two leaves
// the entry in flight, and the reconciliation job (AppealService::Reconcile)
// makes the provider and the database agree again.
#ifndef SLUICE_SERVER_ACCESS_CORE_PROVIDER_JOURNAL_H_
#define SLUICE_SERVER_ACCESS_CORE_PROVIDER_JOURNAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sluice::access {

// One provider call.
struct ProviderOperation {
  std::string id;  // assigned by Begin
  std::string op;  // "grant" or "revoke"
  std::string account_id, account_type, resource_id, role;
  std::vector<std::string> permissions;
  std::string provider_type, provider_urn;
  std::string appeal_id;  // grant: the appeal being activated
  std::string grant_id;   // revoke: the grant being revoked
  absl::Time started_at;  // set by Begin
};

// Outcomes an operation is settled with.
inline constexpr char kOpCommitted[] = "committed";      // the database recorded its effect
inline constexpr char kOpFailed[] = "failed";            // the provider call failed: no effect
inline constexpr char kOpCompensated[] = "compensated";  // undone in the provider after a rollback
inline constexpr char kOpConfirmed[] = "confirmed";      // reconciled: the database already agreed
inline constexpr char kOpRevoked[] = "revoked";          // reconciled: access without a record, revoked
inline constexpr char kOpCompleted[] = "completed";      // reconciled: an interrupted revoke, finished
inline constexpr char kOpRegranted[] = "regranted";      // reconciled: a newer grant needs the access

class ProviderJournal {
 public:
  virtual ~ProviderJournal() = default;
  // Records `op` as in flight and commits it at once, independently of any
  // transaction the caller holds. Returns its id.
  virtual absl::StatusOr<std::string> Begin(const ProviderOperation& op) = 0;
  // Settles operation `id` with `outcome` (one of the kOp* values).
  virtual absl::Status Finish(const std::string& id, const std::string& outcome) = 0;
  // Operations still in flight that started at or before `before`, oldest first,
  // at most `limit`.
  virtual absl::StatusOr<std::vector<ProviderOperation>> InFlight(absl::Time before, int limit) = 0;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_PROVIDER_JOURNAL_H_
