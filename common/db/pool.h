// PostgreSQL access through SOCI: a fixed-size connection pool and
// transaction helpers. soci::soci_error never escapes this layer's callers
// that use Run/InTransaction: it becomes an absl::Status.
#ifndef SLUICE_COMMON_DB_POOL_H_
#define SLUICE_COMMON_DB_POOL_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <soci/soci.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sluice::db {

// A pool of `size` open connections to one PostgreSQL database.
class Pool {
 public:
  // Opens `size` (≥ 1) connections to `dsn`, a libpq keyword DSN
  // ("host=... dbname=...") or a `postgres://` / `postgresql://` URL.
  // Unavailable (with libpq's message) when the server cannot be reached;
  // InvalidArgument for size < 1.
  // `alive_check_after`: Run checks a connection with a round trip ("/* ping
  // */") only when it has been idle at least this long; a connection used
  // more recently is taken as alive (HikariCP's aliveBypassWindowMs, 500 ms,
  // is the same idea).
  static absl::StatusOr<std::unique_ptr<Pool>> Create(
      absl::string_view dsn, int size, absl::Duration alive_check_after = absl::Seconds(1));

  ~Pool();

  // Runs `fn` with a pooled session (blocks while all are busy). A session
  // idle for `alive_check_after` is pinged first and reopened when the server
  // dropped it. Database errors thrown inside become Unavailable for
  // connection loss (the session is reopened for the next caller) and
  // Internal otherwise; `fn`'s own status is returned as is.
  absl::Status Run(const std::function<absl::Status(soci::session&)>& fn);

  // Like Run without any liveness round trip, for `fn` that is safe to run
  // twice (reads): when `fn` fails because the connection was lost since its
  // last use, the session is reopened and `fn` runs once more.
  absl::Status RunIdempotent(const std::function<absl::Status(soci::session&)>& fn);

  // Like Run, inside BEGIN … COMMIT; rolls back when `fn` fails or throws.
  // No liveness round trip: a BEGIN that fails on a connection lost since the
  // last use reopens the session and begins again (once).
  absl::Status InTransaction(const std::function<absl::Status(soci::session&)>& fn);

  int size() const { return size_; }
  const std::string& dsn() const { return dsn_; }

 private:
  class Lease;  // one leased session; gives it back when destroyed
  Pool(std::string dsn, int size, absl::Duration alive_check_after);
  std::string dsn_;
  int size_;
  absl::Duration alive_check_after_;
  std::unique_ptr<soci::connection_pool> pool_;
  // When each pool position was last given back; read and written only by
  // the holder of its lease.
  std::vector<absl::Time> last_used_;
};

// Converts a SOCI/libpq exception into a Status: Unavailable for connection
// failures, AlreadyExists for unique violations (SQLSTATE 23505), Internal
// otherwise. `what` is prefixed to the message.
absl::Status FromSociError(const std::exception& e, absl::string_view what);

// "SELECT pg_advisory_xact_lock(lock_class, k)" with k a stable 32-bit
// FNV-1a hash of `key_parts` (each followed by a separator, so ("ab","c")
// and ("a","bc") differ): the lock is held until the transaction ends. A
// hash collision only serializes two unrelated keys.
std::string AdvisoryXactLockSql(int32_t lock_class,
                                std::initializer_list<absl::string_view> key_parts);

// Quotes `ident` as a PostgreSQL identifier ("a""b"), for names that cannot
// be bound as parameters (database and role names in DDL).
std::string QuoteIdent(absl::string_view ident);

}  // namespace sluice::db

#endif  // SLUICE_COMMON_DB_POOL_H_
