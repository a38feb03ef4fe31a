// The periodic jobs' one-replica-at-a-time lock (a PostgreSQL advisory lock).
// soci::soci_error never leaves the .cc: Pool::Run/InTransaction map it.
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_JOB_LOCK_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_JOB_LOCK_H_

#include "common/db/pool.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

// pg_try_advisory_lock for the duration of `fn`, on a session of its own
// (Pool::OpenDedicated, opened per run): `fn` may use every pooled
// connection. Unavailable when that session cannot be opened.
class PostgresJobLock : public JobLock {
 public:
  explicit PostgresJobLock(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<bool> RunExclusive(int64_t key, const std::function<void()>& fn) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_JOB_LOCK_H_
