// The mongodb sink against integration/mongo_fake (a stateful MongoDB fake,
// proven by pymongo in //integration/mongo_fake:official_client_test), read
// back with libmongoc. One fake serves the whole binary; each test uses its
// own collection.
#include "sink/sinks/mongodb/mongo_sink.h"

#include <map>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "integration/mongo_fake/mongo_fake_process.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/recording_metrics.h"
#include "sink/sinks/testing/json_message.h"

namespace sluice::sink {
namespace {

// The mongodb sink's outcomes and goto Firehose's types
// (error_type_table.h). MongoSink sets no type (firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:70 -> message/Message.java:33-36).
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/mongodb/MongoSink.java:75-78 returns it untyped
      // (was SINK_4XX_ERROR, or SINK_RETRYABLE_ERROR for transient codes)
      {"write error outside the blacklist", ErrorType::kDefaultError},
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/mongodb/client/MongoSinkClient.java catches only
      // MongoBulkWriteException; firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53 (was SINK_RETRYABLE_ERROR)
      {"server unreachable", ErrorType::kDefaultError},
      // sluice only: one bad record fails alone (Firehose fails the batch);
      // README "Switching from Firehose"
      {"record unusable", ErrorType::kInvalidMessageError},
  });
  return *table;
}


using ::sluice::integration::MongoFake;
using ::sluice::sink::testing::FindGenerated;
using ::sluice::sink::testing::JsonMessage;
using ::sluice::sink::testing::RecordingMetrics;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;
using Json = nlohmann::json;


Message Proto(int64_t offset, const std::string& order, int64_t amount, const std::string& city) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(amount);
  pb->set_status(sluice::sink::testing::ACTIVE);
  pb->mutable_address()->set_city(city);
  Message m;
  m.offset = offset;
  m.value = pb->SerializeAsString();
  m.decoded = pb;
  return m;
}

class MongoSinkTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto fake = MongoFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    fake_ = std::move(*fake).release();
  }
  static void TearDownTestSuite() { delete fake_; }
  void SetUp() override {
    coll_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fake_->FailIds({}, 0, "");
  }

  absl::StatusOr<std::unique_ptr<Sink>> MakeSink(std::map<std::string, std::string> vars,
                                                 bool json = true) {
    vars.emplace("SINK_MONGO_CONNECTION_URLS", fake_->address());
    vars.emplace("SINK_MONGO_DB_NAME", "shop");
    vars.emplace("SINK_MONGO_COLLECTION_NAME", coll_);
    vars.emplace("SINK_MONGO_CONNECT_TIMEOUT_MS", "1000");
    vars.emplace("SINK_MONGO_SERVER_SELECT_TIMEOUT_MS", "1000");
    if (!json) vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
    env_ = Env(vars);
    SinkContext ctx{&env_, &metrics_, nullptr};
    if (!json) ctx.find_message = &FindGenerated;
    return CreateFromContext<MongoSink>(ctx);
  }
  std::map<std::string, Json> Docs() {
    std::map<std::string, Json> out;
    for (Json& d : fake_->Find("shop", coll_)) out[d["_id"].get<std::string>()] = d;
    return out;
  }

  static MongoFake* fake_;
  std::string coll_;
  Env env_;
  RecordingMetrics metrics_;
};
MongoFake* MongoSinkTest::fake_ = nullptr;

TEST_F(MongoSinkTest, JsonUpsertReplacesByPrimaryKey) {
  auto sink = MakeSink({{"SINK_MONGO_PRIMARY_KEY", "order_id"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({JsonMessage(0, R"({"order_id":7,"status":"new","n":{"a":1}})"),
                             JsonMessage(1, R"({"order_id":"x","status":"new"})")})
                  .empty());
  EXPECT_TRUE((*sink)->Push({JsonMessage(2, R"({"order_id":7,"status":"paid"})")}).empty());
  auto docs = Docs();
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs["7"], Json::parse(R"({"_id":"7","order_id":7,"status":"paid"})"))
      << "replaced whole, _id is the key's text (Firehose)";
  EXPECT_EQ(docs["x"]["status"], "new");
  EXPECT_EQ(metrics_.Sum("firehose_sink_mongo_inserted_total"), 2);
  EXPECT_EQ(metrics_.Sum("firehose_sink_mongo_updated_total"), 1);
  EXPECT_EQ(metrics_.Sum("firehose_sink_mongo_modified_total"), 1);
}

TEST_F(MongoSinkTest, WithoutPrimaryKeyUpsertModeInserts) {
  auto sink = MakeSink({});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({JsonMessage(0, R"({"a":1})"), JsonMessage(1, R"({"a":1})")}).empty());
  EXPECT_EQ(fake_->Find("shop", coll_).size(), 2u);
}

