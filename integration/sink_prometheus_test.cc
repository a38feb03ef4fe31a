// sluice-sink with SINK_TYPE=prometheus end to end: sample protobuf records
// from the dev broker into a real prometheus (remote-write receiver), read
// back through /api/v1/query.
#include <signal.h>

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "integration/sink_harness.h"
#include "sink/sinks/testing/prometheus_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::PrometheusTestServer;

TEST(SinkPrometheus, SampleRecordsBecomeSeriesAndEveryOffsetIsCommitted) {
  std::string dir = TempDir("sink_prometheus");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  auto prom = PrometheusTestServer::Start();
  ASSERT_TRUE(prom.ok()) << prom.status();
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  auto env = SinkEnv(broker.bootstrap, "orders", "prom-group", SampleDescriptorUrl());
  env["SINK_TYPE"] = "prometheus";
  env["SINK_PROM_SERVICE_URL"] = (*prom)->write_url();
  // SampleLogMessage: order_number 1, driver_id 2, amount_paid_cents 7.
  env["SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING"] = R"({"7":"amount_paid_cents"})";
  env["SINK_PROM_LABEL_NAME_PROTO_INDEX_MAPPING"] = R"({"1":"order_number","2":"driver"})";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "prom-group", "orders", 2) == 20; },
                      absl::Seconds(30)))
      << sink->Stderr();
  std::string count = (*prom)->Query("count(amount_paid_cents)", absl::ToUnixMillis(absl::Now()) / 1000.0 + 1);
  EXPECT_NE(count.find("\"20\""), std::string::npos) << count;
  std::string one = (*prom)->Query("amount_paid_cents{order_number=\"ORD-3\",driver=\"driver-3\"}",
                                   absl::ToUnixMillis(absl::Now()) / 1000.0 + 1);
  EXPECT_NE(one.find("\"result\":[{"), std::string::npos) << one;
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
