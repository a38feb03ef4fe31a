// SINK_JDBC_EXACTLY_ONCE_ENABLE end to end (issue 40, item 5): sluice-sink
// on a real Apache Kafka broker writes sample records into a PostgreSQL table
// WITHOUT a key (a record written twice shows as two rows), and is killed
// with -9 ten times while records flow. With the mode on, each batch's rows
// and offsets commit in one transaction and a restarted member starts at the
// stored offsets: 0 lost, 0 duplicates. With it off (the same table, plain
// inserts) nothing is lost and the duplicates are printed.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/kafka_broker.h"
#include "integration/sink_harness.h"
#include "sink/sinks/testing/pg_test_db.h"

namespace sluice::integration {
namespace {

using sink::testing::PgTestDb;

constexpr int kCycles = 10;
constexpr int kPerCycle = 1500;
constexpr int kTotal = kCycles * kPerCycle;

struct SoakResult {
  int64_t distinct = 0;  // records with at least one row
  int64_t rows = 0;
  int64_t restarts_from_db = 0;  // restarted members that logged stored start offsets
  int64_t kills_while_producing = 0;
  double seconds = 0;
};

int64_t QueryInt(PgTestDb& db, const std::string& sql) {
  auto rows = db.Query(sql);
  int64_t n = -1;
  if (!rows.ok() || rows->empty() || !absl::SimpleAtoi((*rows)[0][0], &n)) {
    ADD_FAILURE() << sql << ": " << (rows.ok() ? "no number" : rows.status().ToString());
  }
  return n;
}

class JdbcExactlyOnceSoak : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new KafkaBroker(KafkaBroker::Start({"eos:2", "plain:2", "eos2:4"}, TempDir("eos_broker")));
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }

  // Runs kCycles kill -9 cycles of one sluice-sink with `workers` workers
  // reading `topic` (`partitions` partitions) into a fresh database, then
  // drains with a last member.
  SoakResult Soak(const std::string& topic, bool exactly_once, int workers = 1,
                  int partitions = 2) {
    SoakResult out;
    auto db_or = PgTestDb::Create();
    if (!db_or.ok()) {
      ADD_FAILURE() << db_or.status();
      return out;
    }
    PgTestDb& db = **db_or;
    EXPECT_TRUE(db.Query("CREATE TABLE orders (order_number text)").ok());
    const std::string group = absl::StrCat("soak-", topic);
    auto env = SinkEnv(broker_->bootstrap, topic, group, SampleDescriptorUrl());
    env["SINK_TYPE"] = "jdbc";
    env["SINK_JDBC_URL"] = db.dsn();
    env["SINK_JDBC_TABLE_NAME"] = "orders";
    env["INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING"] = R"({"1":"order_number"})";
    env["SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS"] = "100";
    // A killed member holds its partitions until its session lapses.
    env["SOURCE_KAFKA_CONSUMER_CONFIG_SESSION_TIMEOUT_MS"] = "3000";
    env["SOURCE_KAFKA_CONSUMER_CONFIG_HEARTBEAT_INTERVAL_MS"] = "300";
    if (exactly_once) env["SINK_JDBC_EXACTLY_ONCE_ENABLE"] = "true";
    env["APPLICATION_THREAD_COUNT"] = absl::StrCat(workers);
    auto rows = [&db] { return QueryInt(db, "SELECT count(*) FROM orders"); };
    auto distinct = [&db] { return QueryInt(db, "SELECT count(DISTINCT order_number) FROM orders"); };
    const std::string dir = TempDir(absl::StrCat("eos_soak_", topic));
    // Records keep coming while the sink is killed and restarted: about 300
    // every 0.8 s, slower than a member takes to rejoin after a kill.
    std::atomic<bool> producing{true};
    std::thread producer([this, topic, &producing] {
      for (int i = 0; i < kTotal; i += 300) {
        ProduceSamples(broker_->bootstrap, topic, i, 300);
        absl::SleepFor(absl::Milliseconds(800));
      }
      producing.store(false);
    });
    const absl::Time start = absl::Now();
    for (int cycle = 0; cycle < kCycles; ++cycle) {
      auto sink = StartSink(env, absl::StrCat(dir, "/", cycle));
      // Kill it once it has written records not seen before (not only the
      // replays of a restart), at a varying point of its stream of batches.
      const int64_t before = distinct();
      EXPECT_TRUE(WaitFor([&] { return distinct() >= before + 200 || distinct() >= kTotal; },
                          absl::Seconds(60)))
          << sink->Stderr();
      absl::SleepFor(absl::Milliseconds((cycle * 37) % 120));
      if (producing.load()) ++out.kills_while_producing;
      sink->Signal(SIGKILL);
      sink->Wait(absl::Seconds(5));
      if (sink->Stderr().find(absl::StrCat("stored in the database [", topic, "-")) !=
          std::string::npos) {
        ++out.restarts_from_db;
      }
    }
    producer.join();
    // A last member drains; Kafka commits follow the database's.
    auto last = StartSink(env, dir + "/last");
    EXPECT_TRUE(WaitFor([&] { return CommittedSum(broker_->bootstrap, group, topic, partitions) == kTotal; },
                        absl::Seconds(90)))
        << last->Stderr();
    last->Signal(SIGTERM);
    EXPECT_EQ(last->Wait(absl::Seconds(20)), 0) << last->Stderr();
    out.seconds = absl::ToDoubleSeconds(absl::Now() - start);
    out.rows = rows();
    out.distinct = distinct();
    if (exactly_once) {
      EXPECT_EQ(QueryInt(db, absl::StrCat("SELECT sum(next_offset) FROM sluice_sink_offsets WHERE "
                                          "consumer_group = '", group, "'")),
                kTotal)
          << "the stored offsets cover every record";
    }
    std::printf("soak %s (SINK_JDBC_EXACTLY_ONCE_ENABLE=%s, %d worker(s)): %d kill -9 cycles, "
                "%d records, "
                "%lld of them while records were produced, %lld lost, %lld duplicates (%lld rows), %lld "
                "restarts started from stored offsets, %.1f s\n",
                topic.c_str(), exactly_once ? "true" : "false", workers, kCycles, kTotal,
                static_cast<long long>(out.kills_while_producing),
                static_cast<long long>(kTotal - out.distinct),
                static_cast<long long>(out.rows - out.distinct), static_cast<long long>(out.rows),
                static_cast<long long>(out.restarts_from_db), out.seconds);
    return out;
  }

