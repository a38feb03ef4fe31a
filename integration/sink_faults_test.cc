// Faults around the group coordinator, end to end with the real binaries:
// SIGTERM with the broker gone exits in bounded time, and a sink killed with
// -9 and restarted at once consumes again quickly (Firehose's 10 s session
// timeout; static membership with GROUP_INSTANCE_ID). The measured times are
// printed (and recorded as test properties) for the closing note.
#include <signal.h>

#include <cstdio>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/sink_harness.h"

namespace sluice::integration {
namespace {

// Firehose's consumer defaults: the harness's short test session timeout goes.
std::map<std::string, std::string> FirehoseDefaultEnv(const DevBroker& broker,
                                                      const std::string& group) {
  auto env = SinkEnv(broker.bootstrap, "orders", group, SampleDescriptorUrl());
  env.erase("SOURCE_KAFKA_CONSUMER_CONFIG_SESSION_TIMEOUT_MS");
  env.erase("SOURCE_KAFKA_CONSUMER_CONFIG_HEARTBEAT_INTERVAL_MS");
  env["APPLICATION_THREAD_COUNT"] = "2";
  return env;
}

TEST(SinkFaults, SigtermExitsInBoundedTimeWhenTheBrokerIsGone) {
  std::string dir = TempDir("sink_sigterm");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  auto env = FirehoseDefaultEnv(broker, "stop-group");
  auto sink = StartSink(env, dir + "/sink");
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=orders") == 20; },
                      absl::Seconds(30)))
      << sink->Stderr();
  // The broker goes first, as when `make run` is stopped with Ctrl-C.
  broker.process->Signal(SIGKILL);
  broker.process->Wait(absl::Seconds(5));
  absl::SleepFor(absl::Milliseconds(500));
  const absl::Time start = absl::Now();
  sink->Signal(SIGTERM);
  const int code = sink->Wait(absl::Seconds(30));
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  std::printf("SIGTERM with the broker gone: exited %d after %.1f s\n", code, seconds);
  RecordProperty("sigterm_exit_ms", static_cast<int>(seconds * 1000));
  EXPECT_EQ(code, 0) << sink->Stderr();
  EXPECT_LT(seconds, 15) << sink->Stderr();
}

// Time from the restart of a killed sink until it prints a record produced
// after the restart; -1 when none within `limit`.
double TimeToResume(const std::map<std::string, std::string>& env, const DevBroker& broker,
                    const std::string& dir, absl::Duration limit) {
  auto first = StartSink(env, dir + "/1");
  if (!WaitFor([&] { return first->Stderr().find("assigned [") != std::string::npos; },
               absl::Seconds(30))) {
    ADD_FAILURE() << first->Stderr();
    return -1;
  }
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  if (!WaitFor([&] { return CountLines(first->Output(), "topic=orders") >= 20; },
               absl::Seconds(30))) {
    ADD_FAILURE() << first->Stderr();
    return -1;
  }
  first->Signal(SIGKILL);
  first->Wait(absl::Seconds(5));
  const absl::Time restart = absl::Now();
  auto second = StartSink(env, dir + "/2");
  ProduceSamples(broker.bootstrap, "orders", 1000, 20);
  const bool resumed = WaitFor(
      [&] { return second->Output().find("\"ORD-100") != std::string::npos; }, limit);
  const double seconds = absl::ToDoubleSeconds(absl::Now() - restart);
  second->Signal(SIGTERM);
  EXPECT_EQ(second->Wait(absl::Seconds(20)), 0) << second->Stderr();
  if (!resumed) ADD_FAILURE() << "no record after the restart:\n" << second->Stderr();
  return resumed ? seconds : -1;
}

TEST(SinkFaults, KillNineThenRestartConsumesAgainWithinTheSessionTimeout) {
  std::string dir = TempDir("sink_resume");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  double seconds = TimeToResume(FirehoseDefaultEnv(broker, "resume-group"), broker, dir,
                                absl::Seconds(40));
  std::printf("kill -9, restart (session.timeout.ms 10000, 2 workers): resumed after %.1f s\n",
              seconds);
  RecordProperty("resume_ms", static_cast<int>(seconds * 1000));
  EXPECT_GE(seconds, 0);
  // The bound is the dev broker's (librdkafka 2.0.2's mock), not Kafka's:
  // the mock keeps the killed member as the group's leader until its session
  // (10 s) expires, and the new members' SyncGroup then fails once more
  // ("rebalance in progress"), one more join round (~9 s): 18.9 s measured,
  // with cooperative-sticky and with range,roundrobin alike. Before issue 29
  // this test measured 9.1 s, with librdkafka's metadata cache living 0.5 s
  // (metadata.max.age.ms=500, Firehose's value under librdkafka's name),
  // which made members rejoin often and cooperative-sticky members rejoin
  // without end; that build's binary, killed right after its assignment as
  // here, also waited 18.6 s by hand.
  EXPECT_LT(seconds, 25);
}

TEST(SinkFaults, KillNineThenRestartWithStaticMembership) {
  std::string dir = TempDir("sink_resume_static");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  auto env = FirehoseDefaultEnv(broker, "static-group");
  env["SOURCE_KAFKA_CONSUMER_CONFIG_GROUP_INSTANCE_ID"] = "sink-a";
  double seconds = TimeToResume(env, broker, dir, absl::Seconds(40));
  std::printf("kill -9, restart (static membership sink-a-0/1, 2 workers): resumed after %.1f s\n",
              seconds);
  RecordProperty("resume_static_ms", static_cast<int>(seconds * 1000));
  EXPECT_GE(seconds, 0);
  // librdkafka's mock cluster (the dev broker) does not implement static
  // membership (KIP-345): it treats the restarted sink-a-N as new members and
  // rebalances only after the killed ones' session timeout, so this measures
  // ~10 s plus a rebalance round (19 s seen) where a real broker hands the
  // partitions back at once. The bound here is the mock's, not Kafka's.
  EXPECT_LT(seconds, 30);
}

}  // namespace
}  // namespace sluice::integration
