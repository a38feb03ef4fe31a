// Migration 0012 (Guardian's appeal statuses) on real PostgreSQL: rows
// written with the old values before it runs read as Guardian's after it.
#include <soci/soci.h>

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "common/db/migrate.h"
#include "common/db/pool.h"
#include "common/db/testing/test_database.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/postgres_repositories.h"

namespace sluice::access {
namespace {

constexpr int kRenameVersion = 12;

TEST(AppealStatusMigrationTest, OldStatusesBecomeGuardians) {
  auto db = db::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  auto pool = db::Pool::Create((*db)->dsn(), 2);
  ASSERT_TRUE(pool.ok()) << pool.status();
  ASSERT_TRUE((*pool)->Run([](soci::session& sql) {
    sql << "CREATE TABLE audit_logs (id bigserial PRIMARY KEY, timestamp timestamptz NOT "
           "NULL DEFAULT now(), action text NOT NULL, actor text NOT NULL, data jsonb NOT "
           "NULL DEFAULT '{}'::jsonb, trace_id text)";  // core migrations 0001 and 0002
    return absl::OkStatus();
  }).ok());
  // The schema as it was before the rename.
  db::MigrationSet before{db::AccessMigrations().component, {}};
  for (const db::Migration& m : db::AccessMigrations().migrations) {
    if (m.version < kRenameVersion) before.migrations.push_back(m);
  }
  ASSERT_TRUE(db::Migrate(**pool, {before}).ok());

  // One appeal per old status, each with an approval and (where it had one)
  // a grant, written as the previous release wrote them.
  const std::map<std::string, std::string> old_to_new = {
      {"pending", "pending"},     {"rejected", "rejected"},    {"active", "approved"},
      {"terminated", "approved"}, {"cancelled", "canceled"}};
  ASSERT_TRUE((*pool)->Run([&](soci::session& sql) {
    sql << "INSERT INTO resources (provider_type, provider_urn, type, urn) "
           "VALUES ('noop', 'urn1', 'table', 't1')";
    for (const auto& [old_status, unused] : old_to_new) {
      std::string role = "role-" + old_status;
      sql << "INSERT INTO appeals (resource_id, policy_id, policy_version, status, account_id, "
             "account_type, role, created_by) SELECT id, 'p', 1, :s, 'u@x.com', 'user', :r, "
             "'u@x.com' FROM resources",
          soci::use(old_status), soci::use(role);
      sql << "INSERT INTO approvals (appeal_id, step_index, name, status, policy_id, "
             "policy_version) SELECT id, 0, 'owner', 'approved', 'p', 1 FROM appeals "
             "WHERE role = :r",
          soci::use(role);
      if (old_status == "active" || old_status == "terminated") {
        std::string grant_status = old_status == "active" ? "active" : "inactive";
        sql << "INSERT INTO grants (status, status_in_provider, account_id, account_type, "
               "resource_id, role, appeal_id) SELECT :gs, :gs2, account_id, account_type, "
               "resource_id, role, id FROM appeals WHERE role = :r",
            soci::use(grant_status), soci::use(grant_status), soci::use(role);
      }
    }
    return absl::OkStatus();
  }).ok());

  auto applied = db::Migrate(**pool, {db::AccessMigrations()});
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_GE(*applied, 1);

  ASSERT_TRUE((*pool)->Run([&](soci::session& sql) {
    for (const auto& [old_status, new_status] : old_to_new) {
      std::string role = "role-" + old_status, status, approval, grant;
      soci::indicator gi = soci::i_ok;
      sql << "SELECT a.status, p.status, COALESCE(g.status, '') FROM appeals a "
             "JOIN approvals p ON p.appeal_id = a.id LEFT JOIN grants g ON g.appeal_id = a.id "
             "WHERE a.role = :r",
          soci::into(status), soci::into(approval), soci::into(grant, gi), soci::use(role);
      EXPECT_EQ(status, new_status) << old_status;
      EXPECT_EQ(approval, "approved") << old_status;  // approval statuses unchanged
      if (old_status == "active") {
        EXPECT_EQ(grant, "active");  // grant statuses unchanged
      } else if (old_status == "terminated") {
        EXPECT_EQ(grant, "inactive");
      }
    }
    long long old_left = -1;
    sql << "SELECT count(*) FROM appeals WHERE status IN ('active', 'terminated', 'cancelled')",
        soci::into(old_left);
    EXPECT_EQ(old_left, 0);
    return absl::OkStatus();
  }).ok());

  // The list filter finds the migrated rows by the new values; a revoked
  // (formerly terminated) appeal reads approved with its inactive grant.
  PostgresAppealRepository repo(pool->get());
  AppealFilter f;
  f.statuses = {"approved"};
  int total = 0;
  auto approved = repo.ListAppeals(f, &total);
  ASSERT_TRUE(approved.ok()) << approved.status();
  EXPECT_EQ(total, 2);
  std::map<std::string, std::string> grant_by_role;
  for (const auto& a : *approved) grant_by_role[a.role()] = a.grant().status();
  EXPECT_EQ(grant_by_role["role-active"], "active");
  EXPECT_EQ(grant_by_role["role-terminated"], "inactive");
  f.statuses = {"canceled"};
  auto canceled = repo.ListAppeals(f, &total);
  ASSERT_TRUE(canceled.ok()) << canceled.status();
  ASSERT_EQ(canceled->size(), 1u);
  EXPECT_EQ((*canceled)[0].role(), "role-cancelled");
}

}  // namespace
}  // namespace sluice::access
