#include "sink/sinks/http/http_sink.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/recording_metrics.h"
#include "sink/sinks/testing/generated_pool.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::FindGenerated;

using ::sluice::sink::testing::HttpRequest;
using ::sluice::sink::testing::HttpTestServer;
using ::sluice::sink::testing::RecordingMetrics;
using ::sluice::sink::testing::TestKey;
using ::sluice::sink::testing::TestMessage;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

}  // namespace

// The http sink's outcomes and the error type goto Firehose gives each
// (error_type_table.h). Firehose's HttpSink never sets a type on a failed
// message, so AbstractSink.processFailedMessages gives it DEFAULT_ERROR
// (firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:70 ->
// message/Message.java:33-36); "was" names sluice's mapping before.
testing::ErrorTypeTable& HttpFirehoseTypes() {
  static auto* table = new testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/common/AbstractHttpSink.java:63-64 (was SINK_5XX_ERROR)
      {"5xx in SINK_HTTP_RETRY_STATUS_CODE_RANGES", ErrorType::kDefaultError},
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/common/AbstractHttpSink.java:63-64 (was SINK_4XX_ERROR)
      {"4xx in SINK_HTTP_RETRY_STATUS_CODE_RANGES", ErrorType::kDefaultError},
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/common/AbstractHttpSink.java:63-64 (was SINK_UNKNOWN_ERROR)
      {"3xx in SINK_HTTP_RETRY_STATUS_CODE_RANGES", ErrorType::kDefaultError},
      // sluice only: Firehose drops it (AbstractHttpSink.java:65-67); see the
      // README's "Switching from Firehose"
      {"3xx outside the retry ranges", ErrorType::kDefaultError},
      // httpClient.execute throws; firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53
      // (was SINK_RETRYABLE_ERROR)
      {"connection refused", ErrorType::kDefaultError},
      // the same (a socket timeout is an IOException) (was SINK_RETRYABLE_ERROR)
      {"request timeout", ErrorType::kDefaultError},
      // the same: nothing in flight is known delivered (was SINK_RETRYABLE_ERROR)
      {"transfer engine failure", ErrorType::kDefaultError},
      // the same: Apache HttpClient throws on a non-http(s) scheme
      // (was SINK_UNKNOWN_ERROR)
      {"non-http(s) URL", ErrorType::kDefaultError},
      // the OAuth2 interceptor's token request throws an IOException;
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53 (was SINK_RETRYABLE_ERROR)
      {"OAuth2 token request fails", ErrorType::kDefaultError},
      // sluice only: one bad record fails alone (Firehose: the serializer
      // throws for the whole batch); README "Switching from Firehose"
      {"record not serializable", ErrorType::kInvalidMessageError},
  });
  return *table;
}

namespace {

Message Record(int64_t offset, const std::string& order, int64_t amount = 1) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(amount);
  pb->add_tags("t1");
  pb->mutable_address()->set_city("Pune");
  Message m;
  m.topic = "orders";
  m.partition = 0;
  m.offset = offset;
  m.value = pb->SerializeAsString();
  TestKey key;
  key.set_order_number(order);
  m.key = key.SerializeAsString();
  m.decoded = pb;
  return m;
}

class HttpSinkTest : public ::testing::Test {
 protected:
  std::unique_ptr<Sink> MakeSink(std::map<std::string, std::string> vars) {
    env_ = Env(std::move(vars));
    auto sink = CreateFromContext<HttpSink>(SinkContext{&env_, &metrics_, &FindGenerated});
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }
  Env env_;
  RecordingMetrics metrics_;
};

