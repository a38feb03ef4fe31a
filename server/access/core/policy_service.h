// Policies: versioned approval flows. Validation (ids, steps, strategies,
// expressions, durations, IAM) and versioning; IAM auth secrets are
// encrypted before storage and masked in every response.
#ifndef SLUICE_SERVER_ACCESS_CORE_POLICY_SERVICE_H_
#define SLUICE_SERVER_ACCESS_CORE_POLICY_SERVICE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/crypto.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

// InvalidArgument naming the first invalid field (and the column of an
// expression error) for a policy about to be stored.
absl::Status ValidatePolicy(const pb::Policy& policy);

class PolicyService {
 public:
  // Borrowed pointers must outlive the service.
  PolicyService(PolicyRepository* repo, const Crypter* crypter) : repo_(repo), crypter_(crypter) {}

  // Creates version 1 by `actor`. InvalidArgument, AlreadyExists.
  // `dry_run` (Guardian's WithDryRun): every check runs, the policy that
  // would be stored is returned, and nothing is written or audited.
  absl::StatusOr<pb::Policy> Create(pb::Policy policy, const std::string& actor,
                                    bool dry_run = false);
  // Creates version latest+1 of `id` from `policy`. NotFound, InvalidArgument.
  // A masked secret ("*****") in iam.config.auth keeps the previous value.
  // `dry_run` as for Create.
  absl::StatusOr<pb::Policy> Update(const std::string& id, pb::Policy policy,
                                    const std::string& actor, bool dry_run = false);
  // Masked. version 0 = latest. NotFound.
  absl::StatusOr<pb::Policy> Get(const std::string& id, uint32_t version);
  // One page of every version of every policy, masked, oldest first (as
  // Guardian's ListPolicies); `total` counts all versions. `ids` as in
  // PolicyRepository::List.
  absl::StatusOr<std::vector<pb::Policy>> List(const Page& page, int64_t* total,
                                               const std::vector<std::string>& ids = {});
  // With IAM secrets decrypted (for the IAM call); NotFound. A given
  // (id, version ≥ 1) never changes, so these are cached in memory.
  absl::StatusOr<pb::Policy> GetDecrypted(const std::string& id, uint32_t version);

 private:
  absl::Status EncryptSecrets(pb::Policy* policy, const pb::Policy* previous) const;
  PolicyRepository* repo_;
  const Crypter* crypter_;
  absl::Mutex mu_;
  std::map<std::pair<std::string, uint32_t>, pb::Policy> decrypted_ ABSL_GUARDED_BY(mu_);
};

// Replaces IAM auth secrets with kMaskedSecret.
void MaskPolicySecrets(pb::Policy* policy);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_POLICY_SERVICE_H_
