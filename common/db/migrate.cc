#include "common/db/migrate.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace sluice::db {

absl::StatusOr<int> Migrate(Pool& pool, const std::vector<MigrationSet>& sets) {
  int applied = 0;
  absl::Status st = pool.Run([&](soci::session& sql) -> absl::Status {
    // Back to the pool's statement_timeout afterwards (RESET returns to the
    // value of the connection's startup options).
    sql << "SET statement_timeout = 0";
    absl::Cleanup reset = [&sql] {
      try {
        sql << "RESET statement_timeout";
      } catch (const std::exception& e) {
        spdlog::warn("msg=\"migration: statement_timeout reset failed\" error=\"{}\"", e.what());
      }
    };
    sql << "SELECT pg_advisory_lock(" << kMigrationLockKey << ")";
    absl::Cleanup unlock = [&sql] {
      try {
        sql << "SELECT pg_advisory_unlock(" << kMigrationLockKey << ")";
      } catch (const std::exception& e) {
        spdlog::warn("msg=\"migration unlock failed\" error=\"{}\"", e.what());
      }
    };
    sql << "CREATE TABLE IF NOT EXISTS schema_migrations ("
           " component text NOT NULL,"
           " version integer NOT NULL,"
           " name text NOT NULL,"
           " applied_at timestamptz NOT NULL DEFAULT now(),"
           " PRIMARY KEY (component, version))";
    for (const MigrationSet& set : sets) {
      std::set<int> done;
      {
        soci::rowset<int> rows = (sql.prepare << "SELECT version FROM schema_migrations "
                                                 "WHERE component = :c",
                                  soci::use(set.component));
        for (int v : rows) done.insert(v);
      }
      std::vector<const Migration*> todo;
      for (const Migration& m : set.migrations) {
        if (!done.count(m.version)) todo.push_back(&m);
      }
      std::sort(todo.begin(), todo.end(),
                [](const Migration* a, const Migration* b) { return a->version < b->version; });
      for (const Migration* m : todo) {
        try {
          soci::transaction tx(sql);
          sql << m->sql;
          std::string component = set.component;
          int version = m->version;
          std::string name = m->name;
          sql << "INSERT INTO schema_migrations (component, version, name) VALUES (:c, :v, :n)",
              soci::use(component), soci::use(version), soci::use(name);
          tx.commit();
        } catch (const std::exception& e) {
          return absl::FailedPreconditionError(
              absl::StrCat("migration ", set.component, "/", m->name, " failed: ", e.what()));
        }
        spdlog::info("msg=\"migration applied\" component={} file={}", set.component, m->name);
        ++applied;
      }
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return applied;
}

}  // namespace sluice::db
