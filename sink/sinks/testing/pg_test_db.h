// A fresh PostgreSQL database per test (db::TestDatabase) plus a raw libpq
// connection for checking rows as text.
#ifndef SLUICE_SINK_SINKS_TESTING_PG_TEST_DB_H_
#define SLUICE_SINK_SINKS_TESTING_PG_TEST_DB_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/db/testing/test_database.h"

typedef struct pg_conn PGconn;

namespace sluice::sink::testing {

class PgTestDb {
 public:
  // FailedPrecondition with instructions when SLUICE_TEST_PG_DSN is unset.
  static absl::StatusOr<std::unique_ptr<PgTestDb>> Create();
  ~PgTestDb();

  // libpq DSN of the new database.
  const std::string& dsn() const { return db_->dsn(); }
  const std::string& name() const { return db_->name(); }

  // Runs `sql`; returns every row of the result as text cells ("<null>" for NULL).
  // InternalError with the server message on failure.
  absl::StatusOr<std::vector<std::vector<std::string>>> Query(const std::string& sql);

 private:
  PgTestDb(std::unique_ptr<db::TestDatabase> db, PGconn* conn);
  std::unique_ptr<db::TestDatabase> db_;  // creates and drops the database
  PGconn* conn_;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_PG_TEST_DB_H_
