// A Firehose deployment's environment, Java Kafka client properties and
// all, starts sluice-sink unchanged and delivers (issue 29, item 1). The test
// prints which properties were translated for librdkafka and which were
// accepted with a warning, from the sink's own start-up log.
#include <signal.h>

#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "integration/sink_harness.h"

namespace sluice::integration {
namespace {

// The "kafka property <VAR>: ..." lines of the start-up log.
std::vector<std::string> KafkaPropertyLines(const std::string& err) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(err, '\n')) {
    auto pos = line.find("kafka property ");
    if (pos != absl::string_view::npos) out.emplace_back(line.substr(pos));
  }
  return out;
}

bool Logged(const std::vector<std::string>& lines, const std::string& variable,
            const std::string& what) {
  for (const std::string& l : lines) {
    if (l.find(absl::StrCat("kafka property ", variable, ": ")) == 0 &&
        l.find(what) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(SinkFirehoseEnv, JavaKafkaPropertiesStartAndDeliver) {
  std::string dir = TempDir("sink_firehose_env");
  DevBroker broker =
      DevBroker::Start({"orders.v1:2", "ordersXv1:1", "orders.v12:1", "dlq:1"}, dir);
  ASSERT_FALSE(broker.bootstrap.empty());
  auto env = SinkEnv(broker.bootstrap, "orders.v1", "firehose-env", SampleDescriptorUrl());
  // What Firehose deployments carry (Firehose's docs and defaults).
  const std::string c = "SOURCE_KAFKA_CONSUMER_CONFIG_";
  env[c + "PARTITION_ASSIGNMENT_STRATEGY"] =
      "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
  env[c + "FETCH_MAX_WAIT_MS"] = "100";
  env[c + "RECEIVE_BUFFER_BYTES"] = "65536";
  env[c + "DEFAULT_API_TIMEOUT_MS"] = "60000";
  env[c + "AUTO_COMMIT_ENABLE"] = "false";
  env[c + "MANUAL_COMMIT_MIN_INTERVAL_MS"] = "500";
  env[c + "KEY_DESERIALIZER"] = "org.apache.kafka.common.serialization.ByteArrayDeserializer";
  env["DLQ_SINK_ENABLE"] = "true";
  env["DLQ_WRITER_TYPE"] = "KAFKA";
  env["DLQ_KAFKA_BROKERS"] = broker.bootstrap;
  env["DLQ_KAFKA_TOPIC"] = "dlq";
  env["DLQ_KAFKA_BUFFER_MEMORY"] = "33554432";
  env["DLQ_KAFKA_KEY_SERIALIZER"] = "org.apache.kafka.common.serialization.ByteArraySerializer";
  env["DLQ_KAFKA_VALUE_SERIALIZER"] = "org.apache.kafka.common.serialization.ByteArraySerializer";
  env["DLQ_KAFKA_LINGER_MS"] = "0";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return sink->Stderr().find("assigned [") != std::string::npos; },
                      absl::Seconds(30)))
      << sink->Stderr();
  // SOURCE_KAFKA_TOPIC=orders.v1 is a Java regex over whole names, as with
  // Firehose's Pattern.compile: '.' matches 'X' too, orders.v12 is not matched.
  ASSERT_TRUE(WaitFor(
      [&] {
        std::string err = sink->Stderr();
        auto pos = err.rfind("assigned [");
        std::string line = err.substr(pos, err.find('\n', pos) - pos);
        return line.find("orders.v1-0") != std::string::npos &&
               line.find("orders.v1-1") != std::string::npos &&
               line.find("ordersXv1-0") != std::string::npos;
      },
      absl::Seconds(30)))
      << sink->Stderr();
  ProduceSamples(broker.bootstrap, "orders.v1", 0, 100);
  ProduceSamples(broker.bootstrap, "ordersXv1", 100, 50);
  ProduceSamples(broker.bootstrap, "orders.v12", 150, 30);
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "order_number: ") >= 150; },
                      absl::Seconds(30)))
      << sink->Stderr();
  // Commits are spaced by MANUAL_COMMIT_MIN_INTERVAL_MS and still cover
  // everything once the interval has passed.
  ASSERT_TRUE(WaitFor(
      [&] {
        return CommittedSum(broker.bootstrap, "firehose-env", "orders.v1", 2) == 100 &&
               CommittedSum(broker.bootstrap, "firehose-env", "ordersXv1", 1) == 50;
      },
      absl::Seconds(15)))
      << sink->Stderr();
  absl::SleepFor(absl::Seconds(1));
  EXPECT_EQ(CountLines(sink->Output(), "order_number: "), 150);
  for (int i = 150; i < 180; ++i) {
    EXPECT_EQ(sink->Output().find(absl::StrCat("\"ORD-", i, "\"")), std::string::npos)
        << "orders.v12 is not subscribed";
  }
  EXPECT_EQ(CommittedSum(broker.bootstrap, "firehose-env", "orders.v12", 1), 0);

  std::string err = sink->Stderr();
  auto lines = KafkaPropertyLines(err);
  // Translated for librdkafka.
  EXPECT_TRUE(Logged(lines, c + "PARTITION_ASSIGNMENT_STRATEGY",
                     "translated partition.assignment.strategy -> librdkafka "
                     "partition.assignment.strategy=cooperative-sticky"));
  EXPECT_TRUE(Logged(lines, c + "FETCH_MAX_WAIT_MS", "-> librdkafka fetch.wait.max.ms=100"));
  EXPECT_TRUE(Logged(lines, c + "RECEIVE_BUFFER_BYTES",
                     "-> librdkafka socket.receive.buffer.bytes=65536"));
  EXPECT_TRUE(Logged(lines, "DLQ_KAFKA_BUFFER_MEMORY", "-> librdkafka queue.buffering.max.kbytes=32768"));
  // Accepted, no effect here: one warning each.
  for (const std::string& v :
       {c + "DEFAULT_API_TIMEOUT_MS", c + "AUTO_COMMIT_ENABLE", c + "KEY_DESERIALIZER",
        std::string("DLQ_KAFKA_KEY_SERIALIZER"), std::string("DLQ_KAFKA_VALUE_SERIALIZER")}) {
    EXPECT_TRUE(Logged(lines, v, "ignored:")) << v;
    EXPECT_EQ(CountLines(err, absl::StrCat("kafka property ", v, ": ")), 1) << v;
  }
  EXPECT_NE(err.find("SOURCE_KAFKA_TOPIC=orders.v1 is a pattern"), std::string::npos);
  std::printf("Firehose-shaped env: what sluice-sink did with the Java properties\n");
  for (const std::string& l : lines) std::printf("  %s\n", l.c_str());

  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
  broker.process->Signal(SIGTERM);
}

