#include "sink/sinks/jdbc/jdbc_sink.h"

#include <chrono>
#include <future>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/timestamp.pb.h"
#include "gmock/gmock.h"
#include "common/testing/silent_listener.h"
#include "gtest/gtest.h"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/pg_test_db.h"
#include "sink/sinks/testing/generated_pool.h"

namespace sluice::sink {
namespace {

// The jdbc sink's outcomes and goto Firehose's types (error_type_table.h).
// JdbcSink sets no type (firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:70 -> message/Message.java:33-36).
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/jdbc/JdbcSink.java:75 executeBatch throws SQLException; firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53
      // (was SINK_4XX_ERROR by SQLSTATE class 22/23/42)
      {"row rejected (constraint, missing column)", ErrorType::kDefaultError},
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/jdbc/JdbcSink.java:54 getConnection / :75 throw; firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53 (was SINK_RETRYABLE_ERROR)
      {"connection lost", ErrorType::kDefaultError},
      // the same (57014) (was SINK_RETRYABLE_ERROR)
      {"statement timeout", ErrorType::kDefaultError},
      // sluice only: one bad record fails alone (Firehose fails the batch);
      // README "Switching from Firehose"
      {"record unusable", ErrorType::kInvalidMessageError},
  });
  return *table;
}


using ::sluice::sink::testing::FindGenerated;

using ::sluice::sink::testing::PgTestDb;
using ::sluice::sink::testing::TestMessage;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Rows = std::vector<std::vector<std::string>>;

Message Record(int64_t offset, const std::string& order, int64_t amount) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(amount);
  pb->set_status(sluice::sink::testing::ACTIVE);
  pb->mutable_address()->set_city("Pune");
  pb->mutable_address()->set_zip(411001);
  pb->mutable_event_timestamp()->set_seconds(1714557600 + offset);
  pb->add_tags("a");
  pb->add_tags("b");
  (*pb->mutable_counts())["x"] = 3;
  pb->set_price(9.5);
  pb->set_paid(true);
  pb->add_past_addresses()->set_city("Goa");
  Message m;
  m.topic = "orders";
  m.offset = offset;
  m.value = pb->SerializeAsString();
  m.decoded = pb;
  return m;
}

constexpr char kMapping[] =
    R"({"1":"order_number","2":"amount","3":"status","4":{"1":"city"},"5":"event_ts",)"
    R"("6":"tags","7":"counts","8":"price","9":"paid","11":"past"})";

class JdbcSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = PgTestDb::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    ASSERT_TRUE(db_->Query("CREATE TABLE orders (order_number text PRIMARY KEY, amount bigint "
                           "CHECK (amount >= 0), status text, city text, event_ts timestamptz, "
                           "tags jsonb, counts json, price double precision, paid boolean, "
                           "past jsonb, address jsonb)")
                    .ok());
  }

  std::unique_ptr<Sink> MakeSink(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> vars = {
        {"SINK_JDBC_URL", db_->dsn()},
        {"SINK_JDBC_TABLE_NAME", "orders"},
        {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
        {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", kMapping}};
    for (auto& [k, v] : extra) vars[k] = v;
    env_ = Env(vars);
    auto sink = CreateFromContext<JdbcSink>(SinkContext{&env_, &metrics_, &FindGenerated});
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }

  Rows Query(const std::string& sql) {
    auto rows = db_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : Rows{};
  }

  std::unique_ptr<PgTestDb> db_;
  Env env_;
  NoopMetrics metrics_;
};

TEST_F(JdbcSinkTest, InsertsRowsWithMappedColumnsAndTypes) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A", 10), Record(2, "B", 20)}).empty());
  Rows rows = Query(
      "SELECT order_number, amount, status, city, "
      "to_char(event_ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), tags->>1, counts->>'x', "
      "price, paid, past->0->>'city', address FROM orders ORDER BY order_number");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[0], ElementsAre("A", "10", "ACTIVE", "Pune", "2024-05-01 10:00:01", "b", "3",
                                   "9.5", "t", "Goa", "<null>"));
  EXPECT_EQ(rows[1][1], "20");
  EXPECT_EQ(Query("SELECT pg_typeof(event_ts)::text FROM orders LIMIT 1")[0][0],
            "timestamp with time zone");
}

TEST_F(JdbcSinkTest, NestedMessageAsJson) {
  auto sink = MakeSink({{"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"order_number","4":"address"})"}});
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A", 1)}).empty());
  Rows rows = Query("SELECT address->>'city', address->>'zip' FROM orders");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_THAT(rows[0], ElementsAre("Pune", "411001"));
}

