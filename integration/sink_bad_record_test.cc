// One bad record among good ones on each real-server sink (issue 16, "Every
// sink"): a JSON topic holds A, B and C, and only B is refused — by the
// server where it can be (Redis: WRONGTYPE; InfluxDB: a field type conflict
// in a partial write; ClickHouse: a row that does not parse), by the sink
// where the server never sees it (Prometheus: a value that is not a number).
// B alone goes to the Kafka DLQ, A and C are stored, and every offset is
// committed.
#include <signal.h>

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "integration/sink_harness.h"
#include "sink/sinks/testing/clickhouse_test_server.h"
#include "sink/sinks/testing/influx_test_server.h"
#include "sink/sinks/testing/prometheus_test_server.h"
#include "sink/sinks/testing/redis_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::ClickHouseTestServer;
using sink::testing::InfluxTestServer;
using sink::testing::PrometheusTestServer;
using sink::testing::RedisTestServer;

const std::vector<std::string> kRecords = {
    R"({"order":"A","amount":10,"ts":1714557600000})",
    R"({"order":"B","amount":"ten","ts":1714557601000})",
    R"({"order":"C","amount":30,"ts":1714557602000})"};

// Runs sluice-sink with `sink_env` over kRecords until every offset is
// committed; expects `stored()` (A and C) and B in the DLQ topic.
void ExpectOnlyTheBadRecordFails(const std::string& name,
                                 const std::map<std::string, std::string>& sink_env,
                                 const std::function<bool()>& stored,
                                 const std::function<std::string()>& describe) {
  std::string dir = TempDir("sink_bad_record_" + name);
  DevBroker broker = DevBroker::Start({"rides:1", "rides-dlq:1"}, dir);
  ProduceRaw(broker.bootstrap, "rides", 0, kRecords);
  const std::string group = "bad-record-" + name;
  auto env = JsonSinkEnv(broker.bootstrap, "rides", group);
  env["DLQ_SINK_ENABLE"] = "true";
  env["DLQ_WRITER_TYPE"] = "KAFKA";
  env["DLQ_KAFKA_BROKERS"] = broker.bootstrap;
  env["DLQ_KAFKA_TOPIC"] = "rides-dlq";
  // Redis's WRONGTYPE and InfluxDB's refused point are DEFAULT_ERROR, as goto
  // Firehose types them (depot RedisSinkUtils.java:47; InfluxSink.java:67 ->
  // AbstractSink.java:48-53), which the default ERROR_TYPES_FOR_RETRY retries:
  // a few retries, then the DLQ (Firehose's retries.md/dlq.md pattern).
  env["RETRY_MAX_ATTEMPTS"] = "2";
  env["ERROR_TYPES_FOR_DLQ"] = "DEFAULT_ERROR,SINK_4XX_ERROR,INVALID_MESSAGE_ERROR";
  env["ERROR_TYPES_FOR_FAILING"] = "DESERIALIZATION_ERROR";
  for (const auto& [k, v] : sink_env) env[k] = v;
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, group, "rides", 1)[0] == 3; },
                      absl::Seconds(30)))
      << sink->Stderr();
  // A and C stored and all three offsets committed: B is the only record
  // that can have failed, and it is in the DLQ.
  EXPECT_TRUE(WaitFor(stored, absl::Seconds(10))) << describe();
  std::vector<ConsumedRecord> dead = ReadAll(broker.bootstrap, "rides-dlq", 1, absl::Seconds(10));
  ASSERT_EQ(dead.size(), 1u) << sink->Stderr();
  EXPECT_EQ(dead[0].value, kRecords[1]);
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST(SinkBadRecord, RedisRefusesOneCommandWithWrongtype) {
  auto redis = RedisTestServer::Start();
  ASSERT_TRUE(redis.ok()) << redis.status();
  (*redis)->Cli({"SET", "order_B", "a string, so LPUSH fails"});
  auto lists = [&] {
    return (*redis)->Cli({"LRANGE", "order_A", "0", "-1"}) + "|" +
           (*redis)->Cli({"LRANGE", "order_C", "0", "-1"});
  };
  ExpectOnlyTheBadRecordFails("redis",
                              {{"SINK_TYPE", "redis"},
                               {"SINK_REDIS_URLS", (*redis)->address()},
                               {"SINK_REDIS_DATA_TYPE", "LIST"},
                               {"SINK_REDIS_KEY_TEMPLATE", "order_%s,order"},
                               {"SINK_REDIS_LIST_DATA_FIELD_NAME", "amount"}},
                              [&] { return lists() == "10|30"; }, lists);
}