// librdkafka 2.0.2's mock cluster (the dev broker) has no SASL: it answers
// no SaslHandshake (rdkafka_mock.h offers no SASL setting), so a SASL client
// cannot finish connecting to it. What is shown here: a Firehose env with a
// PLAIN or SCRAM JAAS config starts, librdkafka runs the SASL mechanism the
// JAAS config named against the broker, and the failed authentication stops
// the sink (exit 1, as Java's poll() throws) naming the mechanism, without
// logging the password. Logging in for real, on Apache Kafka's SASL listener,
// is integration:sink_kafka_security_test; the translated credentials are
// checked in sink/source/kafka_properties_test.
TEST(SinkFirehoseEnv, SaslJaasConfigsStartAndAuthenticateWithTheirMechanism) {
  std::string dir = TempDir("sink_firehose_sasl");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  const std::string c = "SOURCE_KAFKA_CONSUMER_CONFIG_";
  struct Case {
    std::string mechanism, jaas;
  };
  for (const Case& k : std::vector<Case>{
           {"PLAIN",
            "org.apache.kafka.common.security.plain.PlainLoginModule required "
            "username=\"firehose\" password=\"pl@in\\\"pw\";"},
           {"SCRAM-SHA-512",
            "org.apache.kafka.common.security.scram.ScramLoginModule required "
            "username=\"firehose\" password=\"scr@m\";"}}) {
    auto env = SinkEnv(broker.bootstrap, "orders", "sasl-" + k.mechanism, SampleDescriptorUrl());
    env[c + "SECURITY_PROTOCOL"] = "SASL_PLAINTEXT";
    env[c + "SASL_MECHANISM"] = k.mechanism;
    env[c + "SASL_JAAS_CONFIG"] = k.jaas;
    auto sink = StartSink(env, dir + "/" + k.mechanism);
    EXPECT_EQ(sink->Wait(absl::Seconds(30)), 1) << k.mechanism << ": " << sink->Stderr();
    std::string err = sink->Stderr();
    EXPECT_NE(err.find("sluice-sink started"), std::string::npos) << err;
    EXPECT_NE(err.find(absl::StrCat("sluice-sink stopped after a fatal error: Kafka authentication "
                                    "failed: ")),
              std::string::npos)
        << err;
    EXPECT_NE(err.find(absl::StrCat("required by mechanism ", k.mechanism)), std::string::npos)
        << err;
    EXPECT_NE(err.find(absl::StrCat("kafka property ", c,
                                    "SASL_JAAS_CONFIG: translated sasl.jaas.config -> librdkafka "
                                    "sasl.mechanism=", k.mechanism)),
              std::string::npos)
        << err;
    EXPECT_EQ(err.find("pl@in"), std::string::npos) << "the password is never logged: " << err;
    EXPECT_EQ(err.find("scr@m"), std::string::npos) << "the password is never logged: " << err;
  }
  broker.process->Signal(SIGTERM);
}

