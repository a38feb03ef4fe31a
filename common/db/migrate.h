// Schema migrations: numbered `NNNN_name.up.sql` files embedded in the binary
// (see tools/migrations.bzl), applied in order, each inside its own
// transaction, and recorded in `schema_migrations`. Concurrent starts of
// several replicas are serialised with a PostgreSQL advisory lock, so each
// migration runs exactly once.
#ifndef SLUICE_COMMON_DB_MIGRATE_H_
#define SLUICE_COMMON_DB_MIGRATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/db/pool.h"

namespace sluice::db {

// One embedded migration file.
struct Migration {
  int version = 0;   // NNNN from the file name; unique and increasing per component
  std::string name;  // the file name, e.g. "0001_policies.up.sql"
  std::string sql;   // statements, run as one multi-statement query
};

// The migrations of one component (e.g. "access"); versions are per component.
struct MigrationSet {
  std::string component;
  std::vector<Migration> migrations;
};

// The advisory-lock key held while migrating (`pg_advisory_lock`).
inline constexpr long long kMigrationLockKey = 0x5111CE0001LL;

// Applies every migration of `sets` not yet recorded, in component order then
// version order, and returns how many it applied. A failing migration rolls
// back alone and stops the run with FailedPrecondition naming the file and
// the database's message; earlier ones stay applied. The pool's
// statement_timeout does not apply: a migration (or the wait for another
// replica's) may take as long as it needs.
absl::StatusOr<int> Migrate(Pool& pool, const std::vector<MigrationSet>& sets);

}  // namespace sluice::db

#endif  // SLUICE_COMMON_DB_MIGRATE_H_
