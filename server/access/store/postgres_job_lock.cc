#include "server/access/store/postgres_job_lock.h"

#include "common/db/advisory_lock.h"

namespace sluice::access {

absl::StatusOr<bool> PostgresJobLock::RunExclusive(int64_t key, const std::function<void()>& fn) {
  return db::RunExclusive(*pool_, key, fn);
}

}  // namespace sluice::access
