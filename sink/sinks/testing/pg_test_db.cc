#include "sink/sinks/testing/pg_test_db.h"

#include <libpq-fe.h>

#include <cstdlib>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sluice::sink::testing {
namespace {

absl::Status Exec(const std::string& dsn, const std::string& sql) {
  PGconn* c = PQconnectdb(dsn.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::string err = PQerrorMessage(c);
    PQfinish(c);
    return absl::UnavailableError(absl::StrCat("connect ", dsn, ": ", err));
  }
  PGresult* r = PQexec(c, sql.c_str());
  absl::Status s = PQresultStatus(r) == PGRES_COMMAND_OK
                       ? absl::OkStatus()
                       : absl::InternalError(absl::StrCat(sql, ": ", PQerrorMessage(c)));
  PQclear(r);
  PQfinish(c);
  return s;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PgTestDb>> PgTestDb::Create() {
  const char* admin = std::getenv("SLUICE_TEST_PG_DSN");
  if (admin == nullptr || *admin == '\0') {
    return absl::FailedPreconditionError(
        "SLUICE_TEST_PG_DSN is not set: run the test under scripts/with-postgres.sh, e.g. "
        "scripts/with-postgres.sh bazel test //sink/sinks/jdbc:all");
  }
  absl::BitGen gen;
  std::string name = absl::StrCat("sinktest_", absl::Uniform<uint64_t>(gen));
  absl::Status s = Exec(admin, absl::StrCat("CREATE DATABASE ", name));
  if (!s.ok()) return s;
  // A later dbname keyword overrides the earlier one in a libpq DSN.
  std::string dsn = absl::StrCat(admin, " dbname=", name);
  PGconn* c = PQconnectdb(dsn.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::string err = PQerrorMessage(c);
    PQfinish(c);
    return absl::UnavailableError(err);
  }
  return std::unique_ptr<PgTestDb>(new PgTestDb(admin, name, dsn, c));
}

PgTestDb::PgTestDb(std::string admin_dsn, std::string name, std::string dsn, PGconn* conn)
    : admin_dsn_(std::move(admin_dsn)), name_(std::move(name)), dsn_(std::move(dsn)), conn_(conn) {}

PgTestDb::~PgTestDb() {
  PQfinish(conn_);
  (void)Exec(admin_dsn_, absl::StrCat("DROP DATABASE IF EXISTS ", name_, " WITH (FORCE)"));
}

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
