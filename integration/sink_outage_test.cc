// A connector's server stopped mid-run (issue 16, "Every sink"): sluice-sink
// keeps failing the batch as SINK_RETRYABLE_ERROR, commits nothing past it,
// and once the server is back every record arrives; nothing is lost.
#include <signal.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "absl/time/clock.h"
#include "integration/sink_harness.h"
#include "sink/sinks/testing/clickhouse_test_server.h"
#include "sink/sinks/testing/influx_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::ClickHouseTestServer;
using sink::testing::InfluxTestServer;

// Retries of transport failures with a short backoff, so that the test sees
// the outage and the recovery within seconds.
void RetryQuickly(std::map<std::string, std::string>* env) {
  (*env)["ERROR_TYPES_FOR_RETRY"] = "SINK_RETRYABLE_ERROR,SINK_5XX_ERROR";
  (*env)["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "100";
  (*env)["RETRY_EXPONENTIAL_BACKOFF_MAX_MS"] = "500";
}

TEST(SinkOutage, ClickHouseStoppedMidRunLosesNothing) {
  std::string dir = TempDir("sink_outage_clickhouse");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto ch = ClickHouseTestServer::Start();
  ASSERT_TRUE(ch.ok()) << ch.status();
  ASSERT_EQ((*ch)->Query("CREATE TABLE orders (order_number String) ENGINE = MergeTree ORDER BY order_number"),
            "");
  auto env = SinkEnv(broker.bootstrap, "orders", "outage-group", SampleDescriptorUrl());
  env["SINK_TYPE"] = "clickhouse";
  env["SINK_CLICKHOUSE_URL"] = (*ch)->url();
  env["SINK_CLICKHOUSE_TABLE_NAME"] = "orders";
  env["SINK_CLICKHOUSE_REQUEST_TIMEOUT_MS"] = "2000";
  env["INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING"] = R"({"1":"order_number"})";
  RetryQuickly(&env);
  auto sink = StartSink(env, dir + "/sink");
  ProduceSamples(broker.bootstrap, "orders", 0, 10);
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "outage-group", "orders", 1)[0] == 10; },
                      absl::Seconds(30)))
      << sink->Stderr();

  (*ch)->Kill();
  ProduceSamples(broker.bootstrap, "orders", 10, 10);
  absl::SleepFor(absl::Seconds(3));
  EXPECT_EQ(Committed(broker.bootstrap, "outage-group", "orders", 1)[0], 10)
      << "nothing is committed while the server is down";
  EXPECT_NE(sink->Stderr().find("SINK_RETRYABLE_ERROR"), std::string::npos) << sink->Stderr();

  ASSERT_TRUE((*ch)->Restart().ok());
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "outage-group", "orders", 1)[0] == 20; },
                      absl::Seconds(60)))
      << sink->Stderr();
  EXPECT_EQ((*ch)->Query("SELECT uniqExact(order_number) FROM orders"), "20\n");
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST(SinkOutage, InfluxDbStoppedMidRunLosesNothing) {
  std::string dir = TempDir("sink_outage_influx");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto influx = InfluxTestServer::Start("fleet");
  ASSERT_TRUE(influx.ok()) << influx.status();
  auto env = SinkEnv(broker.bootstrap, "orders", "outage-influx", SampleDescriptorUrl());
  env["SINK_TYPE"] = "influxdb";
  env["SINK_INFLUX_URL"] = (*influx)->url();
  env["SINK_INFLUX_USERNAME"] = InfluxTestServer::kUser;
  env["SINK_INFLUX_PASSWORD"] = InfluxTestServer::kPassword;
  env["SINK_INFLUX_DB_NAME"] = "fleet";
  env["SINK_INFLUX_MEASUREMENT_NAME"] = "orders";
  env["SINK_INFLUX_REQUEST_TIMEOUT_MS"] = "2000";
  env["SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING"] = R"({"7":"amount"})";
  env["SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING"] = R"({"1":"order_number"})";
  env["SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX"] = "5";
  RetryQuickly(&env);
  auto sink = StartSink(env, dir + "/sink");
  ProduceSamples(broker.bootstrap, "orders", 0, 10);
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "outage-influx", "orders", 1)[0] == 10; },
                      absl::Seconds(30)))
      << sink->Stderr();

  (*influx)->Kill();
  ProduceSamples(broker.bootstrap, "orders", 10, 10);
  absl::SleepFor(absl::Seconds(3));
  EXPECT_EQ(Committed(broker.bootstrap, "outage-influx", "orders", 1)[0], 10)
      << "nothing is committed while the server is down";

  ASSERT_TRUE((*influx)->Restart().ok());
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "outage-influx", "orders", 1)[0] == 20; },
                      absl::Seconds(60)))
      << sink->Stderr();
  std::string count = (*influx)->Query("SELECT count(amount) FROM orders");
  EXPECT_NE(count.find(",20"), std::string::npos) << count;
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