TEST_F(JdbcSinkTest, UpsertOnUniqueKeysLastOffsetWins) {
  auto sink = MakeSink({{"SINK_JDBC_UNIQUE_KEYS", "order_number"}});
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A", 1), Record(2, "B", 2), Record(3, "A", 3)}).empty());
  EXPECT_TRUE(sink->Push({Record(4, "B", 40)}).empty());
  Rows rows = Query("SELECT order_number, amount FROM orders ORDER BY order_number");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[0], ElementsAre("A", "3"));
  EXPECT_THAT(rows[1], ElementsAre("B", "40"));
}

TEST_F(JdbcSinkTest, ConstraintErrorFailsOnlyTheBadRowAs4xx) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, "A", 1), Record(2, "B", -5)});  // CHECK violation
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 2);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("row rejected (constraint, missing column)"));
  EXPECT_THAT(failed[0].error, HasSubstr("check constraint"));
  EXPECT_EQ(Query("SELECT order_number FROM orders")[0][0], "A");
  // The sink keeps working.
  EXPECT_TRUE(sink->Push({Record(3, "C", 1)}).empty());
  EXPECT_EQ(Query("SELECT count(*) FROM orders")[0][0], "2");
}

TEST_F(JdbcSinkTest, BadRowsAreIsolatedAndTheRestOfTheBatchIsWritten) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  std::vector<Message> batch;
  for (int i = 0; i < 200; ++i) {
    batch.push_back(Record(i, absl::StrCat("O", i), i == 17 || i == 150 ? -1 : i));
  }
  batch.push_back(Record(200, "O3", 5));  // duplicate primary key of row 3
  auto failed = sink->Push(batch);
  std::vector<int64_t> offsets;
  for (const auto& f : failed) offsets.push_back(f.message.offset);
  EXPECT_THAT(offsets, ElementsAre(17, 150, 200));
  EXPECT_THAT(failed[2].error, HasSubstr("duplicate key"));
  EXPECT_EQ(failed[2].error_type, FirehoseTypes()("row rejected (constraint, missing column)"));
  EXPECT_EQ(Query("SELECT count(*) FROM orders")[0][0], "198");
  EXPECT_EQ(Query("SELECT amount FROM orders WHERE order_number = 'O3'")[0][0], "3");
}

TEST_F(JdbcSinkTest, IsolationIsBoundedWhenEveryRowIsBad) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  std::vector<Message> batch;
  for (int i = 0; i < 500; ++i) batch.push_back(Record(i, absl::StrCat("O", i), -1));
  auto failed = sink->Push(batch);
  EXPECT_EQ(failed.size(), 500u);  // each one reported, none silently dropped
  EXPECT_EQ(Query("SELECT count(*) FROM orders")[0][0], "0");
}

TEST_F(JdbcSinkTest, SchemaErrorFailsTheWholeBatchWithoutBisecting) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  ASSERT_TRUE(db_->Query("ALTER TABLE orders DROP COLUMN past").ok());
  auto failed = sink->Push({Record(1, "A", 1), Record(2, "B", 2)});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("row rejected (constraint, missing column)"));
  EXPECT_THAT(failed[0].error, HasSubstr("past"));
}

TEST_F(JdbcSinkTest, UpsertErrorFailsOnlyTheMessagesOfTheBadRow) {
  auto sink = MakeSink({{"SINK_JDBC_UNIQUE_KEYS", "order_number"}});
  ASSERT_NE(sink, nullptr);
  // B's two messages collapse into one row, which violates the CHECK.
  auto failed = sink->Push({Record(1, "A", 1), Record(2, "B", 5), Record(3, "B", -1)});
  std::vector<int64_t> offsets;
  for (const auto& f : failed) offsets.push_back(f.message.offset);
  EXPECT_THAT(offsets, ElementsAre(2, 3));
  EXPECT_EQ(failed[1].error_type, FirehoseTypes()("row rejected (constraint, missing column)"));
  EXPECT_EQ(Query("SELECT order_number, amount FROM orders")[0][0], "A");
  EXPECT_TRUE(sink->Push({Record(4, "A", 7)}).empty());
  EXPECT_EQ(Query("SELECT amount FROM orders")[0][0], "7");
}

TEST_F(JdbcSinkTest, SpecialCharactersSurviveCopyEscaping) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  const std::string tricky = "a\tb\\N\nc\\d\re";
  Message m = Record(1, tricky, 1);
  EXPECT_TRUE(sink->Push({m}).empty());
  EXPECT_EQ(Query("SELECT order_number FROM orders")[0][0], tricky);
}

