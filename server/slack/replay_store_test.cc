// The replay store on real PostgreSQL (scripts/with-postgres.sh).
#include "server/slack/replay_store.h"

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "common/db/migrate.h"
#include "common/db/testing/test_database.h"
#include "server/access/store/postgres_repositories.h"

namespace sluice::db {
const MigrationSet& CoreMigrations();  // //server:core_migrations
}  // namespace sluice::db

namespace sluice::slack {
namespace {

TEST(PostgresReplayStore, ASignatureIsGoodOnceUntilItExpires) {
  auto db = db::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  auto pool = db::Pool::Create((*db)->dsn(), 2);
  ASSERT_TRUE(pool.ok()) << pool.status();
  auto migrated = db::Migrate(**pool, {db::CoreMigrations(), db::AccessMigrations()});
  ASSERT_TRUE(migrated.ok()) << migrated.status();
  PostgresReplayStore store(pool->get());
  const absl::Time later = absl::Now() + absl::Minutes(5);
  EXPECT_TRUE(store.Remember("v0=aa", later).ok());
  EXPECT_EQ(store.Remember("v0=aa", later).code(), absl::StatusCode::kAlreadyExists);
  // A second replica's store sees the same table.
  PostgresReplayStore other(pool->get());
  EXPECT_EQ(other.Remember("v0=aa", later).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(other.Remember("v0=bb", later).ok());
  // Expired entries are dropped: the timestamp check refuses those requests.
  EXPECT_TRUE(store.Remember("v0=cc", absl::Now() - absl::Seconds(1)).ok());
  EXPECT_TRUE(store.Remember("v0=cc", later).ok());
}

}  // namespace
}  // namespace sluice::slack
