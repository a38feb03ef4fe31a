// The Elasticsearch sink against integration/es_fake (one fake per test
// binary, reset before each test), read back through the fake's state.
#include "sink/sinks/elasticsearch/es_sink.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "integration/es_fake/es_fake_process.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/legacy_message.pb.h"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/recording_metrics.h"
#include "sink/sinks/testing/json_message.h"

namespace sluice::sink {
namespace {

// The es sink's outcomes and goto Firehose's types (error_type_table.h).
// Firehose's EsSink sets no type: every failure is DEFAULT_ERROR
// (firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:70 -> message/Message.java:33-36). "was": sluice's mapping before.
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/elasticsearch/EsSink.java:90 NeedToRetry,
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53
      // (was SINK_4XX/SINK_5XX/SINK_RETRYABLE by item status)
      {"item failed, status outside the blacklist", ErrorType::kDefaultError},
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/elasticsearch/EsSink.java:76 client.bulk throws,
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53 (was SINK_RETRYABLE_ERROR)
      {"no host reachable", ErrorType::kDefaultError},
      // the same (was SINK_5XX_ERROR)
      {"bulk call answered 5xx", ErrorType::kDefaultError},
      // the same (was SINK_4XX_ERROR)
      {"bulk call answered 4xx", ErrorType::kDefaultError},
      // the same (was SINK_RETRYABLE_ERROR)
      {"bulk call answered 429", ErrorType::kDefaultError},
      // the same (was SINK_UNKNOWN_ERROR)
      {"bulk call answered 3xx", ErrorType::kDefaultError},
      // the same: the client throws parsing it (was SINK_5XX/SINK_UNKNOWN)
      {"malformed bulk answer", ErrorType::kDefaultError},
      // sluice only: one bad record fails alone (Firehose fails the batch);
      // README "Switching from Firehose"
      {"record unusable", ErrorType::kInvalidMessageError},
  });
  return *table;
}


using ::sluice::integration::EsFake;
using ::sluice::sink::testing::FindGenerated;
using ::sluice::sink::testing::JsonMessage;
using ::sluice::sink::testing::RecordingMetrics;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;
using Json = nlohmann::json;


Message ProtoMessage(int64_t offset, const std::string& order, int64_t amount, const std::string& city) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(amount);
  pb->set_status(sluice::sink::testing::ACTIVE);
  if (!city.empty()) pb->mutable_address()->set_city(city);
  pb->mutable_event_timestamp()->set_seconds(1714557600);
  Message m;
  m.offset = offset;
  m.decoded = pb;
  return m;
}

class EsSinkTest : public ::testing::Test {
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
  absl::StatusOr<std::unique_ptr<Sink>> MakeSink(std::map<std::string, std::string> vars,
                                                 bool protobuf = false) {
    vars.emplace("SINK_ES_CONNECTION_URLS", fake_->host_port());
    vars.emplace("SINK_ES_INDEX_NAME", "orders");
    vars.emplace("SINK_ES_ID_FIELD", "order_number");
    if (protobuf) vars.emplace("INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage");
    env_ = Env(vars);
    SinkContext ctx{&env_, &metrics_, nullptr};
    if (protobuf) ctx.find_message = &FindGenerated;
    return CreateFromContext<EsSink>(ctx);
  }
  static EsFake* fake_;
  Env env_;
  RecordingMetrics metrics_;
};
EsFake* EsSinkTest::fake_ = nullptr;

TEST_F(EsSinkTest, JsonUpsertsInOneBulkRequestAndMergesLaterUpdates) {
  auto sink = MakeSink({});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({JsonMessage(0, R"({"order_number":"A","amount":1,"driver":{"name":"x"}})"),
                             JsonMessage(1, "{\n \"order_number\": \"B\",\n \"amount\": 2\n}")})
                  .empty());
  Json stats = fake_->Stats();
  EXPECT_EQ(stats["bulkRequests"], 1);
  EXPECT_EQ(stats["lastBulk"]["path"], "/_bulk");
  EXPECT_EQ(stats["lastBulk"]["contentType"], "application/x-ndjson");
  EXPECT_EQ(stats["lastBulk"]["query"], Json({{"timeout", "60000ms"}, {"wait_for_active_shards", "1"}}));
  EXPECT_TRUE((*sink)->Push({JsonMessage(2, R"({"order_number":"A","amount":5})")}).empty());
  Json docs = fake_->Docs("orders");
  EXPECT_EQ(docs["A"]["source"], Json::parse(R"({"order_number":"A","amount":5,"driver":{"name":"x"}})"));
  EXPECT_EQ(docs["A"]["version"], 2);
  EXPECT_EQ(docs["B"]["source"], Json::parse(R"({"order_number":"B","amount":2})"));
}

