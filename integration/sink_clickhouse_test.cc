// sluice-sink with SINK_TYPE=clickhouse end to end: sample protobuf records
// from the dev broker into a real clickhouse-server, read back with
// clickhouse-client.
#include <signal.h>

#include <gtest/gtest.h>

#include "integration/sink_harness.h"
#include "sink/sinks/testing/clickhouse_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::ClickHouseTestServer;

TEST(SinkClickHouse, SampleRecordsBecomeRowsAndEveryOffsetIsCommitted) {
  std::string dir = TempDir("sink_clickhouse");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  auto ch = ClickHouseTestServer::Start();
  ASSERT_TRUE(ch.ok()) << ch.status();
  ASSERT_EQ((*ch)->Query("CREATE TABLE orders (order_number String, driver String, status String, "
                         "amount Int64) ENGINE = MergeTree ORDER BY order_number"),
            "");
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  auto env = SinkEnv(broker.bootstrap, "orders", "ch-group", SampleDescriptorUrl());
  env["SINK_TYPE"] = "clickhouse";
  env["SINK_CLICKHOUSE_URL"] = (*ch)->url();
  env["SINK_CLICKHOUSE_TABLE_NAME"] = "orders";
  env["INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING"] =
      R"({"1":"order_number","2":"driver","3":"status","7":"amount"})";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "ch-group", "orders", 2) == 20; },
                      absl::Seconds(30)))
      << sink->Stderr();
  EXPECT_EQ((*ch)->Query("SELECT count() FROM orders"), "20\n");
  EXPECT_EQ((*ch)->Query("SELECT driver, status FROM orders WHERE order_number = 'ORD-5' FORMAT CSV"),
            "\"driver-5\",\"ON_TRIP\"\n");
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
