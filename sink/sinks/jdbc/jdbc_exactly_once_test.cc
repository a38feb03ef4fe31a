// SINK_JDBC_EXACTLY_ONCE_ENABLE against a real PostgreSQL: rows and offsets
// commit in one transaction, a failure rolls both back, and stored offsets
// read back and fence a second writer.
#include <map>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sink/sinks/jdbc/jdbc_offsets.h"
#include "sink/sinks/jdbc/jdbc_sink.h"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/pg_test_db.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::FindGenerated;
using ::sluice::sink::testing::PgTestDb;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;
using Rows = std::vector<std::vector<std::string>>;

Message Record(int32_t partition, int64_t offset, int64_t amount) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(absl::StrCat("p", partition, "-", offset));
  pb->set_amount(amount);
  Message m;
  m.topic = "orders";
  m.partition = partition;
  m.offset = offset;
  m.value = pb->SerializeAsString();
  m.decoded = pb;
  return m;
}

const TopicPartition kP0{"orders", 0};
const TopicPartition kP1{"orders", 1};

class JdbcExactlyOnceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = PgTestDb::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    // No key: a row written twice would show twice.
    ASSERT_TRUE(
        db_->Query("CREATE TABLE plain (order_number text, amount bigint CHECK (amount >= 0))")
            .ok());
  }

  std::unique_ptr<JdbcSink> MakeSink(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> vars = {
        {"SINK_JDBC_URL", db_->dsn()},
        {"SINK_JDBC_TABLE_NAME", "plain"},
        {"SINK_JDBC_EXACTLY_ONCE_ENABLE", "true"},
        {"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g1"},
        {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
        {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"order_number","2":"amount"})"}};
    for (auto& [k, v] : extra) vars[k] = v;
    envs_.push_back(std::make_unique<Env>(vars));
    auto config = JdbcSinkConfig::FromEnv(*envs_.back(), SinkContext{envs_.back().get(), &metrics_,
                                                                     &FindGenerated});
    EXPECT_TRUE(config.ok()) << config.status();
    if (!config.ok()) return nullptr;
    auto sink = JdbcSink::Create(*std::move(config), &metrics_);
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }

  Rows Query(const std::string& sql) {
    auto rows = db_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : Rows{};
  }
  std::string Count() { return Query("SELECT count(*) FROM plain")[0][0]; }
  Rows Offsets() {
    return Query("SELECT consumer_group, topic, partition, next_offset FROM sluice_sink_offsets "
                 "ORDER BY partition");
  }

  std::unique_ptr<PgTestDb> db_;
  std::vector<std::unique_ptr<Env>> envs_;
  NoopMetrics metrics_;
};

TEST_F(JdbcExactlyOnceTest, RowsAndOffsetsAppearTogetherAtCommit) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  auto loaded = sink->Load({kP0, kP1});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->empty());  // the table was created empty
  EXPECT_TRUE(sink->Push({Record(0, 5, 1), Record(0, 6, 2), Record(1, 9, 3)}).empty());
  // Written, not committed: another session sees neither rows nor offsets.
  EXPECT_EQ(Count(), "0");
  EXPECT_TRUE(Offsets().empty());
  ASSERT_TRUE(sink->Commit({{kP0, 7}, {kP1, 10}}).ok());
  EXPECT_EQ(Count(), "3");
  EXPECT_EQ(Offsets(), (Rows{{"g1", "orders", "0", "7"}, {"g1", "orders", "1", "10"}}));
  // The next batch moves the stored offsets on.
  EXPECT_TRUE(sink->Push({Record(0, 7, 4)}).empty());
  ASSERT_TRUE(sink->Commit({{kP0, 8}, {kP1, 10}}).ok());
  EXPECT_EQ(Count(), "4");
  EXPECT_EQ(Offsets()[0][3], "8");
}