  static KafkaBroker* broker_;
};

KafkaBroker* JdbcExactlyOnceSoak::broker_ = nullptr;

TEST_F(JdbcExactlyOnceSoak, OnTenKillNineCyclesLoseNothingAndDuplicateNothing) {
  SoakResult r = Soak("eos", /*exactly_once=*/true);
  RecordProperty("lost", static_cast<int>(kTotal - r.distinct));
  RecordProperty("duplicates", static_cast<int>(r.rows - r.distinct));
  RecordProperty("kills_while_producing", static_cast<int>(r.kills_while_producing));
  EXPECT_EQ(r.distinct, kTotal) << "nothing lost";
  EXPECT_EQ(r.rows, r.distinct) << "no record written twice";
  // Every restart found offsets in the database (the first start has none).
  EXPECT_GE(r.restarts_from_db, kCycles - 1);
}

// Each worker of a process is a member with its own partitions, connection
// and transaction.
TEST_F(JdbcExactlyOnceSoak, OnWithTwoWorkersPerProcess) {
  SoakResult r = Soak("eos2", /*exactly_once=*/true, /*workers=*/2, /*partitions=*/4);
  RecordProperty("lost", static_cast<int>(kTotal - r.distinct));
  RecordProperty("duplicates", static_cast<int>(r.rows - r.distinct));
  EXPECT_EQ(r.distinct, kTotal) << "nothing lost";
  EXPECT_EQ(r.rows, r.distinct) << "no record written twice";
  EXPECT_GE(r.restarts_from_db, kCycles - 1);
}

TEST_F(JdbcExactlyOnceSoak, OffTenKillNineCyclesLoseNothingAndPrintTheDuplicates) {
  SoakResult r = Soak("plain", /*exactly_once=*/false);
  RecordProperty("lost", static_cast<int>(kTotal - r.distinct));
  RecordProperty("duplicates", static_cast<int>(r.rows - r.distinct));
  EXPECT_EQ(r.distinct, kTotal) << "nothing lost";
  EXPECT_EQ(r.restarts_from_db, 0) << "the mode is off: no stored offsets";
}

}  // namespace
}  // namespace sluice::integration
