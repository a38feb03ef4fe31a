// The postgres provider's target in end-to-end tests: a second database on
// the test PostgreSQL server, whose grants a test can observe.
#ifndef SLUICE_INTEGRATION_POSTGRES_TARGET_H_
#define SLUICE_INTEGRATION_POSTGRES_TARGET_H_

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/harness.h"

namespace sluice::integration {

// The postgres provider's target: a second database on the test server, and
// roles (server-wide, so uniquely named) dropped at the end.
class PostgresTarget {
 public:
  // Roles are named "<prefix><stem>_<n>".
  explicit PostgresTarget(std::string prefix = "gl_") : prefix_(std::move(prefix)) {
    auto db = db::TestDatabase::Create();
    EXPECT_TRUE(db.ok()) << db.status();
    if (db.ok()) db_ = std::move(*db);
  }
  ~PostgresTarget() {
    if (!db_) return;
    std::string admin = db_->admin_dsn();
    db_.reset();  // drops the database and with it every grant to the roles
    soci::session sql(soci::postgresql, admin);
    for (const auto& role : roles_) sql << "DROP ROLE IF EXISTS \"" + role + "\"";
  }
  void Run(const std::string& statement) {
    soci::session s(soci::postgresql, db_->dsn());
    s << statement;
  }
  std::string NewRole(const std::string& stem) {
    std::string role = absl::StrCat(prefix_, stem, "_", absl::ToUnixMicros(absl::Now()) % 1000000);
    Run("CREATE ROLE \"" + role + "\"");
    roles_.push_back(role);
    return role;
  }
  // Whether `role` holds `privilege` on `table` now.
  bool Has(const std::string& role, const std::string& table, const std::string& privilege) {
    soci::session s(soci::postgresql, db_->dsn());
    int v = 0;
    s << "SELECT has_table_privilege(:r, :t, :p)::int", soci::into(v), soci::use(role),
        soci::use(table), soci::use(privilege);
    return v != 0;
  }
  const db::TestDatabase& db() const { return *db_; }

 private:
  std::unique_ptr<db::TestDatabase> db_;
  std::vector<std::string> roles_;
  std::string prefix_;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_POSTGRES_TARGET_H_
