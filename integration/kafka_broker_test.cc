// The real-broker helper itself: Apache Kafka starts on free loopback ports,
// takes the topics asked for, keeps records and committed offsets across a
// kill -9 and restart, and serves SASL and SSL listeners when asked.
#include "integration/kafka_broker.h"

#include "gtest/gtest.h"
#include "integration/sink_harness.h"

namespace sluice::integration {
namespace {

TEST(KafkaBroker, StartsWithTopicsAndKeepsRecordsAcrossAKill) {
  KafkaBroker broker = KafkaBroker::Start({"orders:3"}, TempDir("broker"));
  EXPECT_EQ(broker.version.rfind("4.", 0), 0u) << "Kafka 4.x expected, got " << broker.version;
  EXPECT_GT(broker.rss_kib, 0);
  ProduceSamples(broker.bootstrap, "orders", 0, 30);
  EXPECT_EQ(ReadAll(broker.bootstrap, "orders", 30, absl::Seconds(30)).size(), 30u);

  broker.Kill();
  broker.Restart();
  EXPECT_EQ(ReadAll(broker.bootstrap, "orders", 30, absl::Seconds(30)).size(), 30u)
      << "records kept across kill -9 and restart";
  ASSERT_TRUE(broker.CreateTopics({"more:2"}).ok());
  ProduceRaw(broker.bootstrap, "more", 1, {"a", "b"});
  EXPECT_EQ(ReadAll(broker.bootstrap, "more", 2, absl::Seconds(30)).size(), 2u);
}

TEST(KafkaBroker, ServesSaslAndSslListenersWhenAsked) {
  KafkaBroker broker =
      KafkaBroker::Start({"t:1"}, TempDir("secure"), {.sasl = true, .tls = true});
  ASSERT_FALSE(broker.sasl_bootstrap.empty());
  ASSERT_FALSE(broker.ssl_bootstrap.empty());
  EXPECT_NE(broker.sasl_bootstrap, broker.ssl_bootstrap);
  EXPECT_FALSE(broker.ca_pem.empty());
  // The PLAINTEXT listener still answers beside them.
  ProduceRaw(broker.bootstrap, "t", 0, {"x"});
  EXPECT_EQ(ReadAll(broker.bootstrap, "t", 1, absl::Seconds(30)).size(), 1u);
}

}  // namespace
}  // namespace sluice::integration
