// sluice-sink with SINK_TYPE=elasticsearch end to end, against
// integration/es_fake (one fake for the binary, reset per test): protobuf
// samples upserted with routing, failing over from a dead first host, then
// a mid-run outage (nothing lost, offsets held); JSON records with one bad
// record of each kind (a missing id, an injected per-item 400) going alone
// to the Kafka DLQ and a blacklisted status dropped without a retry;
// update-only mode sending the update of a missing document to the DLQ.
#include <signal.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/es_fake/es_fake_process.h"
#include "integration/sink_harness.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {
namespace {

using Json = nlohmann::json;

class SinkElasticsearch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto fake = EsFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    fake_ = fake->release();
  }
  static void TearDownTestSuite() {
    delete fake_;
    fake_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(fake_, nullptr);
    fake_->Reset();
  }
  // The variables of a JSON topic with the Kafka DLQ on `dlq_topic`.
  static std::map<std::string, std::string> JsonWithDlq(const DevBroker& broker, const std::string& group) {
    auto env = JsonSinkEnv(broker.bootstrap, "rides", group);
    env["SINK_TYPE"] = "elasticsearch";
    env["SINK_ES_CONNECTION_URLS"] = fake_->host_port();
    env["SINK_ES_INDEX_NAME"] = "rides";
    env["SINK_ES_ID_FIELD"] = "order";
    env["DLQ_SINK_ENABLE"] = "true";
    env["DLQ_WRITER_TYPE"] = "KAFKA";
    env["DLQ_KAFKA_BROKERS"] = broker.bootstrap;
    env["DLQ_KAFKA_TOPIC"] = "rides-dlq";
    // A failed item is DEFAULT_ERROR, as goto Firehose types every ES failure
    // (EsSink.java:90 -> AbstractSink.java:48-53; the es sink's table test).
    env["ERROR_TYPES_FOR_DLQ"] = "DEFAULT_ERROR,INVALID_MESSAGE_ERROR";
    env["ERROR_TYPES_FOR_FAILING"] = "DESERIALIZATION_ERROR";
    return env;
  }
  static EsFake* fake_;
};
EsFake* SinkElasticsearch::fake_ = nullptr;

