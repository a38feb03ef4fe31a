#include "common/db/pool.h"

#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>

#include "absl/time/clock.h"
#include "common/db/testing/test_database.h"

namespace sluice::db {
namespace {

class PoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
  }

  std::unique_ptr<Pool> NewPool(int size, absl::Duration alive_check_after) {
    auto pool = Pool::Create(db_->dsn(), size, alive_check_after);
    EXPECT_TRUE(pool.ok()) << pool.status();
    return pool.ok() ? std::move(*pool) : nullptr;
  }

  // Ends every server session on the test database (the admin session is on
  // another database), as a server restart or an admin's pg_terminate_backend
  // would.
  void TerminateSessions() {
    soci::session admin(soci::postgresql, db_->admin_dsn());
    admin << "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = :d",
        soci::use(db_->name());
  }

  // The server-side process id of the session `pool` hands out next.
  static int BackendPid(Pool& pool) {
    int pid = 0;
    EXPECT_TRUE(pool.Run([&](soci::session& sql) {
                      sql << "SELECT pg_backend_pid()", soci::into(pid);
                      return absl::OkStatus();
                    }).ok());
    return pid;
  }

  std::unique_ptr<TestDatabase> db_;
};

TEST_F(PoolTest, ErrorsBecomeStatuses) {
  auto pool = NewPool(1, absl::Seconds(1));
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(pool->Run([](soci::session& sql) {
                    sql << "CREATE TABLE t (k text PRIMARY KEY)";
                    sql << "INSERT INTO t VALUES ('a')";
                    return absl::OkStatus();
                  }).ok());
  absl::Status dup = pool->Run([](soci::session& sql) {
    sql << "INSERT INTO t VALUES ('a')";
    return absl::OkStatus();
  });
  EXPECT_TRUE(absl::IsAlreadyExists(dup)) << dup;
  absl::Status bad = pool->Run([](soci::session& sql) {
    sql << "SELEC 1";
    return absl::OkStatus();
  });
  EXPECT_TRUE(absl::IsInternal(bad)) << bad;
  EXPECT_TRUE(absl::IsNotFound(pool->Run([](soci::session&) {
    return absl::NotFoundError("fn's own status");
  })));
}

TEST_F(PoolTest, InTransactionRollsBackOnError) {
  auto pool = NewPool(1, absl::Seconds(1));
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(pool->Run([](soci::session& sql) {
                    sql << "CREATE TABLE t (k text)";
                    return absl::OkStatus();
                  }).ok());
  absl::Status st = pool->InTransaction([](soci::session& sql) {
    sql << "INSERT INTO t VALUES ('a')";
    return absl::AbortedError("changed my mind");
  });
  EXPECT_TRUE(absl::IsAborted(st));
  int n = -1;
  ASSERT_TRUE(pool->Run([&](soci::session& sql) {
                    sql << "SELECT count(*) FROM t", soci::into(n);
                    return absl::OkStatus();
                  }).ok());
  EXPECT_EQ(n, 0);
}

TEST_F(PoolTest, IdleSessionsArePingedAndReopenedAfterTheServerDroppedThem) {
  auto pool = NewPool(1, absl::ZeroDuration());  // always check
  ASSERT_NE(pool, nullptr);
  int before = BackendPid(*pool);
  TerminateSessions();
  absl::SleepFor(absl::Milliseconds(100));
  int after = BackendPid(*pool);  // no error: the ping saw the loss first
  EXPECT_NE(after, 0);
  EXPECT_NE(after, before);
}

TEST_F(PoolTest, RecentlyUsedSessionsSkipThePingAndRecoverOnTheNextCall) {
  auto pool = NewPool(1, absl::Hours(1));  // never check
  ASSERT_NE(pool, nullptr);
  int before = BackendPid(*pool);
  TerminateSessions();
  absl::SleepFor(absl::Milliseconds(100));
  // Without the ping the first statement meets the dropped connection: an
  // honest Unavailable (it is not repeated: it may not be idempotent) ...
  absl::Status st = pool->Run([](soci::session& sql) {
    sql << "SELECT 1";
    return absl::OkStatus();
  });
  EXPECT_TRUE(absl::IsUnavailable(st)) << st;
  // ... and the session is reopened for the next caller.
  int after = BackendPid(*pool);
  EXPECT_NE(after, 0);
  EXPECT_NE(after, before);
}

TEST_F(PoolTest, IdempotentWorkAndTransactionsSurviveADroppedConnection) {
  auto pool = NewPool(1, absl::Hours(1));
  ASSERT_NE(pool, nullptr);
  ASSERT_NE(BackendPid(*pool), 0);
  TerminateSessions();
  absl::SleepFor(absl::Milliseconds(100));
  int one = 0;
  absl::Status read = pool->RunIdempotent([&](soci::session& sql) {
    sql << "SELECT 1", soci::into(one);
    return absl::OkStatus();
  });
  EXPECT_TRUE(read.ok()) << read;
  EXPECT_EQ(one, 1);
  TerminateSessions();
  absl::SleepFor(absl::Milliseconds(100));
  absl::Status tx = pool->InTransaction([&](soci::session& sql) {
    sql << "SELECT 2", soci::into(one);
    return absl::OkStatus();
  });
  EXPECT_TRUE(tx.ok()) << tx;
  EXPECT_EQ(one, 2);
}

}  // namespace
}  // namespace sluice::db

namespace sluice::db {
namespace {

TEST(AdvisoryXactLockSql, StableKeysThatKeepPartsApart) {
  std::string ab_c = AdvisoryXactLockSql(7, {"ab", "c"});
  EXPECT_EQ(ab_c, AdvisoryXactLockSql(7, {"ab", "c"}));
  EXPECT_NE(ab_c, AdvisoryXactLockSql(7, {"a", "bc"}));
  EXPECT_NE(ab_c, AdvisoryXactLockSql(8, {"ab", "c"}));
  EXPECT_EQ(ab_c.rfind("SELECT pg_advisory_xact_lock(7, ", 0), 0u) << ab_c;
}

TEST_F(PoolTest, AdvisoryXactLockIsHeldUntilTheTransactionEnds) {
  auto pool = NewPool(1, absl::Seconds(1));
  ASSERT_NE(pool, nullptr);
  soci::session other(soci::postgresql, db_->dsn());
  const std::string lock = AdvisoryXactLockSql(7, {"k"});
  int key = 0;
  ASSERT_TRUE(sscanf(lock.c_str(), "SELECT pg_advisory_xact_lock(7, %d)", &key) == 1);
  auto try_lock = [&] {
    int got = 0;
    other << "SELECT pg_try_advisory_lock(7, " << key << ")::int", soci::into(got);
    if (got) other << "SELECT pg_advisory_unlock(7, " << key << ")";
    return got != 0;
  };
  ASSERT_TRUE(pool->InTransaction([&](soci::session& sql) {
                    sql << lock;
                    EXPECT_FALSE(try_lock()) << "held inside the transaction";
                    return absl::OkStatus();
                  }).ok());
  EXPECT_TRUE(try_lock()) << "released at commit";
}

}  // namespace
}  // namespace sluice::db
