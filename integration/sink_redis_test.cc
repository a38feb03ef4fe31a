// sluice-sink with SINK_TYPE=redis end to end: sample protobuf records from
// the dev broker into a real redis-server, read back with redis-cli.
#include <signal.h>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "integration/sink_harness.h"
#include "sink/sinks/testing/redis_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::RedisTestServer;

TEST(SinkRedis, SampleRecordsBecomeHashesAndEveryOffsetIsCommitted) {
  std::string dir = TempDir("sink_redis");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  auto redis = RedisTestServer::Start();
  ASSERT_TRUE(redis.ok()) << redis.status();
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  auto env = SinkEnv(broker.bootstrap, "orders", "redis-group", SampleDescriptorUrl());
  env["SINK_TYPE"] = "redis";
  env["SINK_REDIS_URLS"] = (*redis)->address();
  env["SINK_REDIS_KEY_TEMPLATE"] = "order_%s,order_number";
  env["SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING"] =
      R"({"driver_id":"DRIVER","status":"STATUS","pickup.city":"CITY"})";
  env["SINK_REDIS_TTL_TYPE"] = "DURATION";
  env["SINK_REDIS_TTL_VALUE"] = "3600";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "redis-group", "orders", 2) == 20; },
                      absl::Seconds(30)))
      << sink->Stderr();
  EXPECT_EQ((*redis)->Cli({"DBSIZE"}), "20");
  EXPECT_EQ((*redis)->Cli({"HGET", "order_ORD-3", "DRIVER"}), "driver-3");
  EXPECT_EQ((*redis)->Cli({"HGET", "order_ORD-2", "STATUS"}), "ON_TRIP");
  EXPECT_FALSE((*redis)->Cli({"HGET", "order_ORD-2", "CITY"}).empty());
  EXPECT_GT(std::stoi((*redis)->Cli({"TTL", "order_ORD-2"})), 3500);
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
