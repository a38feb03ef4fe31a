// SINK_TYPE=HTTPV2 (depot's http sink) and FILTER_ENGINE=TIMESTAMP end to end
// (issue 29 item 5): the real sluice-sink reads sample records from the dev
// broker and delivers them to real HTTP servers started here, in BATCH mode
// with an OAuth2 token from a real token endpoint, and in SINGLE mode with
// templates through a server that fails first; the timestamp filter keeps
// only recent records; the Firehose types sluice-sink lacks are refused at
// start with one message.
#include <signal.h>

#include <atomic>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "integration/process.h"
#include "integration/sink_harness.h"
#include "nlohmann/json.hpp"
#include "sink/sample/sample_gen.h"
#include "sink/sinks/testing/http_test_server.h"

namespace sluice::integration {
namespace {

using sink::testing::HttpTestServer;

constexpr int kRecords = 40;

class SinkHttpv2 : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(absl::StrCat("sink_httpv2_",
                                ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    broker_ = DevBroker::Start({"rides:2"}, dir_);
  }

  // Runs the sink until `group` committed `want` records, then SIGTERM.
  std::string Run(const std::string& group, const std::map<std::string, std::string>& extra,
                  int64_t want) {
    auto env = SinkEnv(broker_.bootstrap, "rides", group, SampleDescriptorUrl());
    for (const auto& [k, v] : extra) env[k] = v;
    auto sink = StartSink(env, dir_ + "/" + group);
    bool done = WaitFor([&] { return CommittedSum(broker_.bootstrap, group, "rides", 2) == want; },
                        absl::Seconds(40));
    EXPECT_TRUE(done) << group << ": " << sink->Stderr();
    sink->Signal(SIGTERM);
    EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << group << ": " << sink->Stderr();
    return sink->Output() + sink->Stderr();
  }

  std::string dir_;
  DevBroker broker_;
};

TEST_F(SinkHttpv2, BatchModeWithOAuth2DeliversEveryRecord) {
  std::atomic<int> tokens{0};
  auto token_server = HttpTestServer::StartWithResponses([&](const sink::testing::HttpRequest& r) {
    HttpTestServer::Response resp;
    if (r.method != "POST" || r.body.find("grant_type=client_credentials") == std::string::npos ||
        r.body.find("client_id=fh") == std::string::npos ||
        r.body.find("client_secret=pw") == std::string::npos) {
      resp.status = 401;
      resp.body = R"({"error":"invalid_client"})";
      return resp;
    }
    resp.content_type = "application/json";
    resp.body = absl::StrCat(R"({"access_token":"tok-)", ++tokens, R"(","expires_in":3600})");
    return resp;
  });
  ASSERT_TRUE(token_server.ok()) << token_server.status();
  auto target = HttpTestServer::Start([](const sink::testing::HttpRequest& r) {
    return r.Header("authorization").rfind("Bearer tok-", 0) == 0 ? 200 : 401;
  });
  ASSERT_TRUE(target.ok()) << target.status();
  ProduceSamples(broker_.bootstrap, "rides", 0, kRecords);
  Run("batch",
      {{"SINK_TYPE", "HTTPV2"},
       {"SINK_HTTPV2_SERVICE_URL", (*target)->url() + "/bulk"},
       {"SINK_HTTPV2_REQUEST_MODE", "BATCH"},
       {"SINK_HTTPV2_REQUEST_METHOD", "post"},
       {"SINK_HTTPV2_QUERY_TEMPLATE", R"({"source":"firehose"})"},
       {"SINK_HTTPV2_REQUEST_BODY_MODE", "TEMPLATIZED_JSON"},
       {"SINK_HTTPV2_JSON_BODY_TEMPLATE", R"({"order":"%s,order_number","driver":"%s,driver_id"})"},
       {"SINK_HTTPV2_OAUTH2_ENABLE", "true"},
       {"SINK_HTTPV2_OAUTH2_ACCESS_TOKEN_URL", (*token_server)->url() + "/oauth2/token"},
       {"SINK_HTTPV2_OAUTH2_CLIENT_NAME", "fh"},
       {"SINK_HTTPV2_OAUTH2_CLIENT_SECRET", "pw"}},
      kRecords);
  std::set<std::string> orders;
  auto requests = (*target)->requests();
  ASSERT_FALSE(requests.empty());
  for (const auto& r : requests) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.target, "/bulk?source=firehose");
    EXPECT_EQ(r.Header("authorization").rfind("Bearer tok-", 0), 0u);
    auto body = nlohmann::json::parse(r.body);
    ASSERT_TRUE(body.is_array()) << r.body;
    for (const auto& item : body) orders.insert(item["order"].get<std::string>());
  }
  EXPECT_EQ(orders.size(), static_cast<size_t>(kRecords));
  EXPECT_LT(requests.size(), static_cast<size_t>(kRecords)) << "BATCH sends batches, not records";
  EXPECT_EQ(tokens.load(), 1) << "the token is cached (one process, one worker)";
}