TEST_F(JdbcExactlyOnceTest, RollbackDiscardsTheBatchsRows) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  ASSERT_TRUE(sink->Load({kP0}).ok());
  EXPECT_TRUE(sink->Push({Record(0, 0, 1), Record(0, 1, 1)}).empty());
  sink->Rollback();
  EXPECT_EQ(Count(), "0");
  EXPECT_TRUE(Offsets().empty());
  // The sink goes on with a fresh transaction.
  EXPECT_TRUE(sink->Push({Record(0, 0, 1)}).empty());
  ASSERT_TRUE(sink->Commit({{kP0, 1}}).ok());
  EXPECT_EQ(Count(), "1");
}

TEST_F(JdbcExactlyOnceTest, BadRowFailsAloneAndTheRestCommitsWithTheOffset) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  ASSERT_TRUE(sink->Load({kP0}).ok());
  // amount -1 breaks the CHECK: the bisection finds it under savepoints and
  // the transaction stays usable for the other rows.
  std::vector<FailedMessage> failed =
      sink->Push({Record(0, 0, 1), Record(0, 1, -1), Record(0, 2, 1), Record(0, 3, 1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(Count(), "0");
  ASSERT_TRUE(sink->Commit({{kP0, 4}}).ok());
  EXPECT_EQ(Query("SELECT string_agg(order_number, ',' ORDER BY order_number) FROM plain")[0][0],
            "p0-0,p0-2,p0-3");
}

TEST_F(JdbcExactlyOnceTest, ConnectionLostMidBatchCommitsNeitherRowsNorOffsets) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  ASSERT_TRUE(sink->Load({kP0}).ok());
  EXPECT_TRUE(sink->Push({Record(0, 0, 1), Record(0, 1, 1)}).empty());
  // The server ends the sink's session (as a restart or failover would).
  ASSERT_TRUE(db_->Query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                         "application_name = 'sluice-sink'")
                  .ok());
  // The retry of a later push reconnects and writes on a new connection...
  std::vector<FailedMessage> failed = sink->Push({Record(0, 2, 1)});
  if (!failed.empty()) failed = sink->Push({Record(0, 2, 1)});
  EXPECT_TRUE(failed.empty());
  // ...but the batch lost its first rows: the commit must refuse.
  absl::Status s = sink->Commit({{kP0, 3}});
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("lost"));
  EXPECT_EQ(Count(), "0");
  EXPECT_TRUE(Offsets().empty());
  // Read back and redone, the batch commits whole.
  auto loaded = sink->Load({kP0});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->empty());
  EXPECT_TRUE(sink->Push({Record(0, 0, 1), Record(0, 1, 1), Record(0, 2, 1)}).empty());
  ASSERT_TRUE(sink->Commit({{kP0, 3}}).ok());
  EXPECT_EQ(Count(), "3");
  EXPECT_EQ(Offsets()[0][3], "3");
}

TEST_F(JdbcExactlyOnceTest, LoadReadsStoredOffsetsAndFencesASecondWriter) {
  auto a = MakeSink();
  auto b = MakeSink();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(a->Load({kP0}).ok());
  ASSERT_TRUE(b->Load({kP0}).ok());  // both think partition 0 starts afresh
  EXPECT_TRUE(a->Push({Record(0, 0, 1)}).empty());
  ASSERT_TRUE(a->Commit({{kP0, 1}}).ok());
  // b, a member that lost the partition without knowing, writes the same
  // record: its commit is refused and its row is discarded.
  EXPECT_TRUE(b->Push({Record(0, 0, 1)}).empty());
  absl::Status s = b->Commit({{kP0, 1}});
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_EQ(Count(), "1");
  // Loaded again, b starts where a left off, and may commit from there.
  auto loaded = b->Load({kP0, kP1});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].offset, 1);
  EXPECT_TRUE(b->Push({Record(0, 1, 1)}).empty());
  ASSERT_TRUE(b->Commit({{kP0, 2}}).ok());
  // a's view is now stale in turn.
  EXPECT_TRUE(absl::IsAborted(a->Commit({{kP0, 2}})));
  EXPECT_EQ(Count(), "2");
  // Another group's offsets are its own.
  auto other = MakeSink({{"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g2"}});
  ASSERT_NE(other, nullptr);
  auto none = other->Load({kP0});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(JdbcExactlyOnceTest, CommitOfAPartitionNeverLoadedIsRefused) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(0, 0, 1)}).empty());
  EXPECT_TRUE(absl::IsFailedPrecondition(sink->Commit({{kP0, 1}})));
  EXPECT_EQ(Count(), "0");
}