TEST_F(MongoSinkTest, ProtobufDocumentsWithProtoOrJsonFieldNames) {
  auto sink = MakeSink({{"SINK_MONGO_PRIMARY_KEY", "order_number"}}, /*json=*/false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Proto(0, "A-1", 250, "Pune")}).empty());
  EXPECT_EQ(Docs()["A-1"], Json::parse(R"({"_id":"A-1","order_number":"A-1","amount":"250",
      "status":"ACTIVE","address":{"city":"Pune"}})"));
  auto camel = MakeSink({{"SINK_MONGO_PRIMARY_KEY", "orderNumber"},
                         {"SINK_MONGO_PRESERVE_PROTO_FIELD_NAMES_ENABLE", "false"},
                         {"SINK_MONGO_INPUT_MESSAGE_TYPE", "PROTOBUF"}},
                        false);
  ASSERT_TRUE(camel.ok()) << camel.status();
  EXPECT_TRUE((*camel)->Push({Proto(1, "B-2", 5, "Goa")}).empty());
  EXPECT_EQ(Docs()["B-2"]["orderNumber"], "B-2");
}

TEST_F(MongoSinkTest, UpdateOnlyLeavesAMissingDocumentOutAndCountsItDropped) {
  auto upsert = MakeSink({{"SINK_MONGO_PRIMARY_KEY", "id"}});
  ASSERT_TRUE(upsert.ok());
  ASSERT_TRUE((*upsert)->Push({JsonMessage(0, R"({"id":"here","v":1})")}).empty());
  auto sink = MakeSink({{"SINK_MONGO_PRIMARY_KEY", "id"}, {"SINK_MONGO_MODE_UPDATE_ONLY_ENABLE", "true"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({JsonMessage(1, R"({"id":"here","v":2})"),
                               JsonMessage(2, R"({"id":"missing","v":2})")});
  EXPECT_TRUE(failed.empty()) << "Firehose's MongoSinkClient drops and counts it";
  auto docs = Docs();
  EXPECT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs["here"]["v"], 2);
  EXPECT_EQ(metrics_.Sum("firehose_sink_messages_drop_total",
                         {"cause", "Primary Key for update request not found"}),
            1);
}

TEST_F(MongoSinkTest, WriteErrorsFailOnlyTheirMessages) {
  auto sink = MakeSink({{"SINK_MONGO_PRIMARY_KEY", "id"}});
  ASSERT_TRUE(sink.ok());
  fake_->FailIds({"bad"}, 121, "Document failed validation");
  auto failed = (*sink)->Push({JsonMessage(0, R"({"id":"a"})"), JsonMessage(1, R"({"id":"bad"})"),
                               JsonMessage(2, R"({"id":"b"})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("write error outside the blacklist"));
  EXPECT_EQ(failed[0].error, "E121 Document failed validation");
  EXPECT_EQ(Docs().size(), 2u) << "unordered: the others are written";

  fake_->FailIds({"bad"}, 91, "shutting down");
  failed = (*sink)->Push({JsonMessage(3, R"({"id":"bad"})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("write error outside the blacklist")) << "a transient code too: Firehose types no code";

  fake_->FailIds({"bad"}, 11000, "E11000 duplicate key");
  failed = (*sink)->Push({JsonMessage(4, R"({"id":"bad"})"), JsonMessage(5, R"({"id":"c"})")});
  EXPECT_TRUE(failed.empty()) << "11000 is in the default blacklist: dropped, not retried";
  EXPECT_EQ(metrics_.Sum("firehose_sink_messages_drop_total", {"cause", "E11000"}), 1);
  EXPECT_EQ(Docs().count("c"), 1u);
}

TEST_F(MongoSinkTest, BadRecordsFailAloneAsInvalidMessages) {
  auto sink = MakeSink({{"SINK_MONGO_PRIMARY_KEY", "id"}});
  ASSERT_TRUE(sink.ok());
  Message undecoded;
  undecoded.offset = 4;
  auto failed = (*sink)->Push({JsonMessage(0, R"({"v":1})"), JsonMessage(1, R"([1,2])"),
                               JsonMessage(2, R"({"id":{"x":1}})"), JsonMessage(3, R"({"id":"ok"})"),
                               undecoded, JsonMessage(5, R"({"id":"dollar","$bad":1})"),
                               JsonMessage(6, R"({"id":"dot","a.b":1})"),
                               JsonMessage(7, R"({"id":"nul\u0000key","v":1})")});
  ASSERT_EQ(failed.size(), 5u);
  for (const auto& f : failed) EXPECT_EQ(f.error_type, FirehoseTypes()("record unusable")) << f.error;
  EXPECT_THAT(failed[0].error, HasSubstr("primary key field \"id\" is missing"));
  EXPECT_THAT(failed[1].error, HasSubstr("not a JSON object"));
  EXPECT_THAT(failed[2].error, HasSubstr("an object or an array"));
  EXPECT_EQ(failed[4].message.offset, 5);
  auto docs = Docs();
  EXPECT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs["dot"]["a.b"], 1) << "dotted names are allowed (MongoDB 5.0, libmongoc 1.23)";
  EXPECT_EQ(docs.count(std::string("nul\0key", 7)), 1u) << "a key with NUL is kept whole";
}

TEST_F(MongoSinkTest, AnOutageFailsTheBatchAsRetryableThenRecovers) {
  auto sink = MakeSink({{"SINK_MONGO_PRIMARY_KEY", "id"}});
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->Push({JsonMessage(0, R"({"id":"before"})")}).empty());
  fake_->Outage(1500);
  auto failed = (*sink)->Push({JsonMessage(1, R"({"id":"during1"})"), JsonMessage(2, R"({"id":"during2"})")});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("server unreachable")) << failed[0].error;
  absl::Time give_up = absl::Now() + absl::Seconds(15);
  while (!(*sink)->Push({JsonMessage(1, R"({"id":"during1"})")}).empty()) {
    ASSERT_LT(absl::Now(), give_up) << "the sink did not reconnect";
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(Docs().size(), 2u);
}

TEST_F(MongoSinkTest, ScramSha256WithTheRightPasswordOnlyEvenWithUriCharacters) {
  const std::string password = "p@ss:/?#[]w=rd,%";
  fake_->Command("admin", {{"sluiceFakeAddUser", "ana"}, {"pwd", password}, {"db", "users"}});
  auto sink = MakeSink({{"SINK_MONGO_AUTH_ENABLE", "true"},
                        {"SINK_MONGO_AUTH_USERNAME", "ana"},
                        {"SINK_MONGO_AUTH_PASSWORD", password},
                        {"SINK_MONGO_AUTH_DB", "users"},
                        {"SINK_MONGO_PRIMARY_KEY", "id"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({JsonMessage(0, R"({"id":"a"})")}).empty());
  Json stats = fake_->Command("admin", {{"sluiceFakeStats", 1}});
  EXPECT_EQ(stats["lastSaslSupportedMechs"], "users.ana");
  EXPECT_EQ(stats["lastSaslUser"], "ana");

  auto wrong = MakeSink({{"SINK_MONGO_AUTH_ENABLE", "true"},
                         {"SINK_MONGO_AUTH_USERNAME", "ana"},
                         {"SINK_MONGO_AUTH_PASSWORD", password + "x"},
                         {"SINK_MONGO_AUTH_DB", "users"}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(wrong.status().message(), HasSubstr("Authentication failed"));
}

TEST_F(MongoSinkTest, ConfigErrorsNameTheVariable) {
  struct Case {
    std::map<std::string, std::string> vars;
    bool json;
    std::string want;
  } cases[] = {
      {{{"SINK_MONGO_CONNECTION_URLS", "localhost"}}, true, "SINK_MONGO_CONNECTION_URLS"},
      {{{"SINK_MONGO_CONNECTION_URLS", "u:p@h:1"}}, true, "SINK_MONGO_CONNECTION_URLS"},
      {{{"SINK_MONGO_MODE_UPDATE_ONLY_ENABLE", "true"}}, true, "SINK_MONGO_PRIMARY_KEY"},
      {{{"SINK_MONGO_INPUT_MESSAGE_TYPE", "PROTOBUF"}}, true, "contradicts INPUT_SCHEMA_DATA_TYPE=json"},
      {{{"SINK_MONGO_INPUT_MESSAGE_TYPE", "JSON"}}, false, "contradicts"},
      {{{"SINK_MONGO_INPUT_MESSAGE_TYPE", "AVRO"}}, true, "SINK_MONGO_INPUT_MESSAGE_TYPE"},
      {{{"SINK_MONGO_RETRY_STATUS_CODE_BLACKLIST", "11000,x"}}, true, "SINK_MONGO_RETRY_STATUS_CODE_BLACKLIST"},
      {{{"SINK_MONGO_AUTH_ENABLE", "true"}}, true, "SINK_MONGO_AUTH_USERNAME"},
      {{{"SINK_MONGO_CONNECT_TIMEOUT_MS", "0"}}, true, "SINK_MONGO_CONNECT_TIMEOUT_MS"},
  };
  for (const Case& c : cases) {
    auto sink = MakeSink(c.vars, c.json);
    ASSERT_FALSE(sink.ok()) << c.want;
    EXPECT_THAT(sink.status().message(), HasSubstr(c.want));
  }
  env_ = Env(std::map<std::string, std::string>{{"SINK_MONGO_CONNECTION_URLS", "h:1"}});
  SinkContext ctx{&env_, &metrics_, nullptr};
  EXPECT_THAT(MongoSinkConfig::FromEnv(env_, ctx).status().message(), HasSubstr("SINK_MONGO_DB_NAME"));
  env_ = Env(std::map<std::string, std::string>{{"SINK_MONGO_CONNECTION_URLS", "h:1"}, {"SINK_MONGO_DB_NAME", "d"},
              {"SINK_MONGO_COLLECTION_NAME", "c"}});
  auto defaults = MongoSinkConfig::FromEnv(env_, ctx);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->retry_blacklist, std::set<int32_t>{11000});
  EXPECT_EQ(defaults->connect_timeout_ms, 30000);
  EXPECT_FALSE(defaults->protobuf);
}

TEST_F(MongoSinkTest, AnUnreachableServerFailsCreate) {
  auto sink = MakeSink({{"SINK_MONGO_CONNECTION_URLS", "127.0.0.1:1"}});
  ASSERT_FALSE(sink.ok());
  EXPECT_EQ(sink.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace sluice::sink
