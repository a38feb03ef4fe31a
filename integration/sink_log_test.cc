// sluice-sink end to end with the log sink: filter, two worker threads,
// commits of filtered-out records, Prometheus /metrics, SIGTERM → exit 0.
#include <signal.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "absl/strings/str_cat.h"
#include "integration/sink_harness.h"

namespace sluice::integration {
namespace {

std::string HttpGet(int port, const std::string& path) {
  std::string cmd = absl::StrCat("curl -s http://127.0.0.1:", port, path);
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

TEST(SinkLog, FiltersPushesCommitsAndStopsCleanly) {
  std::string dir = TempDir("sink_log");
  DevBroker broker = DevBroker::Start({"orders:4"}, dir);
  ASSERT_FALSE(broker.bootstrap.empty());

  auto env = SinkEnv(broker.bootstrap, "orders", "log-group", SampleDescriptorUrl());
  env["APPLICATION_THREAD_COUNT"] = "2";
  env["FILTER_ENGINE"] = "JEXL";
  env["FILTER_DATA_SOURCE"] = "MESSAGE";
  env["FILTER_SCHEMA_PROTO_CLASS"] = "sluice.sample.SampleLogMessage";
  env["FILTER_JEXL_EXPRESSION"] = "sampleLogMessage.getDriverId() == \"driver-3\"";
  int prom_port = FreePort();
  env["METRIC_PROMETHEUS_PORT"] = std::to_string(prom_port);
  auto sink = StartSink(env, dir + "/sink");
  // Produce once the group is settled (two partitions per worker): a
  // rebalance in the middle may redeliver records (at least once), and this
  // test counts exact deliveries. sink_group_test covers rebalances.
  auto settled = [&] {
    std::string err = sink->Stderr();
    for (int w = 0; w < 2; ++w) {
      std::string tag = absl::StrCat("worker ", w, ": assigned [");
      auto pos = err.rfind(tag);
      if (pos == std::string::npos) return false;
      std::string line = err.substr(pos, err.find('\n', pos) - pos);
      if (std::count(line.begin(), line.end(), ',') != 1) return false;
    }
    return true;
  };
  ASSERT_TRUE(WaitFor(settled, absl::Seconds(30))) << sink->Stderr();
  ProduceSamples(broker.bootstrap, "orders", 0, 400);

  // Records 3, 13, 23, ... have driver-3: 40 of 400.
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=orders") >= 40; },
                      absl::Seconds(30)))
      << sink->Stderr();
  // Every offset is committed, the 360 filtered-out ones included.
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "log-group", "orders", 4) == 400; },
                      absl::Seconds(15)));
  std::string out = sink->Output();
  EXPECT_EQ(CountLines(out, "topic=orders"), 40);
  EXPECT_EQ(CountLines(out, "driver_id: \"driver-3\""), 40);
  EXPECT_NE(out.find("tags: ["), std::string::npos);

  std::string metrics = HttpGet(prom_port, "/metrics");
  EXPECT_NE(metrics.find("firehose_source_kafka_messages_commit_total{success=\"true\"}"),
            std::string::npos)
      << metrics.substr(0, 2000);
  EXPECT_NE(metrics.find("firehose_source_kafka_messages_filter_total"), std::string::npos);
  EXPECT_NE(metrics.find("firehose_sink_messages_total{type=\"SUCCESS\"} 40"), std::string::npos);

  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
  EXPECT_NE(sink->Stderr().find("stopped cleanly"), std::string::npos);
  broker.process->Signal(SIGTERM);
  EXPECT_EQ(broker.process->Wait(absl::Seconds(10)), 0);
}

// SIGTERM must end the sink even when the broker is stopping at the same
// moment. (`make run` once hung here: the revoke-time synchronous commit
// waited forever on a vanished coordinator. The commit is now bounded; this
// test does not reproduce that timing reliably, it guards the outcome.)
TEST(SinkLog, SigtermExitsEvenWhenTheBrokerIsGone) {
  std::string dir = TempDir("sink_broker_gone");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  ASSERT_FALSE(broker.bootstrap.empty());
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  auto env = SinkEnv(broker.bootstrap, "orders", "gone-group", SampleDescriptorUrl());
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=orders") >= 20; },
                      absl::Seconds(30)))
      << sink->Stderr();
  // As `make run` stops it: the broker gets SIGTERM at the same moment.
  broker.process->Signal(SIGTERM);
  absl::Time start = absl::Now();
  sink->Signal(SIGTERM);
  int code = sink->Wait(absl::Seconds(40));
  EXPECT_NE(code, -1) << "sluice-sink did not exit after SIGTERM with the broker gone\n"
                      << sink->Stderr();
  EXPECT_LT(absl::Now() - start, absl::Seconds(40));
  broker.process->Wait(absl::Seconds(10));
}

TEST(SinkLog, StartUpErrorsNameTheVariable) {
  std::string dir = TempDir("sink_log_config");
  auto env = SinkEnv("127.0.0.1:1", "orders", "g", SampleDescriptorUrl());
  env["SINK_TYPE"] = "carrier-pigeon";
  auto sink = StartSink(env, dir + "/a");
  EXPECT_EQ(sink->Wait(absl::Seconds(10)), 2);
  EXPECT_NE(sink->Stderr().find("unknown SINK_TYPE \"carrier-pigeon\""), std::string::npos)
      << sink->Stderr();

  env = SinkEnv("127.0.0.1:1", "orders", "g", SampleDescriptorUrl());
  env.erase("SOURCE_KAFKA_CONSUMER_GROUP_ID");
  sink = StartSink(env, dir + "/b");
  EXPECT_EQ(sink->Wait(absl::Seconds(10)), 2);
  EXPECT_NE(sink->Stderr().find("SOURCE_KAFKA_CONSUMER_GROUP_ID is required"), std::string::npos);

  env = SinkEnv("127.0.0.1:1", "orders", "g", SampleDescriptorUrl());
  env["FILTER_ENGINE"] = "JEXL";
  env["FILTER_DATA_SOURCE"] = "MESSAGE";
  env["FILTER_SCHEMA_PROTO_CLASS"] = "sluice.sample.SampleLogMessage";
  env["FILTER_JEXL_EXPRESSION"] = "sampleLogMessage.getDriverId() == = 1";
  sink = StartSink(env, dir + "/c");
  EXPECT_EQ(sink->Wait(absl::Seconds(10)), 2);
  EXPECT_NE(sink->Stderr().find("column"), std::string::npos) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