TEST_F(SinkHttpv2, SingleModeRetriesDepotRetryableStatusesThenDelivers) {
  std::atomic<int> calls{0};
  auto target = HttpTestServer::Start([&](const sink::testing::HttpRequest&) {
    return ++calls <= 3 ? 503 : 201;
  });
  ASSERT_TRUE(target.ok()) << target.status();
  ProduceSamples(broker_.bootstrap, "rides", 0, 10);
  Run("single",
      {{"SINK_TYPE", "httpv2"},
       {"SINK_HTTPV2_SERVICE_URL", (*target)->url() + "/orders/%s,order_number"},
       {"SINK_HTTPV2_HEADERS_TEMPLATE", R"({"X-Driver":"%s,driver_id"})"},
       {"SINK_HTTPV2_REQUEST_BODY_MODE", "MESSAGE"},
       {"RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS", "10"}},
      10);
  std::set<std::string> delivered;
  for (const auto& r : (*target)->requests()) {
    EXPECT_EQ(r.method, "PUT");
    EXPECT_EQ(r.Header("x-driver").rfind("driver-", 0), 0u);
    auto body = nlohmann::json::parse(r.body);
    EXPECT_EQ(r.target, "/orders/" + body["order_number"].get<std::string>());
    delivered.insert(r.target);
  }
  EXPECT_EQ(delivered.size(), 10u);
  EXPECT_GT(calls.load(), 10) << "the 503s were retried";
}

TEST_F(SinkHttpv2, TimestampFilterKeepsRecentRecords) {
  int64_t now_ms = absl::ToUnixMillis(absl::Now());
  std::vector<std::string> p0, p1;
  for (int i = 0; i < 6; ++i) {
    // Even records are recent; odd ones are 8 days old (past the 7-day default window).
    int64_t t = i % 2 == 0 ? now_ms : now_ms - 8 * 86400 * 1000LL;
    (i < 3 ? p0 : p1).push_back(sample::SampleBytes(i, t));
  }
  ProduceRaw(broker_.bootstrap, "rides", 0, p0);
  ProduceRaw(broker_.bootstrap, "rides", 1, p1);
  std::string out = Run("ts", {{"FILTER_ENGINE", "TIMESTAMP"},
                               {"FILTER_DATA_SOURCE", "MESSAGE"},
                               {"FILTER_SCHEMA_PROTO_CLASS", "sluice.sample.SampleLogMessage"}},
                        6);
  for (int i = 0; i < 6; ++i) {
    bool seen = out.find(absl::StrCat("ORD-", i, "\"")) != std::string::npos;
    EXPECT_EQ(seen, i % 2 == 0) << "record " << i << ": " << out;
  }
}

TEST_F(SinkHttpv2, MissingFirehoseTypesAreRefusedWithOneMessage) {
  for (const auto& extra : std::vector<std::map<std::string, std::string>>{
           {{"SINK_TYPE", "BLOB"}},
           {{"SINK_TYPE", "BIGTABLE"}},
           {{"SINK_TYPE", "MAXCOMPUTE"}},
           {{"DLQ_SINK_ENABLE", "true"}, {"DLQ_WRITER_TYPE", "BLOB_STORAGE"}, {"DLQ_BLOB_STORAGE_TYPE", "OSS"}},
           {{"DLQ_SINK_ENABLE", "true"}, {"DLQ_WRITER_TYPE", "BLOB_STORAGE"}, {"DLQ_BLOB_STORAGE_TYPE", "COS"}}}) {
    auto env = SinkEnv(broker_.bootstrap, "rides", "refused", SampleDescriptorUrl());
    for (const auto& [k, v] : extra) env[k] = v;
    auto sink = StartSink(env, dir_ + "/refused-" + extra.begin()->second + extra.rbegin()->second);
    EXPECT_EQ(sink->Wait(absl::Seconds(20)), 2);
    std::string err = sink->Stderr();
    EXPECT_NE(err.find("is not supported by sluice-sink"), std::string::npos) << err;
    EXPECT_NE(err.find("supported SINK_TYPE: bigquery, clickhouse, elasticsearch, grpc, http, httpv2"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("DLQ_BLOB_STORAGE_TYPE: GCS, S3"), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace sluice::integration
