// A connector's server stopped mid-run (issue 16, "Every sink"): sluice-sink
// keeps failing the batch as SINK_RETRYABLE_ERROR, commits nothing past it,
// and once the server is back every record arrives; nothing is lost.
#include <signal.h>

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "integration/sink_harness.h"
#include "sink/sinks/testing/clickhouse_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::ClickHouseTestServer;

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
  env["ERROR_TYPES_FOR_RETRY"] = "SINK_RETRYABLE_ERROR,SINK_5XX_ERROR";
  env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "100";
  env["RETRY_EXPONENTIAL_BACKOFF_MAX_MS"] = "500";
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

}  // namespace
}  // namespace sluice::integration
