#include "common/db/advisory_lock.h"

#include <soci/soci.h>

namespace sluice::db {

absl::StatusOr<bool> RunExclusive(const Pool& pool, int64_t key, const std::function<void()>& fn) {
  // The lock lives on a session of its own, outside the pool: the job body
  // leases pooled connections itself, and holding one here while it waits
  // for another deadlocked a pool of one (and two overlapping jobs in a pool
  // of two), review finding M3.
  auto session = pool.OpenDedicated();
  if (!session.ok()) return session.status();
  soci::session& sql = **session;
  long long k = key;
  try {
    int got = 0;
    sql << "SELECT pg_try_advisory_lock(:k)::int", soci::into(got), soci::use(k);
    if (got == 0) return false;
  } catch (const soci::soci_error& e) {
    return FromSociError(e, "job lock");
  }
  fn();
  try {
    sql << "SELECT pg_advisory_unlock(:k)", soci::use(k);
  } catch (const soci::soci_error&) {
    // The session closes right after, which releases the lock too.
  }
  return true;
}

}  // namespace sluice::db