// Every Firehose variable that is set gets its one answer at start (issue 29,
// item 3): a REFUSED one stops the start (exit 2) naming it and what to do; a
// WARNED one and a typo of a known name each log one line, and the sink runs.
TEST(SinkFirehoseEnv, RefusedVariablesStopTheStartWarnedOnesAndTyposLogOneLine) {
  std::string dir = TempDir("sink_firehose_vars");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto refused = SinkEnv(broker.bootstrap, "orders", "vars-refused", SampleDescriptorUrl());
  refused["SINK_ADD_METADATA_ENABLED"] = "true";
  auto sink = StartSink(refused, dir + "/refused");
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 2) << sink->Stderr();
  EXPECT_NE(sink->Stderr().find("SINK_ADD_METADATA_ENABLED: Kafka metadata columns are not written"),
            std::string::npos)
      << sink->Stderr();

  auto warned = SinkEnv(broker.bootstrap, "orders", "vars-warned", SampleDescriptorUrl());
  warned["TRACE_JAEGAR_ENABLE"] = "true";
  warned["SINK_POOL_NUM_THREADS"] = "4";
  warned["RETRY_MAX_ATTEMPT"] = "3";  // a typo of RETRY_MAX_ATTEMPTS
  sink = StartSink(warned, dir + "/warned");
  ASSERT_TRUE(WaitFor([&] { return sink->Stderr().find("sluice-sink started") != std::string::npos; },
                      absl::Seconds(30)))
      << sink->Stderr();
  const std::string err = sink->Stderr();
  EXPECT_EQ(CountLines(err, "TRACE_JAEGAR_ENABLE is ignored by sluice-sink"), 1) << err;
  EXPECT_EQ(CountLines(err, "SINK_POOL_NUM_THREADS is ignored by sluice-sink"), 1) << err;
  EXPECT_EQ(CountLines(err, "RETRY_MAX_ATTEMPT is not a Firehose or sluice-sink variable and is "
                            "ignored; did you mean RETRY_MAX_ATTEMPTS?"),
            1)
      << err;
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
  broker.process->Signal(SIGTERM);
}

}  // namespace
}  // namespace sluice::integration
