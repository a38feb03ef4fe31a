// sluice-sink with SINK_TYPE=mongodb end to end against integration/mongo_fake
// (no MongoDB server is packaged; the fake is proven by pymongo in
// //integration/mongo_fake:official_client_test), read back with libmongoc:
// protobuf and JSON input, upsert and update only on a missing document, one
// bad record among good ones (only it reaches the Kafka DLQ), and an outage
// mid-run (retried, nothing lost, offsets held). One fake serves every test;
// each uses its own collection.
#include <signal.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/mongo_fake/mongo_fake_process.h"
#include "integration/sink_harness.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {
namespace {

class SinkMongo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto fake = MongoFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    fake_ = std::move(*fake).release();
  }
  static void TearDownTestSuite() { delete fake_; }

  // The sink's variables for collection `coll`.
  static void UseMongo(std::map<std::string, std::string>* env, const std::string& coll,
                       const std::string& key) {
    (*env)["SINK_TYPE"] = "mongodb";
    (*env)["SINK_MONGO_CONNECTION_URLS"] = fake_->address();
    (*env)["SINK_MONGO_DB_NAME"] = "fleet";
    (*env)["SINK_MONGO_COLLECTION_NAME"] = coll;
    (*env)["SINK_MONGO_PRIMARY_KEY"] = key;
    (*env)["SINK_MONGO_CONNECT_TIMEOUT_MS"] = "1000";
    (*env)["SINK_MONGO_SERVER_SELECT_TIMEOUT_MS"] = "1000";
  }
  // _id → document of fleet.<coll>.
  static std::map<std::string, nlohmann::json> Docs(const std::string& coll) {
    std::map<std::string, nlohmann::json> out;
    for (auto& d : fake_->Find("fleet", coll)) out[d["_id"].get<std::string>()] = d;
    return out;
  }
  static void Stop(Process* sink) {
    sink->Signal(SIGTERM);
    EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
  }

  static MongoFake* fake_;
};
MongoFake* SinkMongo::fake_ = nullptr;

TEST_F(SinkMongo, ProtobufSamplesAreUpsertedByOrderNumber) {
  std::string dir = TempDir("sink_mongo_proto");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  ProduceSamples(broker.bootstrap, "orders", 5, 1);  // ORD-5 again: replaced, not duplicated
  auto env = SinkEnv(broker.bootstrap, "orders", "mongo-proto", SampleDescriptorUrl());
  UseMongo(&env, "orders", "order_number");
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "mongo-proto", "orders", 2) == 21; },
                      absl::Seconds(30)))
      << sink->Stderr();
  auto docs = Docs("orders");
  EXPECT_EQ(docs.size(), 20u);
  EXPECT_EQ(docs["ORD-5"]["driver_id"], "driver-5");
  EXPECT_EQ(docs["ORD-5"]["pickup"]["longitude"], 106.8);
  EXPECT_EQ(docs["ORD-5"]["amount_paid_cents"], "105") << "int64 as protobuf's JSON mapping writes it";
  Stop(sink.get());
}

// JSON upsert is covered by OneRefusedDocumentAloneGoesToTheDlq (A and C).
TEST_F(SinkMongo, JsonUpdateOnlyUpdatesAndLeavesAMissingDocumentOut) {
  std::string dir = TempDir("sink_mongo_json");
  DevBroker broker = DevBroker::Start({"updates:1"}, dir);
  nlohmann::ordered_json insert = {{"insert", "rides"},
                                   {"documents", {{{"_id", "A"}, {"ride", "A"}, {"fare", 10}},
                                                  {{"_id", "B"}, {"ride", "B"}, {"fare", 20}}}}};
  ASSERT_EQ(fake_->Command("fleet", insert)["n"], 2);
  ProduceRaw(broker.bootstrap, "updates", 0,
             {R"({"ride":"A","fare":11})", R"({"ride":"Z","fare":99})"});
  auto env = JsonSinkEnv(broker.bootstrap, "updates", "mongo-update");
  UseMongo(&env, "rides", "ride");
  env["SINK_MONGO_MODE_UPDATE_ONLY_ENABLE"] = "true";
  auto sink = StartSink(env, dir + "/update");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "mongo-update", "updates", 1)[0] == 2; },
                      absl::Seconds(30)))
      << sink->Stderr();
  auto docs = Docs("rides");
  EXPECT_EQ(docs.size(), 2u) << "Z matched nothing and was not created";
  EXPECT_EQ(docs["A"], nlohmann::json::parse(R"({"_id":"A","ride":"A","fare":11})"));
  EXPECT_EQ(docs["B"]["fare"], 20);
  EXPECT_NE(sink->Stderr().find("matched no _id"), std::string::npos) << sink->Stderr();
  Stop(sink.get());
}

