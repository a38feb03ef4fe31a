// Cluster-wide mutual exclusion through PostgreSQL session advisory locks:
// background jobs run on one replica at a time.
#ifndef SLUICE_COMMON_DB_ADVISORY_LOCK_H_
#define SLUICE_COMMON_DB_ADVISORY_LOCK_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "common/db/pool.h"

namespace sluice::db {

// Runs `fn` while holding advisory lock `key` (pg_try_advisory_lock) on a
// dedicated session outside `pool`. Returns true when `fn` ran, false when
// another session holds the lock (fn does not run); Unavailable/Internal when
// the database cannot be reached. Closing the session releases the lock even
// if the unlock is never reached.
absl::StatusOr<bool> RunExclusive(const Pool& pool, int64_t key, const std::function<void()>& fn);

}  // namespace sluice::db

#endif  // SLUICE_COMMON_DB_ADVISORY_LOCK_H_
