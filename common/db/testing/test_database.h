// Test fixture: a fresh, empty database per test on the real PostgreSQL
// server named by env SLUICE_TEST_PG_DSN (scripts/with-postgres.sh and
// `make test` start one and export it).
#ifndef SLUICE_COMMON_DB_TESTING_TEST_DATABASE_H_
#define SLUICE_COMMON_DB_TESTING_TEST_DATABASE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace sluice::db {

// Owns database `sluice_test_<random>`; dropped in the destructor.
class TestDatabase {
 public:
  // Creates the database. FailedPrecondition when SLUICE_TEST_PG_DSN is
  // unset (run the test through scripts/with-postgres.sh); Unavailable when
  // the server cannot be reached.
  static absl::StatusOr<std::unique_ptr<TestDatabase>> Create();

  ~TestDatabase();

  // libpq keyword DSN of the new database.
  const std::string& dsn() const { return dsn_; }
  // Its name.
  const std::string& name() const { return name_; }
  // libpq keyword DSN of the server's maintenance database (superuser).
  const std::string& admin_dsn() const { return admin_dsn_; }

 private:
  TestDatabase() = default;
  std::string admin_dsn_;
  std::string name_;
  std::string dsn_;
};

}  // namespace sluice::db

#endif  // SLUICE_COMMON_DB_TESTING_TEST_DATABASE_H_
