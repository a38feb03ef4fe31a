// The jdbc sink with INPUT_SCHEMA_DATA_TYPE=json: rows come from the decode
// stage's JSON through INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING, into a real
// PostgreSQL.
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sink/schema/json_decoder.h"
#include "sink/sinks/jdbc/jdbc_sink.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/pg_test_db.h"

namespace sluice::sink {
namespace {

// The jdbc sink's outcomes for JSON input and goto Firehose's types
// (error_type_table.h; the others are in jdbc_sink_test.cc).
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/jdbc/JdbcSink.java:75 executeBatch throws SQLException; firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53
      // (was SINK_4XX_ERROR)
      {"row rejected (constraint, missing column)", ErrorType::kDefaultError},
      // sluice only: one bad record fails alone (Firehose fails the batch);
      // README "Switching from Firehose"
      {"record unusable", ErrorType::kInvalidMessageError},
  });
  return *table;
}


using ::sluice::sink::testing::PgTestDb;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kMapping[] =
    R"({"order_number":"order_number","amount":"amount","driver":{"name":"driver_name"},)"
    R"("tags":"tags","paid":"paid"})";

std::map<std::string, std::string> JsonVars(const std::string& dsn) {
  return {{"SINK_JDBC_URL", dsn},
          {"SINK_JDBC_TABLE_NAME", "orders"},
          {"INPUT_SCHEMA_DATA_TYPE", "json"},
          {"INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", kMapping}};
}

std::vector<Message> Decoded(const std::vector<std::string>& values) {
  std::vector<Message> batch(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    batch[i].topic = "orders";
    batch[i].offset = static_cast<int64_t>(i);
    batch[i].value = values[i];
  }
  std::vector<FailedMessage> failed;
  JsonDecoder(false).Decode(&batch, &failed);
  EXPECT_TRUE(failed.empty());
  return batch;
}

class JdbcJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = PgTestDb::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    ASSERT_TRUE(db_->Query("CREATE TABLE orders (order_number text PRIMARY KEY, amount numeric "
                           "CHECK (amount >= 0), driver_name text, tags jsonb, paid boolean)")
                    .ok());
  }

  std::unique_ptr<Sink> MakeSink(std::map<std::string, std::string> extra = {}) {
    auto vars = JsonVars(db_->dsn());
    for (auto& [k, v] : extra) vars[k] = v;
    env_ = Env(vars);
    // No schema registry: JSON input has no proto classes.
    auto sink = CreateFromContext<JdbcSink>(SinkContext{&env_, &metrics_, nullptr});
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }

  std::vector<std::vector<std::string>> Query(const std::string& sql) {
    auto rows = db_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : std::vector<std::vector<std::string>>{};
  }

  std::unique_ptr<PgTestDb> db_;
  Env env_;
  NoopMetrics metrics_;
};

TEST_F(JdbcJsonTest, MapsMembersByNameIntoTypedColumns) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push(Decoded(
      {R"({"order_number":"A","amount":12.5,"driver":{"name":"ana\ttab"},"tags":["x","y"],"paid":true})",
       R"({"order_number":"B","amount":3,"extra":"ignored"})"}));
  EXPECT_TRUE(failed.empty());
  EXPECT_THAT(Query("SELECT order_number, amount, driver_name, tags->>1, paid FROM orders "
                    "ORDER BY order_number"),
              ElementsAre(ElementsAre("A", "12.5", "ana\ttab", "y", "t"),
                          ElementsAre("B", "3", "<null>", "<null>", "<null>")));
}

TEST_F(JdbcJsonTest, UpsertsOnUniqueKeysAndABadRowFailsAlone) {
  auto sink = MakeSink({{"SINK_JDBC_UNIQUE_KEYS", "order_number"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push(Decoded({R"({"order_number":"A","amount":1})",
                                    R"({"order_number":"B","amount":-1})",
                                    R"({"order_number":"A","amount":2})"}));
  ASSERT_EQ(failed.size(), 1u) << "the CHECK constraint rejects B";
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("row rejected (constraint, missing column)"));
  EXPECT_THAT(Query("SELECT order_number, amount FROM orders"), ElementsAre(ElementsAre("A", "2")));
}

TEST_F(JdbcJsonTest, ARecordThatWasNotDecodedAsJsonIsInvalid) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  Message raw;
  raw.value = R"({"order_number":"A"})";
  auto failed = sink->Push({raw});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("record unusable"));
  EXPECT_THAT(failed[0].error, HasSubstr("not decoded as JSON"));
}

TEST(JdbcJsonConfigTest, StartUpErrorsNameTheVariable) {
  NoopMetrics metrics;
  auto vars = JsonVars("host=/nonexistent");
  vars.erase("INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING");
  vars["INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING"] = R"({"1":"a"})";
  Env env(vars);
  auto c = JdbcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("needs INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING"));
  vars["INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING"] = R"({"a":1})";
  env = Env(vars);
  c = JdbcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING: \"a\""));
  vars["INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING"] = R"({"a":"a"})";
  vars["SINK_JDBC_UNIQUE_KEYS"] = "b";
  env = Env(vars);
  c = JdbcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("\"b\" is not a column of INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING"));
}

}  // namespace
}  // namespace sluice::sink
