#include "server/access/store/pg_exec.h"

#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>

#include <cstdlib>

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

PgRows PgExec(soci::session& sql, const std::string& query, const std::vector<std::string>& params) {
  auto* backend = static_cast<soci::postgresql_session_backend*>(sql.get_backend());
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.c_str());
  PGresult* res = PQexecParams(backend->conn_, query.c_str(), static_cast<int>(params.size()),
                               nullptr, values.data(), nullptr, nullptr, 0);
  ExecStatusType status = PQresultStatus(res);
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    std::string msg = PQresultErrorMessage(res);
    const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    std::string sqlstate = state ? state : "";
    PQclear(res);
    if (sqlstate.empty() && PQstatus(backend->conn_) != CONNECTION_OK) sqlstate = "08006";
    throw soci::postgresql_soci_error(msg, sqlstate.size() == 5 ? sqlstate.c_str() : "XX000");
  }
  return PgRows(res);
}

}  // namespace sluice::access
