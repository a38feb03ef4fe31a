#include "common/db/pool.h"

#include <soci/postgresql/soci-postgresql.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace sluice::db {

Pool::Pool(std::string dsn, int size) : dsn_(std::move(dsn)), size_(size) {}

Pool::~Pool() = default;

absl::StatusOr<std::unique_ptr<Pool>> Pool::Create(absl::string_view dsn, int size) {
  if (size < 1) return absl::InvalidArgumentError("db pool size must be at least 1");
  if (dsn.empty()) return absl::InvalidArgumentError("db dsn is empty");
  std::unique_ptr<Pool> pool(new Pool(std::string(dsn), size));
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

absl::Status Pool::Run(const std::function<absl::Status(soci::session&)>& fn) {
  soci::session sql(*pool_);
  try {
    // A connection broken since the last use (server restart) is reopened once.
    if (!sql.get_backend() || !sql.is_connected()) sql.reconnect();
    return fn(sql);
  } catch (const std::exception& e) {
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
}

absl::Status Pool::InTransaction(const std::function<absl::Status(soci::session&)>& fn) {
  return Run([&](soci::session& sql) -> absl::Status {
    soci::transaction tx(sql);  // rolls back in its destructor unless committed
    absl::Status st = fn(sql);
    if (!st.ok()) {
      tx.rollback();
      return st;
    }
    tx.commit();
    return absl::OkStatus();
  });
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