TEST_F(SinkMongo, OneRefusedDocumentAloneGoesToTheDlq) {
  std::string dir = TempDir("sink_mongo_bad");
  DevBroker broker = DevBroker::Start({"rides:1", "rides-dlq:1"}, dir);
  const std::vector<std::string> records = {R"({"ride":"A","fare":10})", R"({"ride":"B","fare":20})",
                                            R"({"ride":"C","fare":30})", R"({"fare":40})"};
  ProduceRaw(broker.bootstrap, "rides", 0, records);
  fake_->FailIds({"B"}, 121, "Document failed validation");
  auto env = JsonSinkEnv(broker.bootstrap, "rides", "mongo-bad");
  UseMongo(&env, "bad", "ride");
  env["DLQ_SINK_ENABLE"] = "true";
  env["DLQ_WRITER_TYPE"] = "KAFKA";
  env["DLQ_KAFKA_BROKERS"] = broker.bootstrap;
  env["DLQ_KAFKA_TOPIC"] = "rides-dlq";
  // E121 is DEFAULT_ERROR, as goto Firehose types a write error
  // (MongoSink.java:75-78), retried by default: once, then the DLQ.
  env["RETRY_MAX_ATTEMPTS"] = "1";
  env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "10";
  env["ERROR_TYPES_FOR_DLQ"] = "DEFAULT_ERROR,INVALID_MESSAGE_ERROR";
  env["ERROR_TYPES_FOR_FAILING"] = "DESERIALIZATION_ERROR";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "mongo-bad", "rides", 1)[0] == 4; },
                      absl::Seconds(30)))
      << sink->Stderr();
  fake_->FailIds({}, 0, "");
  auto docs = Docs("bad");
  EXPECT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs["A"], nlohmann::json::parse(R"({"_id":"A","ride":"A","fare":10})")) << "upserted";
  EXPECT_EQ(docs["C"]["fare"], 30);
  std::vector<ConsumedRecord> dead = ReadAll(broker.bootstrap, "rides-dlq", 2, absl::Seconds(10));
  ASSERT_EQ(dead.size(), 2u) << sink->Stderr();
  std::multiset<std::string> values = {dead[0].value, dead[1].value};
  EXPECT_EQ(values, (std::multiset<std::string>{records[1], records[3]}))
      << "B refused by the server (E121), the record without a key by the sink";
  Stop(sink.get());
}

TEST_F(SinkMongo, AnOutageMidRunLosesNothingAndHoldsTheOffsets) {
  std::string dir = TempDir("sink_mongo_outage");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto env = SinkEnv(broker.bootstrap, "orders", "mongo-outage", SampleDescriptorUrl());
  UseMongo(&env, "outage", "order_number");
  // The outage is DEFAULT_ERROR (the driver throws; AbstractSink.java:48-53),
  // retried by Firehose's default ERROR_TYPES_FOR_RETRY.
  env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "100";
  env["RETRY_EXPONENTIAL_BACKOFF_MAX_MS"] = "500";
  auto sink = StartSink(env, dir + "/sink");
  auto committed = [&] { return Committed(broker.bootstrap, "mongo-outage", "orders", 1)[0]; };
  ProduceSamples(broker.bootstrap, "orders", 0, 10);
  ASSERT_TRUE(WaitFor([&] { return committed() == 10; }, absl::Seconds(30))) << sink->Stderr();

  fake_->Outage(4000);
  ProduceSamples(broker.bootstrap, "orders", 10, 10);
  ASSERT_TRUE(WaitFor([&] { return sink->Stderr().find("DEFAULT_ERROR:") != std::string::npos; },
                      absl::Seconds(4)))
      << sink->Stderr();
  EXPECT_EQ(committed(), 10) << "nothing is committed while the server is down";
  ASSERT_TRUE(WaitFor([&] { return committed() == 20; }, absl::Seconds(30))) << sink->Stderr();
  EXPECT_EQ(Docs("outage").size(), 20u);
  Stop(sink.get());
}

}  // namespace
}  // namespace sluice::integration
