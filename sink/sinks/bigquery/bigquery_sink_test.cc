// The BigQuery sink against integration/gcp_fake (one fake for the whole
// binary, reset per test): table creation and schema updates, rows,
// per-row insertErrors, insertId de-duplication and an outage.
#include "sink/sinks/bigquery/bigquery_sink.h"

#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "gtest/gtest.h"
#include "integration/gcp_fake/gcp_fake_process.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/json_message.h"

namespace sluice::sink {
namespace {

using ::sluice::integration::GcpFake;
using ::sluice::sink::testing::FindGenerated;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

Message Proto(int64_t offset, const std::string& order, int64_t amount) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(amount);
  pb->mutable_address()->set_city("Pune");
  pb->mutable_event_timestamp()->set_seconds(1714557600 + offset);
  Message m;
  m.topic = "orders";
  m.offset = offset;
  m.timestamp_ms = 1714557600000;
  m.decoded = pb;
  return m;
}

Message Json(int64_t offset, const std::string& text) {
  return ::sluice::sink::testing::JsonMessage(offset, text, "rides");
}

class BigQuerySinkTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto fake = GcpFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    fake_ = fake->release();
  }
  static void TearDownTestSuite() { delete fake_; }
  void SetUp() override {
    fake_->Reset();
    key_path_ = absl::StrCat(::testing::TempDir(), "/bq-key.json");
    std::ofstream(key_path_) << fake_->NewKey("proj").dump();
  }
  absl::StatusOr<std::unique_ptr<BigQuerySink>> MakeSink(std::map<std::string, std::string> vars, bool json) {
    vars.emplace("SINK_BIGQUERY_API_BASE_URL", fake_->base_url());
    vars["SINK_BIGQUERY_GOOGLE_CLOUD_PROJECT_ID"] = "proj";
    vars["SINK_BIGQUERY_DATASET_NAME"] = "stream";
    vars["SINK_BIGQUERY_TABLE_NAME"] = "orders";
    vars["SINK_BIGQUERY_CREDENTIAL_PATH"] = key_path_;
    if (!json) vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
    env_ = Env(vars);
    SinkContext ctx{&env_, &metrics_, nullptr};
    if (!json) ctx.find_message = &FindGenerated;
    auto config = BigQuerySinkConfig::FromEnv(env_, ctx);
    if (!config.ok()) return config.status();
    return BigQuerySink::Create(*std::move(config), &metrics_);
  }
  nlohmann::json Stored(const std::string& table = "orders") {
    return fake_->Control("GET", "/_fake/bq/rows/proj/stream/" + table);
  }
  static std::vector<std::string> Names(const nlohmann::json& fields) {
    std::vector<std::string> out;
    for (const auto& f : fields) out.push_back(f["name"]);
    return out;
  }

  static GcpFake* fake_;
  std::string key_path_;
  Env env_;
  NoopMetrics metrics_;
};

GcpFake* BigQuerySinkTest::fake_ = nullptr;

TEST_F(BigQuerySinkTest, CreatesDatasetAndPartitionedTableFromTheProtoAndInsertsRows) {
  auto sink = MakeSink({{"SINK_BIGQUERY_TABLE_PARTITIONING_ENABLE", "true"},
                        {"SINK_BIGQUERY_TABLE_PARTITION_KEY", "event_timestamp"},
                        {"SINK_BIGQUERY_TABLE_CLUSTERING_ENABLE", "true"},
                        {"SINK_BIGQUERY_TABLE_CLUSTERING_KEYS", "order_number"},
                        {"SINK_BIGQUERY_TABLE_LABELS", "team=rides,env=test"},
                        {"SINK_BIGQUERY_DATASET_LABELS", "owner=data"},
                        {"SINK_BIGQUERY_DATASET_LOCATION", "EU"}},
                       false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Proto(0, "A", 10), Proto(1, "B", 20)}).empty());
  nlohmann::json stored = Stored();
  ASSERT_EQ(stored["rows"].size(), 2u) << stored.dump();
  EXPECT_EQ(stored["rows"][0]["order_number"], "A");
  EXPECT_EQ(stored["rows"][0]["amount"], "10");
  EXPECT_EQ(stored["rows"][0]["address"]["city"], "Pune");
  EXPECT_EQ(stored["rows"][1]["event_timestamp"], 1714557601000000);
  EXPECT_EQ(stored["rows"][1]["message_offset"], "1");  // metadata columns by default
  EXPECT_EQ(stored["rows"][1]["message_topic"], "orders");
  nlohmann::json state = fake_->State()["bigquery"]["proj"]["datasets"]["stream"];
  EXPECT_EQ(state["location"], "EU");
  EXPECT_EQ(state["labels"]["owner"], "data");
  nlohmann::json table = state["tables"]["orders"];
  EXPECT_EQ(table["timePartitioning"]["field"], "event_timestamp");
  EXPECT_EQ(table["clustering"]["fields"][0], "order_number");
  EXPECT_EQ(table["labels"]["team"], "rides");
  EXPECT_THAT(Names(table["schema"]), ::testing::IsSupersetOf({"order_number", "past_addresses", "counts",
                                                                "message_offset", "load_time"}));
}

