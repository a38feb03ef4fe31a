#include "common/db/migrate.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/db/pool.h"
#include "common/db/testing/test_database.h"

namespace sluice::db {

const MigrationSet& TestMigrations();
const MigrationSet& BrokenMigrations();

namespace {

class MigrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    auto pool = Pool::Create(db_->dsn(), 2);
    ASSERT_TRUE(pool.ok()) << pool.status();
    pool_ = std::move(*pool);
  }
  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<Pool> pool_;
};

TEST_F(MigrateTest, AppliesInOrderOnceAndRecords) {
  auto n = Migrate(*pool_, {TestMigrations()});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 2);
  auto again = Migrate(*pool_, {TestMigrations()});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
  ASSERT_TRUE(pool_->Run([](soci::session& sql) {
    std::string color;
    int count = 0;
    sql << "SELECT color FROM widgets WHERE name = 'first'", soci::into(color);
    sql << "SELECT count(*) FROM schema_migrations WHERE component = 'test'", soci::into(count);
    EXPECT_EQ(color, "blue");
    EXPECT_EQ(count, 2);
    return absl::OkStatus();
  }).ok());
}

TEST_F(MigrateTest, ConcurrentReplicasApplyEachMigrationOnce) {
  std::atomic<int> total{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> replicas;
  for (int i = 0; i < 4; ++i) {
    replicas.emplace_back([&] {
      auto pool = Pool::Create(db_->dsn(), 1);
      if (!pool.ok()) {
        ++failures;
        return;
      }
      auto n = Migrate(**pool, {TestMigrations()});
      if (n.ok()) total += *n; else ++failures;
    });
  }
  for (auto& t : replicas) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(total.load(), 2);
}

TEST_F(MigrateTest, FailingMigrationRollsBackAloneAndNamesTheFile) {
  auto n = Migrate(*pool_, {TestMigrations(), BrokenMigrations()});
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(n.status().message().find("0003_broken.up.sql"), std::string::npos) << n.status();
  EXPECT_NE(n.status().message().find("no_such_table"), std::string::npos) << n.status();
  ASSERT_TRUE(pool_->Run([](soci::session& sql) {
    int has_size = -1, recorded = -1;
    sql << "SELECT count(*) FROM information_schema.columns WHERE table_name = 'widgets' AND "
           "column_name = 'size'",
        soci::into(has_size);
    sql << "SELECT count(*) FROM schema_migrations", soci::into(recorded);
    EXPECT_EQ(has_size, 0);  // the broken migration's first statement was rolled back
    EXPECT_EQ(recorded, 2);  // the good ones stay
    return absl::OkStatus();
  }).ok());
}

TEST(PoolTest, UnreachableServerIsUnavailable) {
  auto pool = Pool::Create("host=127.0.0.1 port=1 dbname=x connect_timeout=2", 1);
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(MigrateTest, UniqueViolationIsAlreadyExistsAndTransactionRollsBack) {
  ASSERT_TRUE(Migrate(*pool_, {TestMigrations()}).ok());
  absl::Status st = pool_->InTransaction([](soci::session& sql) {
    sql << "INSERT INTO widgets (name) VALUES ('second')";
    sql << "INSERT INTO widgets (name) VALUES ('first')";
    return absl::OkStatus();
  });
  EXPECT_EQ(st.code(), absl::StatusCode::kAlreadyExists) << st;
  ASSERT_TRUE(pool_->Run([](soci::session& sql) {
    int n = 0;
    sql << "SELECT count(*) FROM widgets", soci::into(n);
    EXPECT_EQ(n, 1);
    return absl::OkStatus();
  }).ok());
}

TEST_F(MigrateTest, MigrationsAreNotBoundByThePoolsStatementTimeout) {
  PoolOptions options;
  options.size = 1;
  options.statement_timeout = absl::Milliseconds(100);
  auto pool = Pool::Create(db_->dsn(), options);
  ASSERT_TRUE(pool.ok()) << pool.status();
  MigrationSet slow{"slow", {{1, "0001_slow.up.sql", "SELECT pg_sleep(0.4); CREATE TABLE s (k int)"}}};
  auto n = Migrate(**pool, {slow});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1);
  // Afterwards the session is bounded again.
  absl::Status after = (*pool)->Run([](soci::session& sql) {
    sql << "SELECT pg_sleep(2)";
    return absl::OkStatus();
  });
  EXPECT_TRUE(absl::IsDeadlineExceeded(after)) << after;
}

TEST(QuoteIdent, DoublesQuotes) {
  EXPECT_EQ(QuoteIdent("plain"), "\"plain\"");
  EXPECT_EQ(QuoteIdent("a\"; DROP TABLE x; --"), "\"a\"\"; DROP TABLE x; --\"");
}

}  // namespace
}  // namespace sluice::db
