// sluice-sink with SINK_TYPE=bigquery end to end against integration/gcp_fake
// (one fake for this binary, proven with @google-cloud/bigquery): protobuf
// samples and JSON records become rows, read back with tabledata.list; a row
// BigQuery refuses is the only one in the Kafka DLQ; an outage mid-run loses
// nothing and holds the offsets; a newer descriptor from the schema registry
// adds its column.
#include <signal.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/google_auth.h"
#include "integration/gcp_fake/gcp_fake_process.h"
#include "integration/sink_harness.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {
namespace {

class SinkBigQuery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto fake = GcpFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    fake_ = fake->release();
  }
  static void TearDownTestSuite() { delete fake_; }

  // The sink's variables for table `table` of dataset "stream", with a key
  // written to `dir`.
  std::map<std::string, std::string> BigQueryEnv(const std::string& dir, const std::string& table) {
    nlohmann::json key = fake_->NewKey("proj");
    auto parsed = ParseServiceAccountKey(key.dump());
    EXPECT_TRUE(parsed.ok());
    key_ = *parsed;
    std::ofstream(dir + "/key.json") << key.dump();
    table_ = table;
    return {{"SINK_TYPE", "bigquery"},
            {"SINK_BIGQUERY_API_BASE_URL", fake_->base_url()},
            {"SINK_BIGQUERY_GOOGLE_CLOUD_PROJECT_ID", "proj"},
            {"SINK_BIGQUERY_DATASET_NAME", "stream"},
            {"SINK_BIGQUERY_TABLE_NAME", table},
            {"SINK_BIGQUERY_CREDENTIAL_PATH", dir + "/key.json"}};
  }

  // tabledata.list of the table, as the official API answers it: rows of
  // {"f": [{"v": ...}]} in schema order, with the schema from tables.get.
  std::vector<std::map<std::string, nlohmann::json>> ListRows() {
    HttpRequest req;
    req.method = "GET";
    std::string path = absl::StrCat(fake_->base_url(), "/bigquery/v2/projects/proj/datasets/stream/tables/", table_);
    req.url = path;
    auto table = auth_.Do(key_, kCloudPlatformScope, req);
    req.url = path + "/data?maxResults=100000";
    auto data = auth_.Do(key_, kCloudPlatformScope, req);
    if (!table.ok() || !data.ok() || table->status != 200 || data->status != 200) return {};
    nlohmann::json fields = nlohmann::json::parse(table->body)["schema"]["fields"];
    std::vector<std::map<std::string, nlohmann::json>> out;
    for (const auto& row : nlohmann::json::parse(data->body).value("rows", nlohmann::json::array())) {
      std::map<std::string, nlohmann::json> r;
      for (size_t i = 0; i < fields.size(); ++i) r[fields[i]["name"]] = row["f"][i]["v"];
      out.push_back(std::move(r));
    }
    return out;
  }

  static GcpFake* fake_;
  std::unique_ptr<HttpClient> http_ = NewCurlHttpClient();
  GoogleAuth auth_{http_.get()};
  ServiceAccountKey key_;
  std::string table_;
};

GcpFake* SinkBigQuery::fake_ = nullptr;

// Replaces `to` atomically with a copy of `from`.
void Copy(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to + ".tmp", std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
  out.close();
  std::rename((to + ".tmp").c_str(), to.c_str());
}

