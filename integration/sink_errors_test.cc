// Poison messages and the dead-letter queue, end to end. The Kafka DLQ case
// runs on a real Apache Kafka broker (integration/kafka_broker.h; its version
// is printed). The others stay on librdkafka's mock cluster (DevBroker): they
// test the sink's error routing, not Kafka, and a JVM broker start costs
// 15-30 s each on a busy machine.
#include <signal.h>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/kafka_broker.h"
#include "integration/sink_harness.h"
#include "sink/sample/sample_gen.h"

namespace sluice::integration {
namespace {

std::vector<std::string> Values(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back(sample::SampleBytes(i, 1000));
  return out;
}

TEST(SinkErrors, PoisonMessageStopsTheWorkerAndIsNotCommitted) {
  std::string dir = TempDir("sink_poison");
  DevBroker broker = DevBroker::Start({"poison:1"}, dir);
  std::vector<std::string> values = Values(0, 5);
  values.push_back("\xff\xff\xff not a protobuf");
  for (auto& v : Values(6, 10)) values.push_back(v);
  ProduceRaw(broker.bootstrap, "poison", 0, values);

  auto env = SinkEnv(broker.bootstrap, "poison", "poison-group", SampleDescriptorUrl());
  auto sink = StartSink(env, dir + "/sink");
  EXPECT_EQ(sink->Wait(absl::Seconds(30)), 1) << sink->Stderr();
  std::string err = sink->Stderr();
  EXPECT_NE(err.find("DESERIALIZATION_ERROR"), std::string::npos) << err;
  EXPECT_NE(err.find("topic poison partition 0 offset 5"), std::string::npos) << err;
  EXPECT_EQ(Committed(broker.bootstrap, "poison-group", "poison", 1)[0], 5)
      << "offsets below the poison message are committed, the poison message is not";
  EXPECT_GE(CountLines(sink->Output(), "topic=poison"), 5);
}

// INPUT_SCHEMA_DATA_TYPE=json: records are parsed once in the decode stage;
// one that is not JSON is a DESERIALIZATION_ERROR, routed like any other.
TEST(SinkErrors, JsonInputFlowsAndARecordThatIsNotJsonStopsCleanly) {
  std::string dir = TempDir("sink_json");
  DevBroker broker = DevBroker::Start({"events:1"}, dir);
  ProduceRaw(broker.bootstrap, "events", 0,
             {R"({"driver": {"name": "ana"}, "n": 0})", R"({"n": 1})", "{\"n\": ", R"({"n": 3})"});
  auto env = JsonSinkEnv(broker.bootstrap, "events", "json-group");
  auto sink = StartSink(env, dir + "/sink");
  EXPECT_EQ(sink->Wait(absl::Seconds(30)), 1) << sink->Stderr();
  std::string out = sink->Output(), err = sink->Stderr();
  EXPECT_NE(out.find(R"(message={"driver":{"name":"ana"},"n":0})"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(message={"n":1})"), std::string::npos) << out;
  EXPECT_NE(err.find("DESERIALIZATION_ERROR (in ERROR_TYPES_FOR_FAILING) for topic events "
                     "partition 0 offset 2: JSON input"),
            std::string::npos)
      << err;
  EXPECT_EQ(Committed(broker.bootstrap, "json-group", "events", 1)[0], 2);

  // Routed to the log DLQ when the operator says so: the rest is delivered.
  env["SOURCE_KAFKA_CONSUMER_GROUP_ID"] = "json-dlq-group";
  env["DLQ_SINK_ENABLE"] = "true";
  env["ERROR_TYPES_FOR_FAILING"] = "INVALID_MESSAGE_ERROR";
  env["ERROR_TYPES_FOR_DLQ"] = "DESERIALIZATION_ERROR";
  auto routed = StartSink(env, dir + "/routed");
  EXPECT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "json-dlq-group", "events", 1)[0] == 4; },
                      absl::Seconds(30)))
      << routed->Stderr();
  EXPECT_NE(routed->Output().find(R"(message={"n":3})"), std::string::npos);
  EXPECT_NE(routed->Stderr().find("DLQ: topic=events partition=0 offset=2"), std::string::npos)
      << routed->Stderr();
  routed->Signal(SIGTERM);
  EXPECT_EQ(routed->Wait(absl::Seconds(20)), 0);
}

