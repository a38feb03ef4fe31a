#include "common/db/testing/test_database.h"

#include <cstdlib>
#include <random>

#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::db {

absl::StatusOr<std::unique_ptr<TestDatabase>> TestDatabase::Create() {
  const char* base = std::getenv("SLUICE_TEST_PG_DSN");
  if (base == nullptr || *base == '\0') {
    return absl::FailedPreconditionError(
        "SLUICE_TEST_PG_DSN is not set: run tests through scripts/with-postgres.sh or make test");
  }
  std::unique_ptr<TestDatabase> db(new TestDatabase());
  db->admin_dsn_ = base;
  std::random_device rd;
  db->name_ = absl::StrFormat("sluice_test_%08x%08x", rd(), rd());
  // libpq lets a later keyword override an earlier one.
  db->dsn_ = absl::StrCat(db->admin_dsn_, " dbname=", db->name_);
  try {
    soci::session admin(soci::postgresql, db->admin_dsn_);
    admin << "CREATE DATABASE " << db->name_;
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("create test database: ", e.what()));
  }
  return db;
}

TestDatabase::~TestDatabase() {
  try {
    soci::session admin(soci::postgresql, admin_dsn_);
    admin << "DROP DATABASE IF EXISTS " << name_ << " WITH (FORCE)";
  } catch (const std::exception&) {
    // Best effort: the whole server is thrown away after the run.
  }
}

}  // namespace sluice::db