TEST_F(SinkBigQuery, ProtobufSamplesBecomeRowsOfATableCreatedFromTheDescriptor) {
  std::string dir = TempDir("sink_bigquery_proto");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  auto env = SinkEnv(broker.bootstrap, "orders", "bq-group", SampleDescriptorUrl());
  for (const auto& [k, v] : BigQueryEnv(dir, "orders")) env[k] = v;
  env["SINK_BIGQUERY_METADATA_NAMESPACE"] = "kafka";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "bq-group", "orders", 2) == 20; },
                      absl::Seconds(30)))
      << sink->Stderr();
  auto rows = ListRows();
  ASSERT_EQ(rows.size(), 20u);
  std::map<std::string, std::map<std::string, nlohmann::json>> by_order;
  for (auto& r : rows) by_order[r["order_number"].get<std::string>()] = r;
  auto& five = by_order["ORD-5"];
  EXPECT_EQ(five["driver_id"], "driver-5");
  EXPECT_EQ(five["amount_paid_cents"], "105");
  EXPECT_EQ(five["tags"], nlohmann::json::parse(R"([{"v":"odd"},{"v":"sample"}])"));
  EXPECT_TRUE(five["event_timestamp"].is_string());
  // The namespace record holds the Kafka coordinates: {f: [offset, topic, ...]}.
  EXPECT_EQ(five["kafka"]["f"][1]["v"], "orders");
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST_F(SinkBigQuery, JsonRecordsAndOnlyTheRefusedRowGoesToTheDlq) {
  const std::vector<std::string> records = {R"({"order":"A","amount":10})", R"({"order":"B","amount":"ten"})",
                                            R"({"order":"C","amount":30})", R"({"order":"D","amount":40})"};
  std::string dir = TempDir("sink_bigquery_json");
  DevBroker broker = DevBroker::Start({"rides:1", "rides-dlq:1"}, dir);
  ProduceRaw(broker.bootstrap, "rides", 0, records);
  auto env = JsonSinkEnv(broker.bootstrap, "rides", "bq-json");
  for (const auto& [k, v] : BigQueryEnv(dir, "rides")) env[k] = v;
  env["SINK_BIGQUERY_DEFAULT_COLUMNS"] = "amount=integer";  // B's "ten" is not an integer
  env["DLQ_SINK_ENABLE"] = "true";
  env["DLQ_WRITER_TYPE"] = "KAFKA";
  env["DLQ_KAFKA_BROKERS"] = broker.bootstrap;
  env["DLQ_KAFKA_TOPIC"] = "rides-dlq";
  env["ERROR_TYPES_FOR_DLQ"] = "SINK_4XX_ERROR,INVALID_MESSAGE_ERROR";
  // D is refused by an injected insertError too (BigQuery's own per-row error).
  fake_->Control("POST", "/_fake/bq/row_errors",
                 {{"field", "order"}, {"equals", "D"}, {"message", "injected for D"}});
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "bq-json", "rides", 1)[0] == 4; },
                      absl::Seconds(30)))
      << sink->Stderr();
  auto rows = ListRows();
  ASSERT_EQ(rows.size(), 2u) << sink->Stderr();
  EXPECT_EQ(rows[0]["order"], "A");
  EXPECT_EQ(rows[0]["amount"], "10");
  EXPECT_EQ(rows[1]["order"], "C");
  std::vector<ConsumedRecord> dead = ReadAll(broker.bootstrap, "rides-dlq", 2, absl::Seconds(10));
  ASSERT_EQ(dead.size(), 2u) << sink->Stderr();
  EXPECT_EQ(dead[0].value, records[1]);
  EXPECT_EQ(dead[1].value, records[3]);
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST_F(SinkBigQuery, AnOutageMidRunLosesNothingAndHoldsTheOffsets) {
  std::string dir = TempDir("sink_bigquery_outage");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto env = SinkEnv(broker.bootstrap, "orders", "bq-outage", SampleDescriptorUrl());
  for (const auto& [k, v] : BigQueryEnv(dir, "outage")) env[k] = v;
  env["ERROR_TYPES_FOR_RETRY"] = "SINK_RETRYABLE_ERROR,SINK_5XX_ERROR";
  env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "100";
  env["RETRY_EXPONENTIAL_BACKOFF_MAX_MS"] = "500";
  auto sink = StartSink(env, dir + "/sink");
  auto committed = [&] { return Committed(broker.bootstrap, "bq-outage", "orders", 1)[0]; };
  ProduceSamples(broker.bootstrap, "orders", 0, 10);
  ASSERT_TRUE(WaitFor([&] { return committed() == 10; }, absl::Seconds(30))) << sink->Stderr();

  fake_->Control("POST", "/_fake/bq/outage", {{"enabled", true}, {"status", 503}});
  ProduceSamples(broker.bootstrap, "orders", 10, 10);
  ASSERT_TRUE(WaitFor([&] { return sink->Stderr().find("SINK_RETRYABLE_ERROR") != std::string::npos; },
                      absl::Seconds(20)))
      << sink->Stderr();
  // Several retries fail while it lasts; the offsets stay where they were.
  const int64_t posts = fake_->Stats()["requests"].value("POST /bigquery/v2/projects/proj/datasets/stream/tables/outage/insertAll", 0);
  ASSERT_TRUE(WaitFor([&] {
    return fake_->Stats()["requests"].value("POST /bigquery/v2/projects/proj/datasets/stream/tables/outage/insertAll", 0) >= posts + 2;
  }, absl::Seconds(10)));
  EXPECT_EQ(committed(), 10) << "nothing is committed while BigQuery is down";

  fake_->Control("POST", "/_fake/bq/outage", {{"enabled", false}});
  ASSERT_TRUE(WaitFor([&] { return committed() == 20; }, absl::Seconds(30))) << sink->Stderr();
  auto rows = ListRows();
  EXPECT_EQ(rows.size(), 20u);  // every record once (insertIds de-duplicate resends)
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST_F(SinkBigQuery, ANewerDescriptorFromTheSchemaRegistryAddsItsColumn) {
  std::string dir = TempDir("sink_bigquery_schema");
  std::string www = dir + "/www";
  mkdir(www.c_str(), 0755);
  Copy("sink/sample/sample_cc.desc", www + "/sample.desc");
  int port = FreePort();
  auto http = StartChild({"/usr/bin/python3", "-m", "http.server", std::to_string(port), "--bind", "127.0.0.1",
                          "--directory", www},
                         {}, dir + "/http");
  std::string url = absl::StrCat("http://127.0.0.1:", port, "/sample.desc");
  ASSERT_TRUE(WaitFor([&] { return system(("curl -sf -o /dev/null " + url).c_str()) == 0; }, absl::Seconds(10)));
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto env = SinkEnv(broker.bootstrap, "orders", "bq-schema", url);
  for (const auto& [k, v] : BigQueryEnv(dir, "evolving")) env[k] = v;
  env["SCHEMA_REGISTRY_STENCIL_CACHE_AUTO_REFRESH"] = "true";
  env["SCHEMA_REGISTRY_STENCIL_CACHE_TTL_MS"] = "300";
  auto sink = StartSink(env, dir + "/sink");
  ProduceSamples(broker.bootstrap, "orders", 0, 5, /*v2=*/true);
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "bq-schema", "orders", 1)[0] == 5; },
                      absl::Seconds(30)))
      << sink->Stderr();
  auto first = ListRows();
  ASSERT_EQ(first.size(), 5u);
  EXPECT_EQ(first[0].count("vehicle_type"), 0u) << "v1 has no field 10";

  Copy("sink/sample/testdata/sample_v2_cc.desc", www + "/sample.desc");
  ASSERT_TRUE(WaitFor([&] { return sink->Stderr().find("loaded a new schema") != std::string::npos; },
                      absl::Seconds(10)));
  ProduceSamples(broker.bootstrap, "orders", 100, 5, /*v2=*/true);
  ASSERT_TRUE(WaitFor([&] { return Committed(broker.bootstrap, "bq-schema", "orders", 1)[0] == 10; },
                      absl::Seconds(20)))
      << sink->Stderr();
  auto rows = ListRows();
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_TRUE(rows[0]["vehicle_type"].is_null());  // the column was added; old rows have none
  EXPECT_EQ(rows[9]["vehicle_type"], "bike");
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
  http->Signal(SIGTERM);
  http->Wait(absl::Seconds(5));
}

}  // namespace
}  // namespace sluice::integration