TEST_F(SinkElasticsearch, ProtobufSamplesSurviveAnOutageWithOffsetsHeld) {
  std::string dir = TempDir("sink_es_outage");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  const std::string group = "es-outage";
  auto env = SinkEnv(broker.bootstrap, "orders", group, SampleDescriptorUrl());
  env["SINK_TYPE"] = "elasticsearch";
  // The first host is down: requests fail over to the fake.
  env["SINK_ES_CONNECTION_URLS"] = absl::StrCat("127.0.0.1:", FreePort(), ",", fake_->host_port());
  env["SINK_ES_INDEX_NAME"] = "orders";
  env["SINK_ES_ID_FIELD"] = "order_number";
  env["SINK_ES_ROUTING_KEY_NAME"] = "driver_id";
  env["SINK_ES_REQUEST_TIMEOUT_MS"] = "2000";
  env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "100";
  env["RETRY_EXPONENTIAL_BACKOFF_MAX_MS"] = "500";
  auto sink = StartSink(env, dir + "/sink");
  auto committed = [&] { return Committed(broker.bootstrap, group, "orders", 1)[0]; };
  ProduceSamples(broker.bootstrap, "orders", 0, 10);
  ASSERT_TRUE(WaitFor([&] { return committed() == 10; }, absl::Seconds(30))) << sink->Stderr();
  Json doc = fake_->Docs("orders")["ORD-5"];
  EXPECT_EQ(doc["source"]["driver_id"], "driver-5");
  EXPECT_EQ(doc["source"]["status"], "ON_TRIP");
  EXPECT_EQ(doc["source"]["amount_paid_cents"], "105");  // int64 as a string (proto JSON)
  EXPECT_EQ(doc["source"]["pickup"]["city"], "Jakarta");
  EXPECT_EQ(doc["routing"], "driver-5");
  EXPECT_NE(sink->Stderr().find("failing over to the next host"), std::string::npos) << sink->Stderr();

  // Connections dropped: every batch fails as DEFAULT_ERROR (client.bulk throws,
  // EsSink.java:76 -> AbstractSink.java:48-53) and is retried (Firehose's
  // default ERROR_TYPES_FOR_RETRY).
  fake_->Outage({{"ms", 600000}, {"mode", "reset"}});
  ProduceSamples(broker.bootstrap, "orders", 10, 10);
  ASSERT_TRUE(WaitFor([&] { return fake_->Stats()["refusedRequests"].get<int>() >= 3; }, absl::Seconds(20)))
      << sink->Stderr();
  EXPECT_EQ(committed(), 10) << "nothing is committed while Elasticsearch is down";
  EXPECT_NE(sink->Stderr().find("DEFAULT_ERROR:"), std::string::npos) << sink->Stderr();

  fake_->EndOutage();
  ASSERT_TRUE(WaitFor([&] { return committed() == 20; }, absl::Seconds(30))) << sink->Stderr();
  EXPECT_EQ(fake_->Docs("orders").size(), 20u);
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST_F(SinkElasticsearch, JsonBadRecordsGoAloneToTheDlqAndABlacklistedStatusIsNotRetried) {
  std::string dir = TempDir("sink_es_bad_record");
  DevBroker broker = DevBroker::Start({"rides:1", "rides-dlq:1"}, dir);
  const std::vector<std::string> records = {
      R"({"order":"A","amount":10})",
      R"({"amount":20})",                 // no id: INVALID_MESSAGE_ERROR
      R"({"order":"C","amount":30})",     // injected per-item 400: DEFAULT_ERROR
      R"({"order":"D","amount":40})",     // injected 409, blacklisted: dropped
      R"({"order":"E","amount":50})"};
  fake_->ItemFault({{"status", 400}, {"id", "C"}, {"count", -1}});
  fake_->ItemFault({{"status", 409}, {"id", "D"}, {"count", -1}});
  ProduceRaw(broker.bootstrap, "rides", 0, records);
  auto env = JsonWithDlq(broker, "es-bad-record");
  env["SINK_ES_RETRY_STATUS_CODE_BLACKLIST"] = "409";
  env["ERROR_TYPES_FOR_RETRY"] = "DEFAULT_ERROR";  // a blacklisted status must still not be retried
  env["RETRY_MAX_ATTEMPTS"] = "1";
  env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "10";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "es-bad-record", "rides", 1)[0] == 5; },
                      absl::Seconds(30)))
      << sink->Stderr();
  Json docs = fake_->Docs("rides");
  EXPECT_EQ(docs.size(), 2u) << docs.dump();
  EXPECT_EQ(docs["A"]["source"], Json::parse(records[0]));
  EXPECT_EQ(docs["E"]["source"], Json::parse(records[4]));
  std::vector<ConsumedRecord> dead = ReadAll(broker.bootstrap, "rides-dlq", 2, absl::Seconds(10));
  ASSERT_EQ(dead.size(), 2u) << sink->Stderr();
  EXPECT_EQ(dead[0].value, records[1]);
  EXPECT_EQ(dead[0].headers["error_type"], "INVALID_MESSAGE_ERROR");
  EXPECT_EQ(dead[1].value, records[2]);
  EXPECT_EQ(dead[1].headers["error_type"], "DEFAULT_ERROR");
  Json stats = fake_->Stats();
  EXPECT_EQ(stats["itemStatus"]["409"], 1) << "the blacklisted item was sent once";
  EXPECT_EQ(stats["itemStatus"]["400"], 2) << "the 400 item was retried once, then dead-lettered";
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST_F(SinkElasticsearch, UpdateOnlyWithoutBlacklistSendsTheUpdateOfAMissingDocumentToTheDlq) {
  std::string dir = TempDir("sink_es_update_only");
  DevBroker broker = DevBroker::Start({"rides:1", "rides-dlq:1"}, dir);
  ASSERT_TRUE(fake_->PutDoc("rides", "A", {{"order", "A"}, {"amount", 1}, {"city", "Pune"}}));
  const std::vector<std::string> records = {R"({"order":"A","amount":2})", R"({"order":"Z","amount":3})"};
  ProduceRaw(broker.bootstrap, "rides", 0, records);
  auto env = JsonWithDlq(broker, "es-update-only");
  env["SINK_ES_MODE_UPDATE_ONLY_ENABLE"] = "true";
  env["SINK_ES_RETRY_STATUS_CODE_BLACKLIST"] = "none";  // Firehose's default 404 would skip Z
  // Z's 404 is DEFAULT_ERROR, retried by default: once, then the DLQ.
  env["RETRY_MAX_ATTEMPTS"] = "1";
  env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "10";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "es-update-only", "rides", 1)[0] == 2; },
                      absl::Seconds(30)))
      << sink->Stderr();
  Json docs = fake_->Docs("rides");
  EXPECT_EQ(docs.size(), 1u) << docs.dump();
  EXPECT_EQ(docs["A"]["source"], Json::parse(R"({"order":"A","amount":2,"city":"Pune"})"));
  std::vector<ConsumedRecord> dead = ReadAll(broker.bootstrap, "rides-dlq", 1, absl::Seconds(10));
  ASSERT_EQ(dead.size(), 1u) << sink->Stderr();
  EXPECT_EQ(dead[0].value, records[1]);
  EXPECT_EQ(dead[0].headers["error_type"], "DEFAULT_ERROR");
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
