// sluice-sink with SINK_TYPE=influxdb end to end: sample protobuf records
// from the dev broker into a real influxd, read back with the influx CLI.
#include <signal.h>

#include <gtest/gtest.h>

#include "integration/sink_harness.h"
#include "sink/sinks/testing/influx_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::InfluxTestServer;

TEST(SinkInflux, SampleRecordsBecomePointsAndEveryOffsetIsCommitted) {
  std::string dir = TempDir("sink_influx");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  auto influx = InfluxTestServer::Start("fleet");
  ASSERT_TRUE(influx.ok()) << influx.status();
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  auto env = SinkEnv(broker.bootstrap, "orders", "influx-group", SampleDescriptorUrl());
  env["SINK_TYPE"] = "influxdb";
  env["SINK_INFLUX_URL"] = (*influx)->url();
  env["SINK_INFLUX_USERNAME"] = InfluxTestServer::kUser;
  env["SINK_INFLUX_PASSWORD"] = InfluxTestServer::kPassword;
  env["SINK_INFLUX_DB_NAME"] = "fleet";
  env["SINK_INFLUX_MEASUREMENT_NAME"] = "orders";
  // SampleLogMessage: order_number 1, driver_id 2, status 3, pickup 4,
  // event_timestamp 5, amount_paid_cents 7.
  env["SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING"] = R"({"1":"order_number","7":"amount"})";
  env["SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING"] = R"({"2":"driver","3":"status"})";
  env["SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX"] = "5";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "influx-group", "orders", 2) == 20; },
                      absl::Seconds(30)))
      << sink->Stderr();
  std::string count = (*influx)->Query("SELECT count(order_number) FROM orders");
  EXPECT_NE(count.find(",20"), std::string::npos) << count;
  std::string one = (*influx)->Query("SELECT order_number, driver FROM orders WHERE driver = 'driver-3'");
  EXPECT_NE(one.find("ORD-3"), std::string::npos) << one;
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
