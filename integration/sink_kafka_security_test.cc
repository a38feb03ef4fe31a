// sluice-sink consuming from a real Apache Kafka broker (kafka_broker.h; its
// version is printed) over its SASL_PLAINTEXT listener with SASL/PLAIN and
// SASL/SCRAM-SHA-512, and over its SSL listener with a PEM truststore, each
// configured exactly as a Firehose user does: the Java client's properties
// as SOURCE_KAFKA_CONSUMER_CONFIG_* variables (SECURITY_PROTOCOL,
// SASL_MECHANISM, SASL_JAAS_CONFIG with PlainLoginModule / ScramLoginModule,
// SSL_TRUSTSTORE_TYPE=PEM with SSL_TRUSTSTORE_LOCATION or
// SSL_TRUSTSTORE_CERTIFICATES), which sink/source/kafka_properties.cc
// translates to librdkafka's. Records are produced on the PLAINTEXT listener;
// the consumer group's committed offsets are read there too.
//
// SCRAM: librdkafka before 2.6.1 (Debian 12 ships 2.0.2) sends the client
// nonce twice in its client-final message, which Apache Kafka 4.0 and later
// refuse (RFC 5802's exact comparison; librdkafka PR 4895). With such a pair
// the SCRAM test checks that sluice-sink stops and says so; the Java client
// authenticates as bob on the same listener. A second test runs the same
// SCRAM configuration against Apache Kafka 3.9.1, where it connects.
#include <signal.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/kafka_broker.h"
#include "integration/sink_harness.h"
#include "librdkafka/rdkafka.h"

namespace sluice::integration {
namespace {

constexpr int kRecords = 50;

std::string JaasPlain(const std::string& user, const std::string& password) {
  return absl::StrCat("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"",
                      user, "\" password=\"", password, "\";");
}

std::string JaasScram(const std::string& user, const std::string& password) {
  return absl::StrCat("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"",
                      user, "\" password=\"", password, "\";");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One broker with both listeners for the suite; each test has its own topic
// and group.
class SinkKafkaSecurity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new KafkaBroker(KafkaBroker::Start(
        {"plain:2", "scram:2", "tls-file:2", "tls-inline:2", "denied:1"},
        TempDir("sink_kafka_security_kafka"), {.sasl = true, .tls = true}));
  }
  static void TearDownTestSuite() {
    delete broker_;  // stops the broker
    broker_ = nullptr;
  }

  // The sink's variables: SinkEnv on `bootstrap` plus `security`.
  static std::map<std::string, std::string> Env(const std::string& bootstrap,
                                                const std::string& topic,
                                                const std::map<std::string, std::string>& security) {
    auto env = SinkEnv(bootstrap, topic, topic + "-group", SampleDescriptorUrl());
    for (const auto& [k, v] : security) env[absl::StrCat("SOURCE_KAFKA_CONSUMER_CONFIG_", k)] = v;
    return env;
  }

  // Produces kRecords to `topic`, runs sluice-sink with `env` until the group
  // committed all of them, and checks that each was printed once and that no
  // secret of `secret` appears in the sink's log.
  static void ExpectDelivered(const std::map<std::string, std::string>& env,
                              const std::string& topic, const std::string& secret,
                              KafkaBroker* broker = broker_) {
    ProduceSamples(broker->bootstrap, topic, 0, kRecords);
    const std::string group = env.at("SOURCE_KAFKA_CONSUMER_GROUP_ID");
    auto sink = StartSink(env, TempDir("sink_kafka_security") + "/" + topic);
    ASSERT_TRUE(WaitFor(
        [&] {
          return !sink->Running() ||
                 CommittedSum(broker->bootstrap, group, topic, 2) == kRecords;
        },
        absl::Seconds(90)))
        << sink->Stderr();
    ASSERT_TRUE(sink->Running()) << sink->Stderr();
    EXPECT_EQ(CountLines(sink->Output(), "topic=" + topic), kRecords) << sink->Stderr();
    sink->Signal(SIGTERM);
    EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
    EXPECT_EQ(sink->Stderr().find(secret), std::string::npos) << "the secret is never logged";
  }