// A failure whose type is in no list (here DESERIALIZATION_ERROR, taken off
// ERROR_TYPES_FOR_FAILING) is dropped and committed, as goto Firehose's
// SinkFinal ignores what the chain returns (SinkFinal.java:29-31 at 857761c6),
// but sluice says so: one warning per record naming type, topic, partition
// and offset. Before, sluice held the commit at it.
TEST(SinkErrors, AFailureNeitherRoutedNorFatalIsDroppedWithAWarningNamingIt) {
  std::string dir = TempDir("sink_held");
  DevBroker broker = DevBroker::Start({"held:1"}, dir);
  std::vector<std::string> values = Values(0, 3);
  values.push_back("\xff\xff broken");
  for (auto& v : Values(4, 8)) values.push_back(v);
  ProduceRaw(broker.bootstrap, "held", 0, values);

  auto env = SinkEnv(broker.bootstrap, "held", "held-group", SampleDescriptorUrl());
  env["ERROR_TYPES_FOR_FAILING"] = "UNKNOWN_FIELDS_ERROR";  // not DESERIALIZATION_ERROR
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=held") == 7; },
                      absl::Seconds(30)))
      << sink->Stderr();
  ASSERT_TRUE(WaitFor(
      [&] {
        return sink->Stderr().find("dropping DESERIALIZATION_ERROR topic=held partition=0 offset=3 ") !=
               std::string::npos;
      },
      absl::Seconds(10)))
      << sink->Stderr();
  EXPECT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "held-group", "held", 1)[0] == 8; },
                      absl::Seconds(10)))
      << "the dropped record is committed with the others: " << sink->Stderr();
  EXPECT_EQ(CountLines(sink->Stderr(), "dropping "), 1) << sink->Stderr();
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST(SinkErrors, UndecodableMessagesGoToTheKafkaDlqWithHeaders) {
  std::string dir = TempDir("sink_dlq");
  KafkaBroker broker = KafkaBroker::Start({"in:1", "dead-letters:1"}, dir + "/kafka");
  std::vector<std::string> values = Values(0, 3);
  values.push_back("\xff\x01 broken");
  values.push_back("\xff\x02 broken");
  for (auto& v : Values(5, 8)) values.push_back(v);
  ProduceRaw(broker.bootstrap, "in", 0, values);

  auto env = SinkEnv(broker.bootstrap, "in", "dlq-group", SampleDescriptorUrl());
  env["DLQ_SINK_ENABLE"] = "true";
  env["DLQ_WRITER_TYPE"] = "KAFKA";
  env["DLQ_KAFKA_BROKERS"] = broker.bootstrap;
  env["DLQ_KAFKA_TOPIC"] = "dead-letters";
  env["ERROR_TYPES_FOR_DLQ"] = "DESERIALIZATION_ERROR";
  env["ERROR_TYPES_FOR_FAILING"] = "UNKNOWN_FIELDS_ERROR";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "dlq-group", "in", 1) == 8; },
                      absl::Seconds(60)))
      << sink->Stderr();
  EXPECT_EQ(CountLines(sink->Output(), "topic=in"), 6);
  auto dead = ReadAll(broker.bootstrap, "dead-letters", 2, absl::Seconds(30));
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_EQ(dead[0].value, "\xff\x01 broken");
  EXPECT_EQ(dead[0].headers["error_type"], "DESERIALIZATION_ERROR");
  EXPECT_EQ(dead[0].headers["source_topic"], "in");
  EXPECT_EQ(dead[0].headers["source_partition"], "0");
  EXPECT_EQ(dead[0].headers["source_offset"], "3");
  EXPECT_EQ(dead[1].headers["source_offset"], "4");
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

// Review L7: with the DLQ off and RETRY_MAX_ATTEMPTS unlimited (Firehose's
// defaults), a record that always fails is retried forever. The worker must
// stay in its consumer group meanwhile: librdkafka evicts a member that does
// not poll within max.poll.interval.ms, and the rebalances then repeat.
TEST(SinkErrors, EndlessRetriesKeepTheConsumerInItsGroup) {
  std::string dir = TempDir("sink_endless_retry");
  DevBroker broker = DevBroker::Start({"stuck:1"}, dir);
  ProduceRaw(broker.bootstrap, "stuck", 0, {R"({"order":1})"});
  auto env = JsonSinkEnv(broker.bootstrap, "stuck", "stuck-group");
  env["SINK_TYPE"] = "http";
  env["SINK_HTTP_SERVICE_URL"] = absl::StrCat("http://127.0.0.1:", FreePort(), "/in");  // refused
  env["SINK_HTTP_DATA_FORMAT"] = "json";
  // Short budgets so that an eviction would happen within the test.
  env["SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_INTERVAL_MS"] = "7000";
  // Backoffs longer than that budget (the cap is well above it).
  env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "9000";
  env["RETRY_EXPONENTIAL_BACKOFF_RATE"] = "1";
  env["RETRY_EXPONENTIAL_BACKOFF_MAX_MS"] = "9000";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return sink->Stderr().find("assigned [stuck-0]") != std::string::npos; },
                      absl::Seconds(30)))
      << sink->Stderr();
  // Two full backoffs: well past max.poll.interval.ms.
  absl::SleepFor(absl::Seconds(20));
  std::string err = sink->Stderr();
  EXPECT_EQ(err.find("maximum poll interval"), std::string::npos) << err;
  EXPECT_EQ(err.find("revoked"), std::string::npos) << err;
  EXPECT_EQ(CountLines(err, "assigned ["), 1) << "no rebalance: " << err;
  EXPECT_EQ(Committed(broker.bootstrap, "stuck-group", "stuck", 1)[0], -1)
      << "the failing record is never committed";
  // SIGTERM ends the retries at once: finish, commit nothing, exit 0.
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