TEST(SinkBadRecord, InfluxDbRefusesOnePointOfAPartialWrite) {
  auto influx = InfluxTestServer::Start("fleet");
  ASSERT_TRUE(influx.ok()) << influx.status();
  // `amount` is an integer field from now on; B's string conflicts with it.
  (*influx)->Query("INSERT orders,order=seed amount=1i 1714557500000000000");
  auto points = [&] { return (*influx)->Query("SELECT amount FROM orders WHERE \\\"order\\\" != 'seed'"); };
  ExpectOnlyTheBadRecordFails("influx",
                              {{"SINK_TYPE", "influxdb"},
                               {"SINK_INFLUX_URL", (*influx)->url()},
                               {"SINK_INFLUX_USERNAME", InfluxTestServer::kUser},
                               {"SINK_INFLUX_PASSWORD", InfluxTestServer::kPassword},
                               {"SINK_INFLUX_DB_NAME", "fleet"},
                               {"SINK_INFLUX_MEASUREMENT_NAME", "orders"},
                               {"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", R"({"amount":"amount"})"},
                               {"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"order":"order"})"},
                               {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "ts"}},
                              [&] {
                                std::string p = points();
                                return p.find(",10") != std::string::npos &&
                                       p.find(",30") != std::string::npos && p.find("ten") == std::string::npos;
                              },
                              points);
}

TEST(SinkBadRecord, ClickHouseRefusesOneRowThatDoesNotParse) {
  auto ch = ClickHouseTestServer::Start();
  ASSERT_TRUE(ch.ok()) << ch.status();
  ASSERT_EQ((*ch)->Query("CREATE TABLE orders (order String, amount Int64) ENGINE = MergeTree ORDER BY order"),
            "");
  auto rows = [&] { return (*ch)->Query("SELECT order, amount FROM orders ORDER BY order FORMAT CSV"); };
  ExpectOnlyTheBadRecordFails("clickhouse",
                              {{"SINK_TYPE", "clickhouse"},
                               {"SINK_CLICKHOUSE_URL", (*ch)->url()},
                               {"SINK_CLICKHOUSE_TABLE_NAME", "orders"},
                               {"INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", R"({"order":"order","amount":"amount"})"}},
                              [&] { return rows() == "\"A\",10\n\"C\",30\n"; }, rows);
}

TEST(SinkBadRecord, PrometheusSinkRefusesAValueThatIsNotANumber) {
  auto prom = PrometheusTestServer::Start();
  ASSERT_TRUE(prom.ok()) << prom.status();
  auto count = [&] {
    return (*prom)->Query("count(amount)", absl::ToUnixMillis(absl::Now()) / 1000.0 + 1);
  };
  ExpectOnlyTheBadRecordFails("prometheus",
                              {{"SINK_TYPE", "prometheus"},
                               {"SINK_PROM_SERVICE_URL", (*prom)->write_url()},
                               {"SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING", R"({"amount":"amount"})"},
                               {"SINK_PROM_LABEL_NAME_PROTO_INDEX_MAPPING", R"({"order":"order"})"}},
                              [&] { return count().find("\"2\"") != std::string::npos; }, count);
}

}  // namespace
}  // namespace sluice::integration
