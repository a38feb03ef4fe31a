#include "sink/sinks/testing/pg_test_db.h"

#include <libpq-fe.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sluice::sink::testing {
absl::StatusOr<std::unique_ptr<PgTestDb>> PgTestDb::Create() {
  auto db = db::TestDatabase::Create();
  if (!db.ok()) return db.status();
  PGconn* c = PQconnectdb((*db)->dsn().c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::string err = PQerrorMessage(c);
    PQfinish(c);
    return absl::UnavailableError(err);
  }
  return std::unique_ptr<PgTestDb>(new PgTestDb(std::move(*db), c));
}

PgTestDb::PgTestDb(std::unique_ptr<db::TestDatabase> db, PGconn* conn)
    : db_(std::move(db)), conn_(conn) {}

PgTestDb::~PgTestDb() { PQfinish(conn_); }

absl::StatusOr<std::vector<std::vector<std::string>>> PgTestDb::Query(const std::string& sql) {
  PGresult* r = PQexec(conn_, sql.c_str());
  ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    std::string err = PQerrorMessage(conn_);
    PQclear(r);
    return absl::InternalError(absl::StrCat(sql, ": ", err));
  }
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < PQntuples(r); ++i) {
    std::vector<std::string> row;
    for (int j = 0; j < PQnfields(r); ++j) {
      row.push_back(PQgetisnull(r, i, j) ? "<null>" : PQgetvalue(r, i, j));
    }
    rows.push_back(std::move(row));
  }
  PQclear(r);
  return rows;
}

}  // namespace sluice::sink::testing