TEST_F(JdbcExactlyOnceTest, UpsertsShareTheTransaction) {
  ASSERT_TRUE(db_->Query("CREATE TABLE keyed (order_number text PRIMARY KEY, amount bigint)").ok());
  auto sink = MakeSink({{"SINK_JDBC_TABLE_NAME", "keyed"},
                        {"SINK_JDBC_UNIQUE_KEYS", "order_number"},
                        {"SINK_JDBC_OFFSETS_TABLE_NAME", "public.my_offsets"}});
  ASSERT_NE(sink, nullptr);
  ASSERT_TRUE(sink->Load({kP0}).ok());
  EXPECT_TRUE(sink->Push({Record(0, 0, 1), Record(0, 1, 2)}).empty());
  EXPECT_TRUE(sink->Push({Record(0, 2, 3)}).empty());  // a second write in the same batch
  EXPECT_EQ(Query("SELECT count(*) FROM keyed")[0][0], "0");
  ASSERT_TRUE(sink->Commit({{kP0, 3}}).ok());
  EXPECT_EQ(Query("SELECT count(*) FROM keyed")[0][0], "3");
  EXPECT_EQ(Query("SELECT next_offset FROM my_offsets")[0][0], "3");
}

TEST_F(JdbcExactlyOnceTest, ConfigNamesTheVariables) {
  Env same({{"SINK_JDBC_URL", db_->dsn()},
            {"SINK_JDBC_TABLE_NAME", "plain"},
            {"SINK_JDBC_EXACTLY_ONCE_ENABLE", "true"},
            {"SINK_JDBC_OFFSETS_TABLE_NAME", "plain"},
            {"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g"},
            {"INPUT_SCHEMA_DATA_TYPE", "json"},
            {"INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", R"({"a":"order_number"})"}});
  auto c = JdbcSinkConfig::FromEnv(same, SinkContext{&same, &metrics_, nullptr});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("SINK_JDBC_OFFSETS_TABLE_NAME"));
  Env bad({{"SINK_JDBC_URL", db_->dsn()},
           {"SINK_JDBC_TABLE_NAME", "plain"},
           {"SINK_JDBC_EXACTLY_ONCE_ENABLE", "yes please"},
           {"INPUT_SCHEMA_DATA_TYPE", "json"},
           {"INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", R"({"a":"order_number"})"}});
  c = JdbcSinkConfig::FromEnv(bad, SinkContext{&bad, &metrics_, nullptr});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("SINK_JDBC_EXACTLY_ONCE_ENABLE"));
  // Off (the default): no offsets table is created.
  Env off({{"SINK_JDBC_URL", db_->dsn()},
           {"SINK_JDBC_TABLE_NAME", "plain"},
           {"INPUT_SCHEMA_DATA_TYPE", "json"},
           {"INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", R"({"a":"order_number"})"}});
  c = JdbcSinkConfig::FromEnv(off, SinkContext{&off, &metrics_, nullptr});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->exactly_once);
  ASSERT_TRUE(JdbcSink::Create(*std::move(c), &metrics_).ok());
  EXPECT_EQ(Query("SELECT count(*) FROM pg_tables WHERE tablename = 'sluice_sink_offsets'")[0][0],
            "0");
}

}  // namespace
}  // namespace sluice::sink
