#include "server/access/store/pg_exec.h"

#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>

#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace sluice::access {

PgRows::PgRows(pg_result* res) : res_(res) {}
PgRows::~PgRows() {
  if (res_ != nullptr) PQclear(res_);
}
PgRows::PgRows(PgRows&& o) noexcept : res_(o.res_) { o.res_ = nullptr; }
int PgRows::size() const { return res_ == nullptr ? 0 : PQntuples(res_); }

template <>
std::string PgRows::Row::get<std::string>(int col) const {
  auto* r = const_cast<pg_result*>(res_);
  return std::string(PQgetvalue(r, row_, col), PQgetlength(r, row_, col));
}
template <>
int PgRows::Row::get<int>(int col) const {
  return std::atoi(PQgetvalue(const_cast<pg_result*>(res_), row_, col));
}
template <>
long long PgRows::Row::get<long long>(int col) const {
  return std::atoll(PQgetvalue(const_cast<pg_result*>(res_), row_, col));
}

bool PgRows::Row::IsEmptyJson(int col) const {
  auto* r = const_cast<pg_result*>(res_);
  if (PQgetlength(r, row_, col) != 2) return false;
  const char* v = PQgetvalue(r, row_, col);
  return (v[0] == '{' && v[1] == '}') || (v[0] == '[' && v[1] == ']');
}

namespace {

// Throws unless `res` succeeded; returns it otherwise.
PGresult* Check(PGconn* conn, PGresult* res) {
  ExecStatusType status = PQresultStatus(res);
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    std::string msg = PQresultErrorMessage(res);
    const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    std::string sqlstate = state ? state : "";
    PQclear(res);
    if (sqlstate.empty() && PQstatus(conn) != CONNECTION_OK) sqlstate = "08006";
    throw soci::postgresql_soci_error(msg, sqlstate.size() == 5 ? sqlstate.c_str() : "XX000");
  }
  return res;
}

std::vector<const char*> Values(const std::vector<std::string>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.c_str());
  return values;
}

// Statements prepared on each connection, keyed by the connection and its
// backend pid (a reopened connection is a new key).
absl::Mutex prepared_mu;
std::map<std::pair<const PGconn*, int>, std::set<std::string>>* prepared
    ABSL_GUARDED_BY(prepared_mu) = new std::map<std::pair<const PGconn*, int>, std::set<std::string>>;

}  // namespace

PgRows PgExec(soci::session& sql, const std::string& query, const std::vector<std::string>& params) {
  auto* backend = static_cast<soci::postgresql_session_backend*>(sql.get_backend());
  std::vector<const char*> values = Values(params);
  return PgRows(Check(backend->conn_,
                      PQexecParams(backend->conn_, query.c_str(), static_cast<int>(params.size()),
                                   nullptr, values.data(), nullptr, nullptr, 0)));
}

PgRows PgExecPrepared(soci::session& sql, const char* name, const std::string& query,
                      const std::vector<std::string>& params) {
  auto* backend = static_cast<soci::postgresql_session_backend*>(sql.get_backend());
  PGconn* conn = backend->conn_;
  std::pair<const PGconn*, int> key{conn, PQbackendPID(conn)};
  bool known;
  {
    absl::MutexLock lock(&prepared_mu);
    known = (*prepared)[key].count(name) > 0;
  }
  if (!known) {
    PQclear(Check(conn, PQprepare(conn, name, query.c_str(), static_cast<int>(params.size()),
                                  nullptr)));
    absl::MutexLock lock(&prepared_mu);
    (*prepared)[key].insert(name);
  }
  std::vector<const char*> values = Values(params);
  return PgRows(Check(conn, PQexecPrepared(conn, name, static_cast<int>(params.size()),
                                           values.data(), nullptr, nullptr, 0)));
}

}  // namespace sluice::access
