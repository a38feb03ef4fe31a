#include "common/db/pool.h"

#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace sluice::db {

class Pool::Lease {
 public:
  explicit Lease(Pool* pool) : pool_(pool), pos_(pool->pool_->lease()) {}
  ~Lease() {
    pool_->last_used_[pos_] = absl::Now();
    pool_->pool_->give_back(pos_);
  }
  soci::session& session() { return pool_->pool_->at(pos_); }
  // Time since the session was last given back.
  absl::Duration idle() const { return absl::Now() - pool_->last_used_[pos_]; }

 private:
  Pool* pool_;
  size_t pos_;
};

Pool::Pool(std::string dsn, int size, absl::Duration alive_check_after)
    : dsn_(std::move(dsn)),
      size_(size),
      alive_check_after_(alive_check_after),
      last_used_(size, absl::Now()) {}

Pool::~Pool() = default;

absl::StatusOr<std::unique_ptr<Pool>> Pool::Create(absl::string_view dsn, int size,
                                                   absl::Duration alive_check_after) {
  if (size < 1) return absl::InvalidArgumentError("db pool size must be at least 1");
  if (dsn.empty()) return absl::InvalidArgumentError("db dsn is empty");
  std::unique_ptr<Pool> pool(new Pool(std::string(dsn), size, alive_check_after));
  pool->pool_ = std::make_unique<soci::connection_pool>(size);
  for (int i = 0; i < size; ++i) {
    try {
      pool->pool_->at(i).open(soci::postgresql, pool->dsn_);
    } catch (const std::exception& e) {
      return absl::UnavailableError(absl::StrCat("cannot connect to PostgreSQL: ", e.what()));
    }
  }
  return pool;
}

absl::Status FromSociError(const std::exception& e, absl::string_view what) {
  std::string msg = absl::StrCat(what, ": ", e.what());
  if (auto* pe = dynamic_cast<const soci::postgresql_soci_error*>(&e)) {
    std::string state = pe->sqlstate();
    if (state == "23505") return absl::AlreadyExistsError(msg);
    if (absl::StartsWith(state, "08")) return absl::UnavailableError(msg);
    if (state == "40001" || state == "40P01") return absl::AbortedError(msg);
  }
  if (absl::StrContains(e.what(), "connection") && absl::StrContains(e.what(), "closed")) {
    return absl::UnavailableError(msg);
  }
  return absl::InternalError(msg);
}

namespace {

// True when the session has no live libpq connection as far as libpq knows
// (no round trip).
bool ConnectionBad(soci::session& sql) {
  // Every session of a Pool is opened with the postgresql backend.
  auto* be = static_cast<soci::postgresql_session_backend*>(sql.get_backend());
  return be == nullptr || be->conn_ == nullptr || PQstatus(be->conn_) != CONNECTION_OK;
}

// Maps an exception thrown while using `sql` and reopens the session when the
// connection was lost.
absl::Status Recover(soci::session& sql, const std::exception& e) {
  absl::Status st = FromSociError(e, "database");
  if (absl::IsUnavailable(st)) {
    try {
      sql.reconnect();
    } catch (const std::exception& re) {
      spdlog::warn("db reconnect failed: {}", re.what());
    }
  }
  return st;
}

}  // namespace

absl::Status Pool::Run(const std::function<absl::Status(soci::session&)>& fn) {
  Lease lease(this);
  soci::session& sql = lease.session();
  try {
    // A connection broken since the last use (server restart) is reopened
    // once; after a short idle time it is taken as alive without a ping.
    if (!sql.get_backend() || ConnectionBad(sql) ||
        (lease.idle() >= alive_check_after_ && !sql.is_connected())) {
      sql.reconnect();
    }
    return fn(sql);
  } catch (const std::exception& e) {
    return Recover(sql, e);
  }
}

absl::Status Pool::RunIdempotent(const std::function<absl::Status(soci::session&)>& fn) {
  Lease lease(this);
  soci::session& sql = lease.session();
  for (int attempt = 0;; ++attempt) {
    try {
      if (!sql.get_backend() || ConnectionBad(sql)) sql.reconnect();
      return fn(sql);
    } catch (const std::exception& e) {
      // A connection lost since the last use fails the first statement; `fn`
      // is safe to repeat, so it runs once more on the reopened connection.
      if (attempt == 0 && ConnectionBad(sql)) {
        try {
          sql.reconnect();
          continue;
        } catch (const std::exception&) {
        }
      }
      return Recover(sql, e);
    }
  }
}

absl::Status Pool::InTransaction(const std::function<absl::Status(soci::session&)>& fn) {
  Lease lease(this);
  soci::session& sql = lease.session();
  try {
    if (!sql.get_backend() || ConnectionBad(sql)) sql.reconnect();
    try {
      sql.begin();
    } catch (const std::exception&) {
      // BEGIN on a connection lost since the last use (server restart) did
      // nothing: reopen once and begin again. This replaces a liveness ping.
      if (!ConnectionBad(sql)) throw;
      sql.reconnect();
      sql.begin();
    }
  } catch (const std::exception& e) {
    return Recover(sql, e);
  }
  try {
    absl::Status st = fn(sql);
    if (!st.ok()) {
      sql.rollback();
      return st;
    }
    sql.commit();
    return absl::OkStatus();
  } catch (const std::exception& e) {
    try {
      if (!ConnectionBad(sql)) sql.rollback();
    } catch (const std::exception&) {
    }
    return Recover(sql, e);
  }
}

std::string AdvisoryXactLockSql(int32_t lock_class,
                                std::initializer_list<absl::string_view> key_parts) {
  uint32_t h = 2166136261u;
  for (absl::string_view part : key_parts) {
    for (unsigned char c : part) h = (h ^ c) * 16777619u;
    h = (h ^ 0xFF) * 16777619u;
  }
  return absl::StrCat("SELECT pg_advisory_xact_lock(", lock_class, ", ", static_cast<int32_t>(h),
                      ")");
}

std::string QuoteIdent(absl::string_view ident) {
  std::string out = "\"";
  for (char c : ident) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace sluice::db