TEST_F(JdbcSinkTest, LostConnectionIsRetryableAndReconnects) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A", 1)}).empty());
  Query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = 'sluice-sink' AND datname = current_database()");
  auto failed = sink->Push({Record(2, "B", 1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("connection lost"));
  EXPECT_TRUE(sink->Push({Record(2, "B", 1)}).empty());
  EXPECT_EQ(Query("SELECT count(*) FROM orders")[0][0], "2");
}

TEST_F(JdbcSinkTest, JdbcUrlFormWithUsername) {
  // Turn "host=H port=P ..." into jdbc:postgresql://H:P/<db>.
  std::map<std::string, std::string> kv;
  for (absl::string_view part : absl::StrSplit(db_->dsn(), ' ', absl::SkipEmpty())) {
    std::vector<std::string> p = absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (p.size() == 2) kv[p[0]] = p[1];
  }
  auto sink = MakeSink({{"SINK_JDBC_URL", absl::StrCat("jdbc:postgresql://", kv["host"], ":",
                                                       kv["port"], "/", db_->name())},
                        {"SINK_JDBC_USERNAME", kv["user"]},
                        {"SINK_JDBC_PASSWORD", "unused-with-trust-auth"}});
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A", 1)}).empty());
  EXPECT_EQ(Query("SELECT count(*) FROM orders")[0][0], "1");
}

TEST_F(JdbcSinkTest, LargeBatch) {
  ASSERT_TRUE(db_->Query("CREATE TABLE wide (a text, b bigint, c text)").ok());
  auto sink = MakeSink({{"SINK_JDBC_TABLE_NAME", "wide"},
                        {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"a","2":"b","3":"c"})"}});
  ASSERT_NE(sink, nullptr);
  std::vector<Message> batch;
  for (int i = 0; i < 30000; ++i) batch.push_back(Record(i, absl::StrCat("o", i), i));
  EXPECT_TRUE(sink->Push(batch).empty());
  EXPECT_EQ(Query("SELECT count(*), sum(b) FROM wide")[0],
            (std::vector<std::string>{"30000", "449985000"}));
}

TEST_F(JdbcSinkTest, UndecodedMessageIsInvalid) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  Message m = Record(1, "A", 1);
  m.decoded = nullptr;
  auto failed = sink->Push({m, Record(2, "B", 1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("record unusable"));
  EXPECT_EQ(Query("SELECT order_number FROM orders")[0][0], "B");
}

// A pool holding a copy of TestMessage's file, like the schema registry's.
std::unique_ptr<google::protobuf::DescriptorPool> RegistryPool() {
  auto pool = std::make_unique<google::protobuf::DescriptorPool>();
  google::protobuf::FileDescriptorProto ts, file;
  google::protobuf::Timestamp::descriptor()->file()->CopyTo(&ts);
  TestMessage::descriptor()->file()->CopyTo(&file);
  pool->BuildFile(ts);
  pool->BuildFile(file);
  return pool;
}

TEST_F(JdbcSinkTest, SurvivesSchemaRefreshThatFreesTheOldPool) {
  auto old_pool = RegistryPool();
  std::map<std::string, std::string> vars = {
      {"SINK_JDBC_URL", db_->dsn()},
      {"SINK_JDBC_TABLE_NAME", "orders"},
      {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
      {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", kMapping}};
  Env env(vars);
  auto find = [&](absl::string_view name)
      -> absl::StatusOr<const google::protobuf::Descriptor*> {
    return old_pool->FindMessageTypeByName(std::string(name));
  };
  auto sink = CreateFromContext<JdbcSink>(SinkContext{&env, &metrics_, find});
  ASSERT_TRUE(sink.ok()) << sink.status();
  old_pool.reset();  // the registry refreshed and dropped the old snapshot

  // Messages now come decoded with the new pool's descriptors.
  auto new_pool = RegistryPool();
  google::protobuf::DynamicMessageFactory factory(new_pool.get());
  Message m = Record(1, "A", 5);
  std::unique_ptr<google::protobuf::Message> dyn(
      factory.GetPrototype(new_pool->FindMessageTypeByName("sluice.sink.testing.TestMessage"))
          ->New());
  ASSERT_TRUE(dyn->ParseFromString(m.value));
  m.decoded = std::shared_ptr<const google::protobuf::Message>(std::move(dyn));
  EXPECT_TRUE((*sink)->Push({m}).empty());
  EXPECT_THAT(Query("SELECT order_number, amount, city FROM orders")[0],
              ElementsAre("A", "5", "Pune"));
}

TEST(JdbcSinkConfigTest, ErrorsNameTheVariable) {
  NoopMetrics metrics;
  std::map<std::string, std::string> base = {
      {"SINK_JDBC_URL", "host=/nonexistent"},
      {"SINK_JDBC_TABLE_NAME", "t"},
      {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
      {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"a"})"}};
  for (const char* missing : {"SINK_JDBC_URL", "SINK_JDBC_TABLE_NAME", "INPUT_SCHEMA_PROTO_CLASS",
                              "INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING"}) {
    auto vars = base;
    vars.erase(missing);
    Env env(vars);
    auto c = JdbcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
    ASSERT_FALSE(c.ok()) << missing;
    EXPECT_THAT(c.status().message(), HasSubstr(missing));
  }
  auto vars = base;
  vars["SINK_JDBC_UNIQUE_KEYS"] = "zzz";
  Env env(vars);
  auto c = JdbcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("SINK_JDBC_UNIQUE_KEYS"));
}

TEST(JdbcSinkConfigTest, UrlAndIdentifiers) {
  EXPECT_EQ(JdbcUrlToConninfo("jdbc:postgresql://h:5432/db?sslmode=disable"),
            "postgresql://h:5432/db?sslmode=disable");
  EXPECT_EQ(JdbcUrlToConninfo("host=h dbname=d"), "host=h dbname=d");
  EXPECT_EQ(QuoteIdentifier("public.my\"table"), "\"public\".\"my\"\"table\"");
}

// Review M4: without a statement timeout a write blocked on a lock held
// the worker (and its consumer's max.poll budget) forever.
TEST_F(JdbcSinkTest, StatementTimeoutFailsAWriteBlockedOnALockAsRetryable) {
  auto sink = MakeSink({{"SINK_JDBC_STATEMENT_TIMEOUT_MS", "500"}});
  ASSERT_NE(sink, nullptr);
  ASSERT_TRUE(db_->Query("BEGIN; LOCK TABLE orders IN ACCESS EXCLUSIVE MODE").ok());
  auto push = std::async(std::launch::async, [&] { return sink->Push({Record(1, "A", 1)}); });
  const bool finished = push.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  ASSERT_TRUE(db_->Query("ROLLBACK").ok());  // unblocks the write if it still waits
  auto failed = push.get();
  EXPECT_TRUE(finished) << "the write waited for the lock without a timeout";
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("statement timeout"));
  EXPECT_THAT(failed[0].error, HasSubstr("statement timeout"));
  // The connection stays usable once the lock is gone.
  EXPECT_TRUE(sink->Push({Record(2, "B", 2)}).empty());
}

// Review M4: a server that accepts TCP but never answers the startup
// packet made the connect hang forever.
TEST(JdbcSinkTimeoutTest, ConnectGivesUpAfterTheConnectionTimeout) {
  std::optional<sluice::testing::SilentListener> hung;
  hung.emplace();
  NoopMetrics metrics;
  Env env({{"SINK_JDBC_URL", absl::StrCat("host=127.0.0.1 port=", hung->port(),
                                          " dbname=x user=u sslmode=disable")},
           {"SINK_JDBC_TABLE_NAME", "t"},
           {"SINK_JDBC_CONNECTION_POOL_TIMEOUT_MS", "1000"},
           {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
           {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"a"})"}});
  auto start = std::chrono::steady_clock::now();
  auto create = std::async(std::launch::async, [&] {
    return CreateFromContext<JdbcSink>(SinkContext{&env, &metrics, &FindGenerated});
  });
  const bool finished = create.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  hung.reset();  // resets the pending connection if the connect still waits
  auto sink = create.get();
  EXPECT_TRUE(finished) << "connecting waited without a timeout";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_FALSE(sink.ok());
  EXPECT_EQ(sink.status().code(), absl::StatusCode::kUnavailable);
}

TEST(JdbcSinkConfigTest, TimeoutsHaveDefaultsAndAreChecked) {
  NoopMetrics metrics;
  std::map<std::string, std::string> base = {
      {"SINK_JDBC_URL", "host=/nonexistent"},
      {"SINK_JDBC_TABLE_NAME", "t"},
      {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
      {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"a"})"}};
  {
    Env env(base);
    auto c = JdbcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->connect_timeout_ms, 1000);
    EXPECT_EQ(c->statement_timeout_ms, 60000);
  }
  for (auto [name, value] : {std::pair{"SINK_JDBC_CONNECTION_POOL_TIMEOUT_MS", "0"},
                             std::pair{"SINK_JDBC_CONNECTION_POOL_TIMEOUT_MS", "x"},
                             std::pair{"SINK_JDBC_STATEMENT_TIMEOUT_MS", "-1"}}) {
    auto vars = base;
    vars[name] = value;
    Env env(vars);
    auto c = JdbcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
    ASSERT_FALSE(c.ok()) << name << "=" << value;
    EXPECT_THAT(c.status().message(), HasSubstr(name));
  }
}

}  // namespace
}  // namespace sluice::sink