TEST_F(EsSinkTest, WithTheKeyParserModeTheDocumentIsTheKeysJson) {
  auto sink = MakeSink({{"KAFKA_RECORD_PARSER_MODE", "key"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  Message m = JsonMessage(0, R"({"order_number":"K","from":"key"})");
  m.key = m.value;
  m.value = R"({"order_number":"V","from":"value"})";
  EXPECT_TRUE((*sink)->Push({m}).empty());
  EXPECT_EQ(fake_->Docs("orders")["K"]["source"]["from"], "key");
}

TEST_F(EsSinkTest, ProtobufDocumentsWithProtoNamesRoutingAndSettings) {
  auto sink = MakeSink({{"SINK_ES_ROUTING_KEY_NAME", "address.city"},
                        {"SINK_ES_SHARDS_ACTIVE_WAIT_COUNT", "2"},
                        {"SINK_ES_REQUEST_TIMEOUT_MS", "1500"},
                        {"SINK_ES_TYPE_NAME", "order"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({ProtoMessage(0, "P1", 10, "Pune"), ProtoMessage(1, "P2", 20, "")});
  ASSERT_EQ(failed.size(), 1u);  // no routing value
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("record unusable"));
  EXPECT_THAT(failed[0].error, HasSubstr("SINK_ES_ROUTING_KEY_NAME"));
  Json docs = fake_->Docs("orders");
  EXPECT_EQ(docs["P1"]["source"],
            Json::parse(R"({"order_number":"P1","amount":"10","status":"ACTIVE",)"
                        R"("address":{"city":"Pune"},"event_timestamp":"2024-05-01T10:00:00Z"})"));
  EXPECT_EQ(docs["P1"]["routing"], "Pune");
  EXPECT_TRUE(docs["P1"]["type"].is_null()) << "no _type for Elasticsearch 8";
  EXPECT_EQ(fake_->Stats()["lastBulk"]["query"],
            Json({{"timeout", "1500ms"}, {"wait_for_active_shards", "2"}}));
}

TEST_F(EsSinkTest, ProtobufWithCamelCaseNamesTakesTheJsonNameAsIdField) {
  auto sink = MakeSink({{"SINK_ES_PRESERVE_PROTO_FIELD_NAMES_ENABLE", "false"},
                        {"SINK_ES_ID_FIELD", "orderNumber"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({ProtoMessage(0, "C1", 1, "Goa")}).empty());
  Json doc = fake_->Docs("orders")["C1"]["source"];
  EXPECT_EQ(doc["orderNumber"], "C1");
  EXPECT_EQ(doc["eventTimestamp"], "2024-05-01T10:00:00Z");
  EXPECT_FALSE(doc.contains("order_number"));
}

TEST_F(EsSinkTest, TheTypeNameIsSentOnlyToClustersOlderThan7) {
  fake_->Configure({{"version", "6.8.23"}});
  auto sink = MakeSink({{"SINK_ES_TYPE_NAME", "order"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({JsonMessage(0, R"({"order_number":"A"})")}).empty());
  EXPECT_EQ(fake_->Docs("orders")["A"]["type"], "order");
  // The version is read once; an 8.x fake would refuse `_type` for the whole request.
  fake_->Configure({{"version", "8.19.1"}});
  auto failed = (*sink)->Push({JsonMessage(1, R"({"order_number":"B"})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("item failed, status outside the blacklist"));
  EXPECT_THAT(failed[0].error, HasSubstr("unknown parameter [_type]"));
}

TEST_F(EsSinkTest, WithATypeNameAnUnreachableClusterFailsTheBatchAsRetryable) {
  auto sink = MakeSink({{"SINK_ES_TYPE_NAME", "order"},
                        {"SINK_ES_CONNECTION_URLS", absl::StrCat("127.0.0.1:", integration::FreePort())}});
  ASSERT_TRUE(sink.ok());
  auto failed = (*sink)->Push({JsonMessage(0, R"({"order_number":"A"})"), JsonMessage(1, R"({"order_number":"B"})")});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[1].error_type, FirehoseTypes()("no host reachable"));
  EXPECT_THAT(failed[1].error, HasSubstr("cannot read the Elasticsearch version"));
}

TEST_F(EsSinkTest, AProto2StringThatIsNotUtf8FailsItsRecordAlone) {
  auto sink = MakeSink({{"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.LegacyMessage"},
                        {"SINK_ES_ID_FIELD", "id"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto good = std::make_shared<sluice::sink::testing::LegacyMessage>();
  good->set_id("ok");
  good->add_tags("fine");
  auto bad = std::make_shared<sluice::sink::testing::LegacyMessage>();
  bad->set_id("bad");
  bad->add_tags(std::string("\xff\xfe", 2));  // proto2 parses it without a UTF-8 check
  (*bad->mutable_labels())["k"] = "fine";
  Message g, b;
  g.decoded = good;
  b.offset = 1;
  b.decoded = bad;
  auto failed = (*sink)->Push({g, b});
  ASSERT_EQ(failed.size(), 1u) << fake_->Docs("orders").dump();
  EXPECT_THAT(failed[0].error, HasSubstr("LegacyMessage.tags is not valid UTF-8"));
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("record unusable"));
  EXPECT_EQ(fake_->Docs("orders")["ok"]["source"], Json::parse(R"({"id":"ok","tags":["fine"]})"));
}

TEST_F(EsSinkTest, UpdateOnlyWithoutBlacklistFailsAMissingDocumentAndUpdatesAnExistingOne) {
  auto upsert = MakeSink({});
  ASSERT_TRUE(upsert.ok());
  ASSERT_TRUE((*upsert)->Push({JsonMessage(0, R"({"order_number":"A","amount":1})")}).empty());
  auto sink = MakeSink({{"SINK_ES_MODE_UPDATE_ONLY_ENABLE", "true"},
                        {"SINK_ES_RETRY_STATUS_CODE_BLACKLIST", "none"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({JsonMessage(1, R"({"order_number":"A","amount":2})"),
                               JsonMessage(2, R"({"order_number":"Z","amount":3})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 2);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("item failed, status outside the blacklist"));
  EXPECT_THAT(failed[0].error, HasSubstr("404 document_missing_exception"));
  Json docs = fake_->Docs("orders");
  EXPECT_EQ(docs["A"]["source"]["amount"], 2);
  EXPECT_FALSE(docs.contains("Z"));
}

TEST_F(EsSinkTest, AMissingIdOrANonObjectRecordFailsAloneAsInvalidMessage) {
  auto sink = MakeSink({});
  ASSERT_TRUE(sink.ok());
  auto failed = (*sink)->Push({JsonMessage(0, R"({"order_number":"A"})"), JsonMessage(1, R"({"amount":1})"),
                               JsonMessage(2, R"({"order_number":""})"), JsonMessage(3, R"([1,2])"),
                               JsonMessage(4, R"({"order_number":"E"})"),
                               JsonMessage(5, absl::StrCat(R"({"order_number":")", std::string(513, 'x'), "\"}")),
                               JsonMessage(6, "\xEF\xBB\xBF{\"order_number\":\"G\"}")});
  ASSERT_EQ(failed.size(), 4u);
  for (const auto& f : failed) EXPECT_EQ(f.error_type, FirehoseTypes()("record unusable"));
  EXPECT_THAT(failed[0].error, HasSubstr("id field \"order_number\" (SINK_ES_ID_FIELD) is missing"));
  EXPECT_EQ(failed[2].message.offset, 3);
  EXPECT_THAT(failed[3].error, HasSubstr("longer than 512 bytes"));
  EXPECT_EQ(fake_->Docs("orders").size(), 3u);
  EXPECT_EQ(fake_->Docs("orders")["G"]["source"], Json::parse(R"({"order_number":"G"})"));
  EXPECT_EQ(fake_->Stats()["lastBulk"]["items"], 3);
}

TEST_F(EsSinkTest, PerItemFailuresFailOnlyTheirMessagesByStatus) {
  auto sink = MakeSink({});
  ASSERT_TRUE(sink.ok());
  fake_->ItemFault({{"status", 400}, {"id", "B"}});
  fake_->ItemFault({{"status", 429}, {"id", "C"}});
  fake_->ItemFault({{"status", 503}, {"id", "D"}});
  auto failed = (*sink)->Push({JsonMessage(0, R"({"order_number":"A"})"), JsonMessage(1, R"({"order_number":"B"})"),
                               JsonMessage(2, R"({"order_number":"C"})"), JsonMessage(3, R"({"order_number":"D"})")});
  ASSERT_EQ(failed.size(), 3u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("item failed, status outside the blacklist"));
  EXPECT_THAT(failed[0].error, HasSubstr("mapper_parsing_exception"));
  EXPECT_EQ(failed[1].error_type, FirehoseTypes()("item failed, status outside the blacklist"));
  EXPECT_EQ(failed[2].error_type, FirehoseTypes()("item failed, status outside the blacklist"));
  EXPECT_EQ(fake_->Docs("orders").size(), 1u);
  // Pushed again (as the retry layer does), only the failed ones go out.
  std::vector<Message> again;
  for (const auto& f : failed) again.push_back(f.message);
  EXPECT_TRUE((*sink)->Push(again).empty());
  EXPECT_EQ(fake_->Stats()["lastBulk"]["items"], 3);
  EXPECT_EQ(fake_->Docs("orders").size(), 4u);
}

TEST_F(EsSinkTest, ABlacklistedStatusIsDroppedAndCountedNotFailed) {
  auto sink = MakeSink({{"SINK_ES_MODE_UPDATE_ONLY_ENABLE", "true"},
                        {"SINK_ES_RETRY_STATUS_CODE_BLACKLIST", "404, 400"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  fake_->ItemFault({{"status", 429}, {"id", "C"}});
  auto failed = (*sink)->Push({JsonMessage(0, R"({"order_number":"missing"})"),
                               JsonMessage(1, R"({"order_number":"C"})")});
  ASSERT_EQ(failed.size(), 1u);  // 429 is not blacklisted
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(metrics_.Sum("firehose_sink_messages_drop_total", {"cause", "404"}), 1);
}

TEST_F(EsSinkTest, FailsOverToTheNextHostOnTransportErrorsAnd503) {
  int dead = integration::FreePort();
  std::string port = fake_->host_port().substr(fake_->host_port().find(':') + 1);
  auto sink = MakeSink({{"SINK_ES_CONNECTION_URLS",
                         absl::StrCat("127.0.0.1:", dead, ",", fake_->host_port(), ",localhost:", port)}});
  ASSERT_TRUE(sink.ok());
  auto* es = static_cast<EsSink*>(sink->get());
  EXPECT_TRUE((*sink)->Push({JsonMessage(0, R"({"order_number":"A"})")}).empty());
  EXPECT_EQ(es->current_host(), 1u);
  EXPECT_TRUE((*sink)->Push({JsonMessage(1, R"({"order_number":"B"})")}).empty());
  EXPECT_EQ(es->current_host(), 1u);  // it stays on a working host
  // A node answering 503 is skipped too.
  fake_->Outage({{"requests", 1}});
  EXPECT_TRUE((*sink)->Push({JsonMessage(2, R"({"order_number":"C"})")}).empty());
  EXPECT_EQ(es->current_host(), 2u);
  EXPECT_EQ(fake_->Docs("orders").size(), 3u);
  EXPECT_EQ(fake_->Stats()["refusedRequests"], 1);
}

TEST_F(EsSinkTest, EveryHostDownIsRetryableAndA503OutageIs5xx) {
  auto down = MakeSink({{"SINK_ES_CONNECTION_URLS", absl::StrCat("127.0.0.1:", integration::FreePort())},
                        {"SINK_ES_REQUEST_TIMEOUT_MS", "2000"}});
  ASSERT_TRUE(down.ok());
  auto failed = (*down)->Push({JsonMessage(0, R"({"order_number":"A"})"), JsonMessage(1, R"({"order_number":"B"})")});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("no host reachable"));
  auto sink = MakeSink({});
  ASSERT_TRUE(sink.ok());
  fake_->Outage({{"ms", 60000}});
  failed = (*sink)->Push({JsonMessage(0, R"({"order_number":"A"})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("bulk call answered 5xx"));
  EXPECT_THAT(failed[0].error, HasSubstr("HTTP 503: cluster_block_exception"));
  fake_->EndOutage();
  EXPECT_TRUE((*sink)->Push({JsonMessage(0, R"({"order_number":"A"})")}).empty());
}

// Answers every request with one fixed answer.
class StubHttp : public HttpClient {
 public:
  explicit StubHttp(HttpResult answer) : answer_(std::move(answer)) {}
  absl::StatusOr<HttpResult> Do(const HttpRequest&) override { return answer_; }

 private:
  HttpResult answer_;
};

TEST(EsSinkAnswerTest, MalformedAnswersFailTheBatchWithoutThrowing) {
  Env env({{"SINK_ES_CONNECTION_URLS", "h:1"}, {"SINK_ES_INDEX_NAME", "i"}, {"SINK_ES_ID_FIELD", "id"}});
  NoopMetrics metrics;
  auto config = EsSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  ASSERT_TRUE(config.ok());
  const std::vector<std::pair<HttpResult, ErrorType>> answers = {
      {{200, R"({"errors":"yes","items":[{"update":{"status":"x","error":5}},7]})"}, FirehoseTypes()("malformed bulk answer")},
      {{200, R"({"errors":false,"items":[]})"}, FirehoseTypes()("malformed bulk answer")},
      {{200, "not json"}, FirehoseTypes()("malformed bulk answer")},
      {{400, R"({"error":{"type":7,"reason":["r"]},"status":400})"}, FirehoseTypes()("bulk call answered 4xx")},
      {{429, ""}, FirehoseTypes()("bulk call answered 429")},
      {{302, ""}, FirehoseTypes()("bulk call answered 3xx")},
  };
  for (const auto& [answer, type] : answers) {
    auto sink = EsSink::Create(*config, &metrics, std::make_shared<StubHttp>(answer));
    ASSERT_TRUE(sink.ok());
    auto failed = (*sink)->Push({JsonMessage(0, R"({"id":"a"})"), JsonMessage(1, R"({"id":"b"})")});
    ASSERT_EQ(failed.size(), 2u) << answer.body;
    EXPECT_EQ(failed[0].error_type, type) << answer.status << " " << answer.body;
  }
}

TEST(EsSinkConfigTest, ErrorsNameTheVariable) {
  NoopMetrics metrics;
  auto make = [&](std::map<std::string, std::string> vars, bool protobuf = false) {
    vars.emplace("SINK_ES_CONNECTION_URLS", "localhost:9200");
    vars.emplace("SINK_ES_INDEX_NAME", "orders");
    vars.emplace("SINK_ES_ID_FIELD", "order_number");
    if (protobuf) vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
    Env env(vars);
    SinkContext ctx{&env, &metrics, nullptr};
    if (protobuf) ctx.find_message = &FindGenerated;
    auto c = EsSinkConfig::FromEnv(env, ctx);
    return c.ok() ? std::string("ok") : std::string(c.status().message());
  };
  EXPECT_EQ(make({}), "ok");
  EXPECT_THAT(make({{"SINK_ES_CONNECTION_URLS", "localhost"}}), HasSubstr("SINK_ES_CONNECTION_URLS"));
  EXPECT_THAT(make({{"SINK_ES_CONNECTION_URLS", "ftp://h:1"}}), HasSubstr("SINK_ES_CONNECTION_URLS"));
  EXPECT_THAT(make({{"SINK_ES_RETRY_STATUS_CODE_BLACKLIST", "404,x"}}),
              HasSubstr("SINK_ES_RETRY_STATUS_CODE_BLACKLIST"));
  EXPECT_THAT(make({{"SINK_ES_SHARDS_ACTIVE_WAIT_COUNT", "-1"}}), HasSubstr("SINK_ES_SHARDS_ACTIVE_WAIT_COUNT"));
  EXPECT_THAT(make({{"SINK_ES_INPUT_MESSAGE_TYPE", "PROTOBUF"}}), HasSubstr("INPUT_SCHEMA_DATA_TYPE=protobuf"));
  EXPECT_THAT(make({{"SINK_ES_INPUT_MESSAGE_TYPE", "JSON"}}, true), HasSubstr("INPUT_SCHEMA_DATA_TYPE=json"));
  EXPECT_THAT(make({{"SINK_ES_ID_FIELD", "nope"}}, true), HasSubstr("SINK_ES_ID_FIELD"));
  EXPECT_THAT(make({{"SINK_ES_ROUTING_KEY_NAME", "nope"}}, true), HasSubstr("SINK_ES_ROUTING_KEY_NAME"));
  EXPECT_EQ(make({}, true), "ok");
  Env env({{"SINK_ES_CONNECTION_URLS", "a:1, https://b:2/"}, {"SINK_ES_INDEX_NAME", "i"},
           {"SINK_ES_ID_FIELD", "id"}});
  SinkContext ctx{&env, &metrics, nullptr};
  auto c = EsSinkConfig::FromEnv(env, ctx);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->hosts, (std::vector<std::string>{"http://a:1", "https://b:2"}));
  EXPECT_EQ(c->request_timeout_ms, 60000);
  EXPECT_EQ(c->shards_active_wait_count, 1);
  EXPECT_FALSE(c->update_only);
  EXPECT_TRUE(c->preserve_proto_field_names);
  EXPECT_EQ(c->retry_blacklist, std::set<int>{404}) << "Firehose's default";
  Env none({{"SINK_ES_CONNECTION_URLS", "a:1"}, {"SINK_ES_INDEX_NAME", "i"}, {"SINK_ES_ID_FIELD", "id"},
            {"SINK_ES_RETRY_STATUS_CODE_BLACKLIST", "None"}});
  c = EsSinkConfig::FromEnv(none, ctx);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->retry_blacklist.empty());
}

}  // namespace
}  // namespace sluice::sink
