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
#include <utility>
#include <vector>

#include <soci/soci.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sluice::db {

// How a Pool behaves (see Pool::Create).
struct PoolOptions {
  // Connections kept open (≥ 1).
  int size = 8;
  // Run checks a connection with a round trip ("/* ping */") only when it
  // has been idle at least this long; a connection used more recently is
  // taken as alive (HikariCP's aliveBypassWindowMs, 500 ms, is the same idea).
  absl::Duration alive_check_after = absl::Seconds(1);
  // How long Run, RunIdempotent and InTransaction wait for a free connection
  // before failing with ResourceExhausted (> 0; InfiniteDuration() waits
  // forever). soci's own lease() has no timeout: a caller that needs a
  // second connection while holding one waited forever (review finding M3).
  absl::Duration lease_timeout = absl::Seconds(10);
  // PostgreSQL statement_timeout of every pooled session, rounded down to
  // milliseconds; a statement running longer fails with DeadlineExceeded.
  // Sent as the libpq `options` startup parameter, so it survives reconnects
  // and RESET. Zero: the server's own setting.
  absl::Duration statement_timeout = absl::ZeroDuration();
};

// A pool of open connections to one PostgreSQL database.
class Pool {
 public:
  // Opens `options.size` connections to `dsn`, a libpq keyword DSN
  // ("host=... dbname=...") or a `postgres://` / `postgresql://` URL.
  // Unavailable (with libpq's message) when the server cannot be reached;
  // InvalidArgument for size < 1, a lease_timeout ≤ 0, a negative
  // statement_timeout or a DSN libpq cannot parse.
  static absl::StatusOr<std::unique_ptr<Pool>> Create(absl::string_view dsn,
                                                      const PoolOptions& options);
  // Create with `size` connections, `alive_check_after` and the other
  // options' defaults.
  static absl::StatusOr<std::unique_ptr<Pool>> Create(
      absl::string_view dsn, int size, absl::Duration alive_check_after = absl::Seconds(1));

  ~Pool();

  // Runs `fn` with a pooled session, waiting up to `lease_timeout` while all
  // are busy (then ResourceExhausted naming db.pool_size and
  // db.lease_timeout_seconds; `fn` does not run). A session idle for
  // `alive_check_after` is pinged first and reopened when the server
  // dropped it. Database errors thrown inside become Unavailable for
  // connection loss (the session is reopened for the next caller),
  // DeadlineExceeded for a statement cancelled by statement_timeout and
  // Internal otherwise (see FromSociError); `fn`'s own status is returned as
  // is. `fn` must not call back into the pool: with every connection held
  // that way, each caller would wait for the others.
  absl::Status Run(const std::function<absl::Status(soci::session&)>& fn);

  // Like Run without any liveness round trip, for `fn` that is safe to run
  // twice (reads): when `fn` fails because the connection was lost since its
  // last use, the session is reopened and `fn` runs once more.
  absl::Status RunIdempotent(const std::function<absl::Status(soci::session&)>& fn);

  // Like Run, inside BEGIN … COMMIT; rolls back when `fn` fails or throws.
  // No liveness round trip: a BEGIN that fails on a connection lost since the
  // last use reopens the session and begins again (once).
  absl::Status InTransaction(const std::function<absl::Status(soci::session&)>& fn);

  // A new session outside the pool, on the pool's database and with its
  // session settings, for work that must not hold a pooled connection for
  // long (a background job's session-level advisory lock). The caller owns
  // and closes it. Unavailable when the server cannot be reached.
  absl::StatusOr<std::unique_ptr<soci::session>> OpenDedicated() const;

  int size() const { return options_.size; }
  // The DSN as given to Create (without the session settings).
  const std::string& dsn() const { return dsn_; }
  const PoolOptions& options() const { return options_; }

 private:
  class Lease;  // one leased session; gives it back when destroyed
  Pool(std::string dsn, std::string session_dsn, const PoolOptions& options);
  std::string dsn_;
  std::string session_dsn_;  // dsn_ plus the session settings (options=-c ...)
  PoolOptions options_;
  std::unique_ptr<soci::connection_pool> pool_;
  // When each pool position was last given back; read and written only by
  // the holder of its lease.
  std::vector<absl::Time> last_used_;
};

// Converts a SOCI/libpq exception into a Status: Unavailable for connection
// failures (SQLSTATE class 08), AlreadyExists for unique violations (23505),
// Aborted for serialization failures and deadlocks (40001, 40P01) and for a
// lock not obtained within lock_timeout (55P03), DeadlineExceeded for a
// statement cancelled (57014, e.g. by statement_timeout), Internal otherwise.
// `what` is prefixed to the message.
absl::Status FromSociError(const std::exception& e, absl::string_view what);

// `dsn` (a keyword DSN or a postgres:// URL) as a keyword DSN whose libpq
// `options` startup parameter also sets each (name, value) server setting
// as "-c name=value", after whatever options `dsn` already had (so the new
// settings win). Every value is single-quoted and escaped. `dsn` is
// returned unchanged when `settings` is empty. InvalidArgument (with
// libpq's message) when libpq cannot parse `dsn`.
absl::StatusOr<std::string> DsnWithSettings(
    absl::string_view dsn, const std::vector<std::pair<std::string, std::string>>& settings);

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
