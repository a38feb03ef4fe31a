// A fresh PostgreSQL database per test, created from SLUICE_TEST_PG_DSN
// (exported by scripts/with-postgres.sh) and dropped on destruction.
#ifndef SLUICE_SINK_SINKS_TESTING_PG_TEST_DB_H_
#define SLUICE_SINK_SINKS_TESTING_PG_TEST_DB_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

typedef struct pg_conn PGconn;

namespace sluice::sink::testing {

class PgTestDb {
 public:
  // FailedPrecondition with instructions when SLUICE_TEST_PG_DSN is unset.
  static absl::StatusOr<std::unique_ptr<PgTestDb>> Create();
  ~PgTestDb();

  // libpq DSN of the new database.
  const std::string& dsn() const { return dsn_; }
  const std::string& name() const { return name_; }

  // Runs `sql`; returns every row of the result as text cells ("<null>" for NULL).
  // InternalError with the server message on failure.
  absl::StatusOr<std::vector<std::vector<std::string>>> Query(const std::string& sql);

 private:
  PgTestDb(std::string admin_dsn, std::string name, std::string dsn, PGconn* conn);
  std::string admin_dsn_;
  std::string name_;
  std::string dsn_;
  PGconn* conn_;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_PG_TEST_DB_H_
