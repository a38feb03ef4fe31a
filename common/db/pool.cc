#include "common/db/pool.h"

#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>

#include <algorithm>
#include <climits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/deadline.h"
#include "spdlog/spdlog.h"

namespace sluice::db {

// Leases a session for its lifetime, waiting at most the pool's
// lease_timeout, cut to what is left of the RPC being served (CallDeadline);
// ok() is false when none became free in time.
class Pool::Lease {
 public:
  explicit Lease(Pool* pool) : pool_(pool) {
    absl::Duration timeout = TimeLeft(pool->options_.lease_timeout);
    call_deadline_ = timeout < pool->options_.lease_timeout;
    if (timeout == absl::InfiniteDuration()) {
      pos_ = pool->pool_->lease();
      ok_ = true;
    } else if (timeout > absl::ZeroDuration()) {
      int64_t ms = std::clamp<int64_t>(absl::ToInt64Milliseconds(timeout), 1, INT_MAX);
      ok_ = pool->pool_->try_lease(pos_, static_cast<int>(ms));
    }
  }
  ~Lease() {
    if (!ok_) return;
    pool_->last_used_[pos_] = absl::Now();
    pool_->pool_->give_back(pos_);
  }
  bool ok() const { return ok_; }
  // Why no session was leased (only when !ok()).
  absl::Status status() const {
    if (call_deadline_) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the call's deadline passed while waiting for a database connection (all ",
          pool_->options_.size, " in use)"));
    }
    return absl::ResourceExhaustedError(absl::StrCat(
        "database busy: no connection free after ",
        absl::FormatDuration(pool_->options_.lease_timeout), " (all ", pool_->options_.size,
        " in use); raise db.pool_size or db.lease_timeout_seconds, or look for stuck calls"));
  }
  soci::session& session() { return pool_->pool_->at(pos_); }
  // Time since the session was last given back.
  absl::Duration idle() const { return absl::Now() - pool_->last_used_[pos_]; }

 private:
  Pool* pool_;
  size_t pos_ = 0;
  bool ok_ = false;
  bool call_deadline_ = false;  // the call's deadline, not lease_timeout, limited the wait
};

Pool::Pool(std::string dsn, std::string session_dsn, const PoolOptions& options)
    : dsn_(std::move(dsn)),
      session_dsn_(std::move(session_dsn)),
      options_(options),
      last_used_(options.size, absl::Now()) {}

Pool::~Pool() = default;

absl::StatusOr<std::unique_ptr<Pool>> Pool::Create(absl::string_view dsn, int size,
                                                   absl::Duration alive_check_after) {
  PoolOptions options;
  options.size = size;
  options.alive_check_after = alive_check_after;
  return Create(dsn, options);
}

absl::StatusOr<std::unique_ptr<Pool>> Pool::Create(absl::string_view dsn,
                                                   const PoolOptions& options) {
  if (options.size < 1) return absl::InvalidArgumentError("db pool size must be at least 1");
  if (dsn.empty()) return absl::InvalidArgumentError("db dsn is empty");
  if (options.lease_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("db lease timeout must be positive");
  }
  if (options.statement_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("db statement timeout must not be negative");
  }
  std::vector<std::pair<std::string, std::string>> settings;
  int64_t statement_ms = absl::ToInt64Milliseconds(options.statement_timeout);
  if (statement_ms > 0) settings.emplace_back("statement_timeout", absl::StrCat(statement_ms));
  auto session_dsn = DsnWithSettings(dsn, settings);
  if (!session_dsn.ok()) return session_dsn.status();
  std::unique_ptr<Pool> pool(new Pool(std::string(dsn), *session_dsn, options));
  pool->pool_ = std::make_unique<soci::connection_pool>(options.size);
  for (int i = 0; i < options.size; ++i) {
    try {
      pool->pool_->at(i).open(soci::postgresql, pool->session_dsn_);
    } catch (const std::exception& e) {
      return absl::UnavailableError(absl::StrCat("cannot connect to PostgreSQL: ", e.what()));
    }
  }
  return pool;
}

absl::StatusOr<std::unique_ptr<soci::session>> Pool::OpenDedicated() const {
  try {
    return std::make_unique<soci::session>(soci::postgresql, session_dsn_);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot connect to PostgreSQL: ", e.what()));
  }
}

absl::Status FromSociError(const std::exception& e, absl::string_view what) {
  std::string msg = absl::StrCat(what, ": ", e.what());
  if (auto* pe = dynamic_cast<const soci::postgresql_soci_error*>(&e)) {
    std::string state = pe->sqlstate();
    if (state == "23505") return absl::AlreadyExistsError(msg);
    if (absl::StartsWith(state, "08")) return absl::UnavailableError(msg);
    if (state == "40001" || state == "40P01" || state == "55P03") return absl::AbortedError(msg);
    if (state == "57014") {
      if (absl::StrContains(msg, "statement timeout")) {
        absl::StrAppend(&msg, " (db.statement_timeout_ms)");
      }
      return absl::DeadlineExceededError(msg);
    }
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
  if (!lease.ok()) return lease.status();
  soci::session& sql = lease.session();
  try {
    // A connection broken since the last use (server restart) is reopened
    // once; after a short idle time it is taken as alive without a ping.
    if (!sql.get_backend() || ConnectionBad(sql) ||
        (lease.idle() >= options_.alive_check_after && !sql.is_connected())) {
      sql.reconnect();
    }
    return fn(sql);
  } catch (const std::exception& e) {
    return Recover(sql, e);
  }
}

absl::Status Pool::RunIdempotent(const std::function<absl::Status(soci::session&)>& fn) {
  Lease lease(this);
  if (!lease.ok()) return lease.status();
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
  if (!lease.ok()) return lease.status();
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

namespace {

// `value` single-quoted for a keyword DSN (backslash before ' and \).
std::string QuoteDsnValue(absl::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// `value` for libpq's `options`, which splits on white space: backslash
// before white space and backslashes.
std::string EscapeOptionValue(absl::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> DsnWithSettings(
    absl::string_view dsn, const std::vector<std::pair<std::string, std::string>>& settings) {
  if (settings.empty()) return std::string(dsn);
  char* err = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(std::string(dsn).c_str(), &err);
  if (parsed == nullptr) {
    std::string why = err != nullptr ? err : "out of memory";
    PQfreemem(err);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return absl::InvalidArgumentError(absl::StrCat("db dsn cannot be parsed: ", why));
  }
  std::vector<std::string> parts;
  std::string options;
  for (PQconninfoOption* o = parsed; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (absl::string_view(o->keyword) == "options") {
      options = o->val;
      continue;
    }
    parts.push_back(absl::StrCat(o->keyword, "=", QuoteDsnValue(o->val)));
  }
  PQconninfoFree(parsed);
  for (const auto& [name, value] : settings) {
    if (!options.empty()) options += ' ';
    absl::StrAppend(&options, "-c ", name, "=", EscapeOptionValue(value));
  }
  parts.push_back(absl::StrCat("options=", QuoteDsnValue(options)));
  return absl::StrJoin(parts, " ");
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