TEST_F(HttpSinkTest, ConstantUrlSendsOneBatchRequestWithWrappedProtoBytes) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url() + "/ingest"},
                        {"SINK_HTTP_HEADERS", "Authorization:Bearer x, X-Team:core"}});
  std::vector<Message> batch = {Record(1, "A"), Record(2, "B")};
  EXPECT_TRUE(sink->Push(batch).empty());
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "PUT");
  EXPECT_EQ(reqs[0].target, "/ingest");
  EXPECT_EQ(reqs[0].Header("authorization"), "Bearer x");
  EXPECT_EQ(reqs[0].Header("x-team"), "core");
  EXPECT_EQ(reqs[0].Header("content-type"), "application/json");
  auto body = nlohmann::json::parse(reqs[0].body);
  ASSERT_TRUE(body.is_array());
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0]["topic"], "orders");
  EXPECT_EQ(body[1]["log_message"], absl::Base64Escape(batch[1].value));
  EXPECT_EQ(body[1]["log_key"], absl::Base64Escape(*batch[1].key));
  EXPECT_EQ(metrics_.Sum("firehose_sink_http_response_code_total", {"status_code", "200"}), 1);
}

TEST_F(HttpSinkTest, JsonFormatWithTemplate) {
  auto server = HttpTestServer::Start();
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTP_REQUEST_METHOD", "post"},
                        {"SINK_HTTP_DATA_FORMAT", "json"},
                        {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
                        {"SINK_HTTP_JSON_BODY_TEMPLATE",
                         R"({"id":"$.order_number","city":"$.address.city","all":"$._all_"})"}});
  EXPECT_TRUE(sink->Push({Record(1, "A", 5), Record(2, "B")}).empty());
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  auto body = nlohmann::json::parse(reqs[0].body);
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0]["id"], "A");
  EXPECT_EQ(body[0]["city"], "Pune");
  EXPECT_EQ(body[0]["all"]["amount"], "5");  // int64 is a JSON string in proto3 JSON
  EXPECT_EQ(body[0]["all"]["paid"], false);  // defaults included, as in Firehose
  EXPECT_EQ(body[1]["id"], "B");
}

TEST_F(HttpSinkTest, JsonFormatWithoutTemplateWrapsMessageJson) {
  auto server = HttpTestServer::Start();
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTP_DATA_FORMAT", "json"},
                        {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"}});
  EXPECT_TRUE(sink->Push({Record(1, "A")}).empty());
  auto body = nlohmann::json::parse((*server)->requests().at(0).body);
  auto inner = nlohmann::json::parse(body[0]["logMessage"].get<std::string>());
  EXPECT_EQ(inner["orderNumber"], "A");
  auto key = nlohmann::json::parse(body[0]["logKey"].get<std::string>());
  EXPECT_EQ(key["orderNumber"], "A");
}

TEST_F(HttpSinkTest, StatusClassification) {
  std::atomic<int> status{500};
  auto server = HttpTestServer::Start([&](const HttpRequest&) { return status.load(); });
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTP_RETRY_STATUS_CODE_RANGES", "400-403,500-599"}});
  auto failed = sink->Push({Record(1, "A"), Record(2, "B")});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("5xx in SINK_HTTP_RETRY_STATUS_CODE_RANGES"));
  EXPECT_THAT(failed[0].error, HasSubstr("500"));

  status = 401;
  failed = sink->Push({Record(3, "C")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("4xx in SINK_HTTP_RETRY_STATUS_CODE_RANGES"));
  EXPECT_EQ(failed[0].message.offset, 3);

  // 404 is outside the retry ranges: dropped and counted, not failed.
  status = 404;
  EXPECT_TRUE(sink->Push({Record(4, "D"), Record(5, "E")}).empty());
  EXPECT_EQ(metrics_.Sum("firehose_sink_messages_drop_total"), 2);
  EXPECT_EQ(metrics_.Sum("firehose_sink_http_response_code_total", {"status_code", "404"}), 1);
  EXPECT_EQ(metrics_.Sum("firehose_sink_http_response_code_total", {"status_code", "500"}), 1);
}

TEST_F(HttpSinkTest, ParametersInHeadersOneRequestPerMessageConcurrently) {
  std::atomic<int> in_flight{0}, max_in_flight{0};
  auto server = HttpTestServer::Start([&](const HttpRequest&) {
    int now = ++in_flight;
    int prev = max_in_flight.load();
    while (now > prev && !max_in_flight.compare_exchange_weak(prev, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    --in_flight;
    return 200;
  });
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTP_MAX_CONNECTIONS", "3"},
                        {"SINK_HTTP_PARAMETER_SOURCE", "key"},
                        {"SINK_HTTP_PARAMETER_PLACEMENT", "header"},
                        {"SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestKey"},
                        {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"X-Order"})"}});
  std::vector<Message> batch;
  for (int i = 0; i < 9; ++i) batch.push_back(Record(i, "O" + std::to_string(i)));
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(sink->Push(batch).empty());
  auto elapsed = std::chrono::steady_clock::now() - start;
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 9u);
  std::set<std::string> orders;
  for (const auto& r : reqs) {
    orders.insert(r.Header("x-order"));
    auto body = nlohmann::json::parse(r.body);
    EXPECT_TRUE(body.is_array() && body.size() == 1) << r.body;
  }
  EXPECT_EQ(orders.size(), 9u);
  EXPECT_EQ(orders.count("O4"), 1u);
  EXPECT_LE(max_in_flight.load(), 3);
  EXPECT_GE(max_in_flight.load(), 2);
  EXPECT_LT(elapsed, std::chrono::milliseconds(9 * 150));  // ran concurrently
  EXPECT_LE((*server)->connections(), 3);
  // A second batch reuses the kept-alive connections.
  EXPECT_TRUE(sink->Push(batch).empty());
  EXPECT_LE((*server)->connections(), 3);
}

TEST_F(HttpSinkTest, ParametersInQuery) {
  auto server = HttpTestServer::Start();
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url() + "/p"},
                        {"SINK_HTTP_PARAMETER_SOURCE", "message"},
                        {"SINK_HTTP_PARAMETER_PLACEMENT", "query"},
                        {"SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
                        {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"order","4":{"1":"city"}})"}});
  EXPECT_TRUE(sink->Push({Record(1, "A B")}).empty());
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].target, "/p?order=A%20B&city=Pune");
}