TEST_F(BigQuerySinkTest, AnExistingTableGainsOnlyTheMissingColumnsAndAMetadataNamespace) {
  fake_->Seed(nlohmann::json::parse(R"({"bigquery": {"proj": {"datasets": {"stream": {"location": "asia-southeast1", "tables": {"orders": {
      "schema": [{"name": "order_number", "type": "STRING", "mode": "NULLABLE"},
                 {"name": "note", "type": "STRING", "mode": "NULLABLE"}]}}}}}}})"));
  auto sink = MakeSink({{"SINK_BIGQUERY_METADATA_NAMESPACE", "kafka"}}, false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Proto(5, "A", 1)}).empty());
  nlohmann::json stored = Stored();
  std::vector<std::string> names = Names(stored["schema"]);
  EXPECT_EQ(names[0], "order_number");
  EXPECT_EQ(names[1], "note");  // kept
  EXPECT_THAT(names, ::testing::Contains("kafka"));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains("message_offset")));
  EXPECT_EQ(stored["rows"][0]["kafka"]["message_offset"], "5");
}

// Two versions of one message type in two pools, as a schema registry
// refresh serves them.
class Versions {
 public:
  const google::protobuf::Descriptor* Add(bool with_tip) {
    google::protobuf::FileDescriptorProto file;
    file.set_name(absl::StrCat("ride_v", pools_.size(), ".proto"));
    file.set_package("v");
    file.set_syntax("proto3");
    auto* msg = file.add_message_type();
    msg->set_name("Ride");
    auto add = [&](const char* name, int number, google::protobuf::FieldDescriptorProto::Type type) {
      auto* f = msg->add_field();
      f->set_name(name);
      f->set_number(number);
      f->set_type(type);
      f->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
    };
    add("id", 1, google::protobuf::FieldDescriptorProto::TYPE_STRING);
    if (with_tip) add("tip", 2, google::protobuf::FieldDescriptorProto::TYPE_INT64);
    pools_.push_back(std::make_unique<google::protobuf::DescriptorPool>());
    return pools_.back()->BuildFile(file)->message_type(0);
  }
  Message Make(const google::protobuf::Descriptor* d, int64_t offset, int64_t tip) {
    std::shared_ptr<google::protobuf::Message> m(factory_.GetPrototype(d)->New());
    m->GetReflection()->SetString(m.get(), d->FindFieldByName("id"), "r" + std::to_string(offset));
    if (tip) m->GetReflection()->SetInt64(m.get(), d->FindFieldByName("tip"), tip);
    Message out;
    out.offset = offset;
    out.decoded = m;
    return out;
  }

 private:
  std::vector<std::unique_ptr<google::protobuf::DescriptorPool>> pools_;
  google::protobuf::DynamicMessageFactory factory_;
};