  static KafkaBroker* broker_;
};
KafkaBroker* SinkKafkaSecurity::broker_ = nullptr;

TEST_F(SinkKafkaSecurity, SaslPlainWithFirehosesJaasConfig) {
  auto env = Env(broker_->sasl_bootstrap, "plain",
                 {{"SECURITY_PROTOCOL", "SASL_PLAINTEXT"},
                  {"SASL_MECHANISM", "PLAIN"},
                  {"SASL_JAAS_CONFIG", JaasPlain(kSaslPlainUser, kSaslPlainPassword)}});
  ExpectDelivered(env, "plain", kSaslPlainPassword);
}

TEST_F(SinkKafkaSecurity, SaslScramSha512WithFirehosesJaasConfig) {
  auto env = Env(broker_->sasl_bootstrap, "scram",
                 {{"SECURITY_PROTOCOL", "SASL_PLAINTEXT"},
                  {"SASL_MECHANISM", "SCRAM-SHA-512"},
                  {"SASL_JAAS_CONFIG", JaasScram(kSaslScramUser, kSaslScramPassword)}});
  if (rd_kafka_version() >= 0x020601ff || broker_->version.rfind("3.", 0) == 0) {
    ExpectDelivered(env, "scram", kSaslScramPassword);
    return;
  }
  std::printf("SCRAM-SHA-512 with librdkafka %s and Apache Kafka %s: refused by the broker "
              "(librdkafka PR 4895, fixed in 2.6.1); sluice-sink must say so\n",
              rd_kafka_version_str(), broker_->version.c_str());
  ProduceSamples(broker_->bootstrap, "scram", 0, kRecords);
  auto sink = StartSink(env, TempDir("sink_kafka_security") + "/scram");
  EXPECT_EQ(sink->Wait(absl::Seconds(60)), 1) << sink->Stderr();
  const std::string err = sink->Stderr();
  std::printf("%s\n", err.substr(err.rfind('\n', err.size() - 2) + 1).c_str());
  EXPECT_NE(err.find("sluice-sink stopped after a fatal error: Kafka authentication failed"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("cannot complete SCRAM with Apache Kafka 4.0 or later brokers"),
            std::string::npos)
      << err;
  EXPECT_EQ(CountLines(sink->Output(), "topic=scram"), 0);
  EXPECT_EQ(err.find(kSaslScramPassword), std::string::npos) << "the secret is never logged";
}

// The same SCRAM configuration on Apache Kafka 3.9.1, which takes librdkafka
// 2.0.2's client-final message: sluice-sink's SCRAM settings connect, and
// only the 4.x broker's stricter nonce check stops them above.
TEST_F(SinkKafkaSecurity, SaslScramSha512OnAKafka39Broker) {
  KafkaBroker kafka39 = KafkaBroker::Start({"scram39:2"}, TempDir("sink_kafka_security_kafka39"),
                                           {.sasl = true, .libs = Kafka39Libs()});
  ASSERT_EQ(kafka39.version.rfind("3.9", 0), 0u) << kafka39.version;
  auto env = Env(kafka39.sasl_bootstrap, "scram39",
                 {{"SECURITY_PROTOCOL", "SASL_PLAINTEXT"},
                  {"SASL_MECHANISM", "SCRAM-SHA-512"},
                  {"SASL_JAAS_CONFIG", JaasScram(kSaslScramUser, kSaslScramPassword)}});
  ExpectDelivered(env, "scram39", kSaslScramPassword, &kafka39);
  // A wrong password is refused there too, and said.
  env["SOURCE_KAFKA_CONSUMER_CONFIG_SASL_JAAS_CONFIG"] = JaasScram(kSaslScramUser, "not-it");
  env["SOURCE_KAFKA_CONSUMER_GROUP_ID"] = "scram39-denied";
  auto sink = StartSink(env, TempDir("sink_kafka_security") + "/scram39-denied");
  EXPECT_EQ(sink->Wait(absl::Seconds(60)), 1) << sink->Stderr();
  EXPECT_NE(sink->Stderr().find("Kafka authentication failed"), std::string::npos)
      << sink->Stderr();
}

// Java's ssl.endpoint.identification.algorithm defaults to https, as
// librdkafka's does: the broker's certificate names IP 127.0.0.1.
TEST_F(SinkKafkaSecurity, TlsWithAPemTruststoreFile) {
  auto env = Env(broker_->ssl_bootstrap, "tls-file",
                 {{"SECURITY_PROTOCOL", "SSL"},
                  {"SSL_TRUSTSTORE_TYPE", "PEM"},
                  {"SSL_TRUSTSTORE_LOCATION", broker_->ca_pem}});
  ExpectDelivered(env, "tls-file", "-----BEGIN PRIVATE KEY");
}

// KIP-651's inline PEM: the CA certificates in the variable itself.
TEST_F(SinkKafkaSecurity, TlsWithInlinePemTruststoreCertificates) {
  const std::string ca = ReadFile(broker_->ca_pem);
  ASSERT_NE(ca.find("-----BEGIN CERTIFICATE-----"), std::string::npos) << ca;
  auto env = Env(broker_->ssl_bootstrap, "tls-inline",
                 {{"SECURITY_PROTOCOL", "SSL"},
                  {"SSL_TRUSTSTORE_TYPE", "PEM"},
                  {"SSL_TRUSTSTORE_CERTIFICATES", ca}});
  ExpectDelivered(env, "tls-inline", "-----BEGIN PRIVATE KEY");
}

// A wrong password: nothing is delivered or committed, and the sink stops
// (exit 1) saying why in words a user can act on, as a Java consumer throws
// an AuthenticationException from poll(). Before, librdkafka's log lines
// repeated while the sink sat idle for ever.
TEST_F(SinkKafkaSecurity, AWrongPasswordStopsTheSinkWithAnAuthenticationError) {
  ProduceSamples(broker_->bootstrap, "denied", 0, 5);
  auto env = Env(broker_->sasl_bootstrap, "denied",
                 {{"SECURITY_PROTOCOL", "SASL_PLAINTEXT"},
                  {"SASL_MECHANISM", "PLAIN"},
                  {"SASL_JAAS_CONFIG", JaasPlain(kSaslPlainUser, "not-the-password")}});
  auto sink = StartSink(env, TempDir("sink_kafka_security") + "/denied");
  const absl::Time start = absl::Now();
  const int code = sink->Wait(absl::Seconds(60));
  const std::string err = sink->Stderr();
  std::printf("wrong password: exit %d after %.1f s: %s\n", code,
              absl::ToDoubleSeconds(absl::Now() - start),
              err.substr(err.rfind('\n', err.size() - 2) + 1).c_str());
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("sluice-sink stopped after a fatal error: Kafka authentication failed: "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("Invalid username or password"), std::string::npos) << err;
  EXPECT_NE(err.find("SOURCE_KAFKA_CONSUMER_CONFIG_SASL_JAAS_CONFIG"), std::string::npos) << err;
  EXPECT_EQ(CountLines(sink->Output(), "topic=denied"), 0);
  EXPECT_EQ(Committed(broker_->bootstrap, "denied-group", "denied", 1)[0], -1);
  EXPECT_EQ(err.find("not-the-password"), std::string::npos) << "the secret is never logged";
}

}  // namespace
}  // namespace sluice::integration