TEST_F(HttpSinkTest, DynamicUrlFromFieldNumbers) {
  auto server = HttpTestServer::Start();
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url() + "/orders/%s/amount/%s,1,2"},
                        {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"}});
  EXPECT_TRUE(sink->Push({Record(1, "A", 3), Record(2, "B", 4)}).empty());
  std::set<std::string> targets;
  for (const auto& r : (*server)->requests()) targets.insert(r.target);
  EXPECT_THAT(targets, ElementsAre("/orders/A/amount/3", "/orders/B/amount/4"));
}

TEST_F(HttpSinkTest, ConnectionRefusedIsRetryable) {
  int port;
  {
    auto server = HttpTestServer::Start();
    port = (*server)->port();
  }  // closed: nothing listens on the port now
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", "http://127.0.0.1:" + std::to_string(port)}});
  auto failed = sink->Push({Record(1, "A")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("connection refused"));
}

TEST_F(HttpSinkTest, TimeoutIsRetryable) {
  auto server = HttpTestServer::Start([](const HttpRequest&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    return 200;
  });
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTP_REQUEST_TIMEOUT_MS", "100"}});
  auto failed = sink->Push({Record(1, "A")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("request timeout"));
}

TEST(HttpSinkConfigTest, ErrorsNameTheVariable) {
  NoopMetrics metrics;
  auto check = [&](std::map<std::string, std::string> vars, const std::string& variable) {
    Env env(vars);
    auto c = HttpSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
    ASSERT_FALSE(c.ok()) << variable;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(c.status().message(), HasSubstr(variable));
  };
  check({}, "SINK_HTTP_SERVICE_URL");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"}, {"SINK_HTTP_REQUEST_METHOD", "get"}},
        "SINK_HTTP_REQUEST_METHOD");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"}, {"SINK_HTTP_RETRY_STATUS_CODE_RANGES", "4xx"}},
        "SINK_HTTP_RETRY_STATUS_CODE_RANGES");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"}, {"SINK_HTTP_PARAMETER_SOURCE", "key"}},
        "SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"}, {"SINK_HTTP_MAX_CONNECTIONS", "0"}},
        "SINK_HTTP_MAX_CONNECTIONS");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"}, {"SINK_HTTP_HEADERS", "novalue"}},
        "SINK_HTTP_HEADERS");
}

}  // namespace
}  // namespace sluice::sink