TEST_F(BigQuerySinkTest, ANewerDescriptorFromTheRegistryAddsItsColumns) {
  Versions versions;
  const auto* v1 = versions.Add(false);
  const auto* v2 = versions.Add(true);
  auto sink = MakeSink({{"SINK_BIGQUERY_ADD_METADATA_ENABLED", "false"}}, true);  // schema from messages only
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({versions.Make(v1, 0, 0)}).empty());
  EXPECT_EQ(Names(Stored()["schema"]), (std::vector<std::string>{"id"}));
  EXPECT_TRUE((*sink)->Push({versions.Make(v2, 1, 7)}).empty());
  nlohmann::json stored = Stored();
  EXPECT_EQ(Names(stored["schema"]), (std::vector<std::string>{"id", "tip"}));
  EXPECT_EQ(stored["rows"][1]["tip"], "7");
}

TEST_F(BigQuerySinkTest, JsonMembersBecomeStringColumnsAndOnlyTheRefusedRowFails) {
  auto sink = MakeSink({{"SINK_BIGQUERY_ADD_METADATA_ENABLED", "false"},
                        {"SINK_BIGQUERY_DEFAULT_COLUMNS", "amount=integer"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  fake_->Control("POST", "/_fake/bq/row_errors", {{"field", "order"}, {"equals", "B"}, {"message", "refused"}});
  auto failed = (*sink)->Push({Json(0, R"({"order":"A","amount":1,"driver":{"city":"Goa"}})"),
                               Json(1, R"({"order":"B","amount":2})"), Json(2, R"({"order":"C","amount":"lots"})"),
                               Json(3, R"({"order":"D"})")});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSink4xxError);
  EXPECT_THAT(failed[0].error, HasSubstr("refused"));
  EXPECT_EQ(failed[1].message.offset, 2);  // not an integer
  EXPECT_THAT(failed[1].error, HasSubstr("Cannot convert value to integer"));
  nlohmann::json stored = Stored();
  ASSERT_EQ(stored["rows"].size(), 2u) << stored.dump();  // the stopped rows were sent again
  EXPECT_EQ(stored["rows"][0]["driver"], R"({"city":"Goa"})");
  EXPECT_EQ(stored["rows"][1]["order"], "D");
  EXPECT_EQ(Names(stored["schema"]), (std::vector<std::string>{"amount", "driver", "order"}));
}

TEST_F(BigQuerySinkTest, AMemberThatCannotBeAColumnFailsOnlyItsRowAndEventTimestampIsAdded) {
  auto sink = MakeSink({{"SINK_BIGQUERY_ADD_METADATA_ENABLED", "false"},
                        {"SINK_BIGQUERY_ADD_EVENT_TIMESTAMP_ENABLE", "true"},
                        {"SINK_BIGQUERY_DEFAULT_DATATYPE_STRING_ENABLE", "false"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({Json(0, R"({"order":"A","n":1,"f":1.5,"ok":true})"),
                               Json(1, R"({"order":"B","bad-name":1})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSink4xxError);
  EXPECT_THAT(failed[0].error, HasSubstr("no such field: bad-name"));
  nlohmann::json stored = Stored();
  ASSERT_EQ(stored["rows"].size(), 1u);
  EXPECT_TRUE(stored["rows"][0]["event_timestamp"].is_number());
  std::map<std::string, std::string> types;
  for (const auto& f : stored["schema"]) types[f["name"]] = f["type"];
  EXPECT_EQ(types, (std::map<std::string, std::string>{
                       {"event_timestamp", "TIMESTAMP"}, {"f", "FLOAT"}, {"n", "INTEGER"}, {"ok", "BOOLEAN"},
                       {"order", "STRING"}}));
}

TEST_F(BigQuerySinkTest, InsertIdsFromKafkaCoordinatesDeduplicateARetriedBatch) {
  auto sink = MakeSink({}, false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Proto(0, "A", 1), Proto(1, "B", 2)}).empty());
  EXPECT_TRUE((*sink)->Push({Proto(1, "B", 2)}).empty());
  EXPECT_EQ(Stored()["rows"].size(), 2u);
  auto no_ids = MakeSink({{"SINK_BIGQUERY_ROW_INSERT_ID_ENABLE", "false"}}, false);
  ASSERT_TRUE(no_ids.ok());
  EXPECT_TRUE((*no_ids)->Push({Proto(1, "B", 2)}).empty());
  EXPECT_EQ(Stored()["rows"].size(), 3u);
}

TEST_F(BigQuerySinkTest, AnOutageIsRetryableAndThenDelivers) {
  auto sink = MakeSink({}, false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  fake_->Control("POST", "/_fake/bq/outage", {{"enabled", true}});
  auto failed = (*sink)->Push({Proto(0, "A", 1)});  // before the table exists
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSinkRetryableError);
  fake_->Control("POST", "/_fake/bq/outage", {{"enabled", false}});
  EXPECT_TRUE((*sink)->Push({Proto(0, "A", 1)}).empty());
  fake_->Control("POST", "/_fake/bq/outage", {{"enabled", true}});
  failed = (*sink)->Push({Proto(1, "B", 1)});  // during insertAll
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSinkRetryableError);
  EXPECT_THAT(failed[0].error, HasSubstr("503"));
  fake_->Control("POST", "/_fake/bq/outage", {{"enabled", false}});
  EXPECT_TRUE((*sink)->Push({Proto(1, "B", 1)}).empty());
  EXPECT_EQ(Stored()["rows"].size(), 2u);
}

TEST_F(BigQuerySinkTest, ADatasetInAnotherLocationIsRefusedAndLabelsAreSet) {
  fake_->Seed(nlohmann::json::parse(R"({"bigquery": {"proj": {"datasets": {"stream": {"location": "US"}}}}})"));
  auto sink = MakeSink({{"SINK_BIGQUERY_DATASET_LABELS", "owner=data"}}, false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({Proto(0, "A", 1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSink4xxError);
  EXPECT_THAT(failed[0].error, HasSubstr("SINK_BIGQUERY_DATASET_LOCATION"));
  auto us = MakeSink({{"SINK_BIGQUERY_DATASET_LABELS", "owner=data"}, {"SINK_BIGQUERY_DATASET_LOCATION", "us"}}, false);
  ASSERT_TRUE(us.ok()) << us.status();
  EXPECT_TRUE((*us)->Push({Proto(0, "A", 1)}).empty());
  EXPECT_EQ(fake_->State()["bigquery"]["proj"]["datasets"]["stream"]["labels"]["owner"], "data");
}

TEST_F(BigQuerySinkTest, ErrorsNameTheVariable) {
  for (const char* missing : {"SINK_BIGQUERY_GOOGLE_CLOUD_PROJECT_ID", "SINK_BIGQUERY_TABLE_NAME",
                              "SINK_BIGQUERY_DATASET_NAME", "SINK_BIGQUERY_CREDENTIAL_PATH"}) {
    std::map<std::string, std::string> vars = {{"SINK_BIGQUERY_GOOGLE_CLOUD_PROJECT_ID", "p"},
                                               {"SINK_BIGQUERY_TABLE_NAME", "t"},
                                               {"SINK_BIGQUERY_DATASET_NAME", "d"},
                                               {"SINK_BIGQUERY_CREDENTIAL_PATH", "/k"}};
    vars.erase(missing);
    Env env(vars);
    auto c = BigQuerySinkConfig::FromEnv(env, SinkContext{&env, &metrics_, nullptr});
    ASSERT_FALSE(c.ok()) << missing;
    EXPECT_THAT(c.status().message(), HasSubstr(missing));
  }
  EXPECT_THAT(MakeSink({{"SINK_BIGQUERY_API_BASE_URL", "x"}}, true).status().message(), HasSubstr("http"));
  EXPECT_THAT(MakeSink({{"SINK_BIGQUERY_TABLE_PARTITIONING_ENABLE", "true"}}, true).status().message(),
              HasSubstr("SINK_BIGQUERY_TABLE_PARTITION_KEY"));
  EXPECT_THAT(MakeSink({{"SINK_BIGQUERY_TABLE_LABELS", "novalue"}}, true).status().message(),
              HasSubstr("SINK_BIGQUERY_TABLE_LABELS"));
  key_path_ = "/nonexistent/key.json";
  EXPECT_THAT(MakeSink({}, true).status().message(), HasSubstr("SINK_BIGQUERY_CREDENTIAL_PATH"));
}

}  // namespace
}  // namespace sluice::sink
