#include "common/db/pool.h"

#include <thread>

#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/db/testing/test_database.h"
#include "common/deadline.h"

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
  std::unique_ptr<Pool> NewPool(const PoolOptions& options) {
    auto pool = Pool::Create(db_->dsn(), options);
    EXPECT_TRUE(pool.ok()) << pool.status();
    return pool.ok() ? std::move(*pool) : nullptr;
  }
  // The session's statement_timeout as SHOW prints it ("0", "250ms").
  static std::string StatementTimeout(soci::session& sql) {
    std::string value;
    sql << "SHOW statement_timeout", soci::into(value);
    return value;
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

namespace sluice::db {
namespace {

// Finding M3: a caller that needs a second connection while holding the
// only one used to wait forever in soci's lease().
TEST_F(PoolTest, LeaseGivesUpAfterTheTimeoutInsteadOfWaitingForever) {
  PoolOptions options;
  options.size = 1;
  options.lease_timeout = absl::Milliseconds(300);
  auto pool = NewPool(options);
  ASSERT_NE(pool, nullptr);
  absl::Status inner;
  absl::Time start = absl::Now();
  absl::Status outer = pool->Run([&](soci::session&) {
    inner = pool->Run([](soci::session&) { return absl::OkStatus(); });
    return absl::OkStatus();
  });
  absl::Duration waited = absl::Now() - start;
  EXPECT_TRUE(outer.ok()) << outer;
  EXPECT_TRUE(absl::IsResourceExhausted(inner)) << inner;
  EXPECT_NE(inner.message().find("db.pool_size"), absl::string_view::npos) << inner;
  EXPECT_NE(inner.message().find("db.lease_timeout_seconds"), absl::string_view::npos) << inner;
  EXPECT_GE(waited, absl::Milliseconds(250));
  EXPECT_LT(waited, absl::Seconds(5));

  // A connection held by another thread: the wait ends as soon as it is given back.
  absl::Notification holding, release;
  std::thread holder([&] {
    (void)pool->Run([&](soci::session&) {
      holding.Notify();
      release.WaitForNotification();
      return absl::OkStatus();
    });
  });
  holding.WaitForNotification();
  EXPECT_TRUE(absl::IsResourceExhausted(pool->InTransaction([](soci::session&) {
    return absl::OkStatus();
  })));
  EXPECT_TRUE(absl::IsResourceExhausted(pool->RunIdempotent([](soci::session&) {
    return absl::OkStatus();
  })));
  std::thread giver([&] {
    absl::SleepFor(absl::Milliseconds(100));
    release.Notify();
  });
  EXPECT_TRUE(pool->Run([](soci::session&) { return absl::OkStatus(); }).ok());
  holder.join();
  giver.join();
}

// Review M4: inside an RPC (CallDeadlineScope), the lease waits at most
// until the call's deadline, even when lease_timeout is longer.
TEST_F(PoolTest, LeaseWaitEndsAtTheCallDeadline) {
  PoolOptions options;
  options.size = 1;
  options.lease_timeout = absl::Seconds(20);
  auto pool = NewPool(options);
  ASSERT_NE(pool, nullptr);
  absl::Status inner;
  absl::Duration waited;
  absl::Status outer = pool->Run([&](soci::session&) {
    CallDeadlineScope call(absl::Now() + absl::Milliseconds(300));
    absl::Time start = absl::Now();
    inner = pool->Run([](soci::session&) { return absl::OkStatus(); });
    waited = absl::Now() - start;
    return absl::OkStatus();
  });
  EXPECT_TRUE(outer.ok()) << outer;
  EXPECT_TRUE(absl::IsDeadlineExceeded(inner)) << inner;
  EXPECT_NE(inner.message().find("deadline"), absl::string_view::npos) << inner;
  EXPECT_GE(waited, absl::Milliseconds(250));
  EXPECT_LT(waited, absl::Seconds(5));
  // Past the deadline, even a free connection is not leased.
  CallDeadlineScope late(absl::Now() - absl::Milliseconds(1));
  EXPECT_TRUE(absl::IsDeadlineExceeded(pool->Run([](soci::session&) {
    return absl::OkStatus();
  })));
}

TEST_F(PoolTest, RejectsBadOptions) {
  PoolOptions options;
  options.lease_timeout = absl::ZeroDuration();
  EXPECT_TRUE(absl::IsInvalidArgument(Pool::Create(db_->dsn(), options).status()));
  options = PoolOptions();
  options.statement_timeout = absl::Seconds(-1);
  EXPECT_TRUE(absl::IsInvalidArgument(Pool::Create(db_->dsn(), options).status()));
}

// Finding M4: every statement on a pooled session is bounded.
TEST_F(PoolTest, StatementTimeoutBoundsEveryStatementAndSurvivesReconnects) {
  PoolOptions options;
  options.size = 1;
  options.alive_check_after = absl::ZeroDuration();
  options.statement_timeout = absl::Milliseconds(250);
  auto pool = NewPool(options);
  ASSERT_NE(pool, nullptr);
  absl::Time start = absl::Now();
  absl::Status slow = pool->Run([](soci::session& sql) {
    sql << "SELECT pg_sleep(5)";
    return absl::OkStatus();
  });
  EXPECT_TRUE(absl::IsDeadlineExceeded(slow)) << slow;
  EXPECT_NE(slow.message().find("db.statement_timeout_ms"), absl::string_view::npos) << slow;
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  absl::Status tx = pool->InTransaction([](soci::session& sql) {
    sql << "SELECT pg_sleep(5)";
    return absl::OkStatus();
  });
  EXPECT_TRUE(absl::IsDeadlineExceeded(tx)) << tx;

  auto show = [&] {
    std::string value;
    EXPECT_TRUE(pool->Run([&](soci::session& sql) {
                      value = StatementTimeout(sql);
                      return absl::OkStatus();
                    }).ok());
    return value;
  };
  EXPECT_EQ(show(), "250ms");
  ASSERT_TRUE(pool->Run([](soci::session& sql) {
                    sql << "SET statement_timeout = 0";
                    sql << "RESET statement_timeout";
                    return absl::OkStatus();
                  }).ok());
  EXPECT_EQ(show(), "250ms") << "RESET returns to the startup setting";
  TerminateSessions();
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(show(), "250ms") << "a reopened session keeps it";

  // Dedicated sessions get the same settings; the default pool has none.
  auto dedicated = pool->OpenDedicated();
  ASSERT_TRUE(dedicated.ok()) << dedicated.status();
  EXPECT_EQ(StatementTimeout(**dedicated), "250ms");
  auto plain = NewPool(1, absl::Seconds(1));
  ASSERT_NE(plain, nullptr);
  ASSERT_TRUE(plain->Run([](soci::session& sql) {
                     EXPECT_EQ(StatementTimeout(sql), "0");
                     return absl::OkStatus();
                   }).ok());
}

TEST(DsnWithSettings, AppendsToTheOptionsOfKeywordDsnsAndUrls) {
  auto kw = DsnWithSettings("host=db.internal port=5433 dbname=app options='-c work_mem=64MB'",
                            {{"statement_timeout", "100"}, {"lock_timeout", "5 s"}});
  ASSERT_TRUE(kw.ok()) << kw.status();
  EXPECT_NE(kw->find("host='db.internal'"), std::string::npos) << *kw;
  EXPECT_NE(kw->find("port='5433'"), std::string::npos) << *kw;
  EXPECT_NE(kw->find("options='-c work_mem=64MB -c statement_timeout=100 -c lock_timeout=5\\\\ s'"),
            std::string::npos)
      << *kw;
  auto url = DsnWithSettings("postgresql://app:p%27w@db.internal:5433/sales?sslmode=require",
                             {{"statement_timeout", "100"}});
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_NE(url->find("user='app'"), std::string::npos) << *url;
  EXPECT_NE(url->find("password='p\\'w'"), std::string::npos) << *url;
  EXPECT_NE(url->find("dbname='sales'"), std::string::npos) << *url;
  EXPECT_NE(url->find("sslmode='require'"), std::string::npos) << *url;
  EXPECT_NE(url->find("options='-c statement_timeout=100'"), std::string::npos) << *url;
  EXPECT_EQ(*DsnWithSettings("host=h dbname=d", {}), "host=h dbname=d");
  EXPECT_TRUE(absl::IsInvalidArgument(
      DsnWithSettings("host='unterminated", {{"statement_timeout", "1"}}).status()));
}

}  // namespace
}  // namespace sluice::db
