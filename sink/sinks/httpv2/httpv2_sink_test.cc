#include "sink/sinks/httpv2/httpv2_sink.h"

#include <atomic>
#include <map>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/recording_metrics.h"

namespace sluice::sink {
namespace {

// The httpv2 (depot http) sink's outcomes and the types depot and goto
// Firehose give them (error_type_table.h). GenericSink.java:29-33 copies depot's
// per-message ErrorInfo.
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // depot (stored 9e72eef) src/main/java/com/gotocompany/depot/http/response/HttpResponseParser.java
      // getErrors: retry ranges, then 4xx, then 5xx, else SINK_UNKNOWN_ERROR
      {"status in SINK_HTTPV2_RETRY_STATUS_CODE_RANGES", ErrorType::kSinkRetryableError},
      // depot (stored 9e72eef) src/main/java/com/gotocompany/depot/http/response/HttpResponseParser.java
      // getErrors: retry ranges, then 4xx, then 5xx, else SINK_UNKNOWN_ERROR
      {"4xx outside the retry ranges", ErrorType::kSink4xxError},
      // depot (stored 9e72eef) src/main/java/com/gotocompany/depot/http/response/HttpResponseParser.java
      // getErrors: retry ranges, then 4xx, then 5xx, else SINK_UNKNOWN_ERROR
      {"5xx outside the retry ranges", ErrorType::kSink5xxError},
      // depot (stored 9e72eef) src/main/java/com/gotocompany/depot/http/response/HttpResponseParser.java
      // getErrors: retry ranges, then 4xx, then 5xx, else SINK_UNKNOWN_ERROR
      {"other status (3xx)", ErrorType::kSinkUnknownError},
      // depot HttpSinkClient.send throws IOException, rethrown as depot's
      // SinkException (not Firehose's, which AbstractSink.java:46-47 rethrows) through
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/GenericSink.java:28; firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53
      // (was SINK_RETRYABLE_ERROR)
      {"no answer (refused, timeout)", ErrorType::kDefaultError},
      // depot's OAuth2 interceptor throws IOException: as above (was SINK_RETRYABLE_ERROR)
      {"OAuth2 token request fails", ErrorType::kDefaultError},
      // sluice only: per record (depot throws for the batch)
      {"key does not decode", ErrorType::kDeserializationError},
      // depot's proto parser with unknown-field validation; per record in sluice
      {"unknown fields in the record", ErrorType::kUnknownFieldsError},
      // sluice only: depot splices values raw (README "Firehose conformance")
      {"URL would leave the configured origin", ErrorType::kInvalidMessageError},
  });
  return *table;
}


using ::sluice::sink::testing::FindGenerated;
using ::sluice::sink::testing::HttpTestServer;
using ::sluice::sink::testing::RecordingMetrics;
using ::sluice::sink::testing::TestKey;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

Message Record(int64_t offset, const std::string& order, int64_t amount = 1) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(amount);
  pb->mutable_address()->set_city("Pune");
  Message m;
  m.topic = "orders";
  m.offset = offset;
  m.value = pb->SerializeAsString();
  TestKey key;
  key.set_order_number("key-" + order);
  m.key = key.SerializeAsString();
  m.decoded = pb;
  return m;
}

class Httpv2SinkTest : public ::testing::Test {
 protected:
  std::unique_ptr<Httpv2Sink> MakeSink(std::map<std::string, std::string> vars) {
    vars.emplace("INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage");
    env_ = Env(std::move(vars));
    auto config = Httpv2SinkConfig::FromEnv(env_, SinkContext{&env_, &metrics_, &FindGenerated});
    EXPECT_TRUE(config.ok()) << config.status();
    if (!config.ok()) return nullptr;
    auto sink = Httpv2Sink::Create(*std::move(config), &metrics_);
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }
  Env env_;
  RecordingMetrics metrics_;
};

TEST_F(Httpv2SinkTest, SingleModeFillsUrlQueryAndHeaderTemplates) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url() + "/orders/%s,order_number"},
                        {"SINK_HTTPV2_HEADERS", "X-Team:core, X-Order-A:static"},
                        {"SINK_HTTPV2_HEADERS_TEMPLATE", R"({"X-Order-%s,order_number":"%s,amount"})"},
                        {"SINK_HTTPV2_QUERY_TEMPLATE", R"({"k":"%s,order_number"})"},
                        {"SINK_HTTPV2_QUERY_PARAMETER_SOURCE", "KEY"},
                        {"SINK_HTTPV2_REQUEST_BODY_MODE", "MESSAGE"}});
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A", 5), Record(2, "B", 6)}).empty());
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 2u);
  std::sort(reqs.begin(), reqs.end(), [](auto& a, auto& b) { return a.target < b.target; });
  EXPECT_EQ(reqs[0].method, "PUT");
  EXPECT_EQ(reqs[0].target, "/orders/A?k=key-A");
  EXPECT_EQ(reqs[0].Header("x-team"), "core");
  EXPECT_EQ(reqs[0].Header("x-order-a"), "5") << "the template overrides SINK_HTTPV2_HEADERS";
  EXPECT_EQ(reqs[1].Header("x-order-a"), "static");
  EXPECT_EQ(reqs[0].Header("content-type"), "application/json; charset=UTF-8");
  auto body = nlohmann::json::parse(reqs[0].body);
  EXPECT_EQ(body["order_number"], "A");
  EXPECT_EQ(body["address"]["city"], "Pune");
  EXPECT_TRUE(body.contains("paid")) << "SINK_HTTPV2_DEFAULT_FIELD_VALUE_ENABLE defaults to true";
  EXPECT_EQ(reqs[1].target, "/orders/B?k=key-B");
  EXPECT_EQ(metrics_.Sum("firehose_sink_http_response_code_total", {"status_code", "200"}), 2);
}

TEST_F(Httpv2SinkTest, BatchModeSendsOneRequestWithTheListOfRawBodies) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url() + "/bulk"},
                        {"SINK_HTTPV2_REQUEST_MODE", "BATCH"},
                        {"SINK_HTTPV2_REQUEST_METHOD", "post"},
                        {"SINK_HTTPV2_QUERY_TEMPLATE", R"({"src":"fh"})"}});
  ASSERT_NE(sink, nullptr);
  std::vector<Message> batch = {Record(1, "A"), Record(2, "B"), Record(3, "C")};
  EXPECT_TRUE(sink->Push(batch).empty());
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].target, "/bulk?src=fh");
  EXPECT_THAT(reqs[0].body, HasSubstr("}, {")) << "Java's List.toString separator";
  auto body = nlohmann::json::parse(reqs[0].body);
  ASSERT_EQ(body.size(), 3u);
  EXPECT_EQ(body[2]["log_message"], absl::Base64Escape(batch[2].value));
  EXPECT_EQ(body[2]["log_key"], absl::Base64Escape(*batch[2].key));
}

TEST_F(Httpv2SinkTest, TemplatizedAndJsonBodies) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTPV2_REQUEST_BODY_MODE", "TEMPLATIZED_JSON"},
                        {"SINK_HTTPV2_JSON_BODY_TEMPLATE",
                         R"({"id":"%s,order_number","n":"%s,amount","where":"%s,address","%s,order_number":[1,"x-%s,amount"]})"}});
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A", 9)}).empty());
  auto body = nlohmann::json::parse((*server)->requests().at(0).body);
  EXPECT_EQ(body, nlohmann::json::parse(
                      R"({"id":"A","n":9,"where":{"city":"Pune","zip":0},"A":[1,"x-9"]})"));
  // The bytes, too: members in the template's order, compact, as depot's
  // Jackson ObjectNode.toString() (nlohmann::json would sort them).
  EXPECT_EQ((*server)->requests().at(0).body,
            R"({"id":"A","n":9,"where":{"city":"Pune","zip":0},"A":[1,"x-9"]})");

  auto json_sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url()},
                             {"SINK_HTTPV2_REQUEST_BODY_MODE", "JSON"},
                             {"SINK_HTTPV2_DEFAULT_FIELD_VALUE_ENABLE", "false"}});
  ASSERT_NE(json_sink, nullptr);
  EXPECT_TRUE(json_sink->Push({Record(2, "B", 3)}).empty());
  body = nlohmann::json::parse((*server)->requests().at(1).body);
  ASSERT_TRUE(body["logKey"].is_string()) << body;
  EXPECT_EQ(nlohmann::json::parse(body["logKey"].get<std::string>()),
            nlohmann::json::parse(R"({"order_number":"key-B"})"));
  EXPECT_EQ(nlohmann::json::parse(body["logMessage"].get<std::string>())["amount"], "3");
}

TEST_F(Httpv2SinkTest, StatusCodesMapAsDepot) {
  std::atomic<int> status{200};
  auto server = HttpTestServer::Start([&](const testing::HttpRequest&) { return status.load(); });
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTPV2_RETRY_STATUS_CODE_RANGES", "500-502,429-429"}});
  ASSERT_NE(sink, nullptr);
  for (auto [code, want] : std::vector<std::pair<int, ErrorType>>{
           {500, FirehoseTypes()("status in SINK_HTTPV2_RETRY_STATUS_CODE_RANGES")},
           {429, FirehoseTypes()("status in SINK_HTTPV2_RETRY_STATUS_CODE_RANGES")},
           {404, FirehoseTypes()("4xx outside the retry ranges")},
           {503, FirehoseTypes()("5xx outside the retry ranges")},
           {302, FirehoseTypes()("other status (3xx)")}}) {
    status = code;
    auto failed = sink->Push({Record(1, "A")});
    ASSERT_EQ(failed.size(), 1u) << code;
    EXPECT_EQ(failed[0].error_type, want) << code;
  }
  status = 204;
  EXPECT_TRUE(sink->Push({Record(1, "A")}).empty());
}

TEST_F(Httpv2SinkTest, TransportErrorIsRetryable) {
  int port;
  {
    auto server = HttpTestServer::Start();
    ASSERT_TRUE(server.ok());
    port = (*server)->port();
  }
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", "http://127.0.0.1:" + std::to_string(port)},
                        {"SINK_HTTPV2_REQUEST_TIMEOUT_MS", "2000"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, "A")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("no answer (refused, timeout)"));
}

TEST_F(Httpv2SinkTest, DeleteWithoutBodyWhenDisabled) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url() + "/o/%s,order_number"},
                        {"SINK_HTTPV2_REQUEST_METHOD", "delete"},
                        {"SINK_HTTPV2_DELETE_BODY_ENABLE", "false"}});
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A")}).empty());
  auto with_body = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url() + "/o/%s,order_number"},
                             {"SINK_HTTPV2_REQUEST_METHOD", "delete"}});
  EXPECT_TRUE(with_body->Push({Record(2, "B")}).empty());
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "DELETE");
  EXPECT_EQ(reqs[0].target, "/o/A");
  EXPECT_EQ(reqs[0].body, "");
  EXPECT_EQ(reqs[1].method, "DELETE");
  EXPECT_THAT(reqs[1].body, HasSubstr("log_message"));
}

TEST_F(Httpv2SinkTest, UndecodableAndFieldlessRecordsFailAlone) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTPV2_HEADERS_TEMPLATE", R"({"X-K":"%s,order_number"})"},
                        {"SINK_HTTPV2_HEADERS_PARAMETER_SOURCE", "KEY"}});
  ASSERT_NE(sink, nullptr);
  Message bad = Record(2, "B");
  bad.key = std::string("\xff\xff\xff", 3);
  auto failed = sink->Push({Record(1, "A"), bad});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 2);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("key does not decode"));
  ASSERT_EQ((*server)->requests().size(), 1u);
  EXPECT_EQ((*server)->requests()[0].Header("x-k"), "key-A");
}

TEST_F(Httpv2SinkTest, OAuth2TokenIsFetchedCachedAndDroppedOn401) {
  std::atomic<int> issued{0};
  auto token_server = HttpTestServer::StartWithResponses([&](const testing::HttpRequest& r) {
    HttpTestServer::Response resp;
    if (r.body.find("client_id=svc") == std::string::npos ||
        r.body.find("client_secret=s%3Dcret") == std::string::npos ||
        r.body.find("grant_type=client_credentials") == std::string::npos ||
        r.body.find("scope=a%20b") == std::string::npos) {
      resp.status = 401;
      resp.body = R"({"error":"invalid_client"})";
      return resp;
    }
    resp.content_type = "application/json";
    resp.body = absl::StrCat(R"({"access_token":"tok)", ++issued, R"(","expires_in":3600})");
    return resp;
  });
  ASSERT_TRUE(token_server.ok());
  std::atomic<bool> reject{false};
  auto server = HttpTestServer::Start([&](const testing::HttpRequest& r) {
    return reject.load() ? 401 : (r.Header("authorization").rfind("Bearer tok", 0) == 0 ? 200 : 403);
  });
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTPV2_OAUTH2_ENABLE", "true"},
                        {"SINK_HTTPV2_OAUTH2_ACCESS_TOKEN_URL", (*token_server)->url() + "/token"},
                        {"SINK_HTTPV2_OAUTH2_CLIENT_NAME", "svc"},
                        {"SINK_HTTPV2_OAUTH2_CLIENT_SECRET", "s=cret"},
                        {"SINK_HTTPV2_OAUTH2_SCOPE", "a b"}});
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1, "A"), Record(2, "B")}).empty());
  EXPECT_TRUE(sink->Push({Record(3, "C")}).empty());
  EXPECT_EQ(sink->token_fetches(), 1);
  EXPECT_EQ((*server)->requests().back().Header("authorization"), "Bearer tok1");
  reject = true;
  auto failed = sink->Push({Record(4, "D")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("status in SINK_HTTPV2_RETRY_STATUS_CODE_RANGES"));
  reject = false;
  EXPECT_TRUE(sink->Push({Record(4, "D")}).empty());
  EXPECT_EQ(sink->token_fetches(), 2);
  EXPECT_EQ((*server)->requests().back().Header("authorization"), "Bearer tok2");
}

TEST_F(Httpv2SinkTest, NoTokenFailsTheBatchRetryableWithoutSending) {
  auto token_server = HttpTestServer::StartWithResponses([](const testing::HttpRequest&) {
    HttpTestServer::Response resp;
    resp.status = 400;
    resp.body = R"({"error":"invalid_client"})";
    return resp;
  });
  ASSERT_TRUE(token_server.ok());
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTPV2_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTPV2_OAUTH2_ENABLE", "true"},
                        {"SINK_HTTPV2_OAUTH2_ACCESS_TOKEN_URL", (*token_server)->url()},
                        {"SINK_HTTPV2_OAUTH2_CLIENT_NAME", "svc"},
                        {"SINK_HTTPV2_OAUTH2_CLIENT_SECRET", "x"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, "A")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("OAuth2 token request fails"));
  EXPECT_THAT(failed[0].error, HasSubstr("invalid_client"));
  EXPECT_TRUE((*server)->requests().empty());
}

}  // namespace
}  // namespace sluice::sink

namespace sluice::sink {
namespace {

TEST(Httpv2JsonInputTest, TemplatesReadJsonMembers) {
  auto server = testing::HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  Env env(std::map<std::string, std::string>{
      {"INPUT_SCHEMA_DATA_TYPE", "json"},
      {"SINK_HTTPV2_SERVICE_URL", (*server)->url() + "/r/%s,driver.name"},
      {"SINK_HTTPV2_REQUEST_BODY_MODE", "TEMPLATIZED_JSON"},
      {"SINK_HTTPV2_JSON_BODY_TEMPLATE", R"({"fare":"%s,fare","who":"%s,driver"})"}});
  testing::RecordingMetrics metrics;
  auto config = Httpv2SinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  ASSERT_TRUE(config.ok()) << config.status();
  auto sink = Httpv2Sink::Create(*std::move(config), &metrics);
  ASSERT_TRUE(sink.ok());
  Message m;
  m.value = R"({"fare":12.5,"driver":{"name":"ana"}})";
  m.json = std::make_shared<nlohmann::json>(nlohmann::json::parse(m.value));
  Message no_driver;
  no_driver.offset = 1;
  no_driver.value = R"({"fare":1})";
  no_driver.json = std::make_shared<nlohmann::json>(nlohmann::json::parse(no_driver.value));
  auto failed = (*sink)->Push({m, no_driver});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("unknown fields in the record"));
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].target, "/r/ana");
  EXPECT_EQ(nlohmann::json::parse(reqs[0].body),
            nlohmann::json::parse(R"({"fare":12.5,"who":{"name":"ana"}})"));
}

}  // namespace
}  // namespace sluice::sink

namespace sluice::sink {
namespace {

// Security review R3-M1: record values in SINK_HTTPV2_SERVICE_URL.
class Httpv2UrlSafetyTest : public ::testing::Test {
 protected:
  // A config read from `vars` (JSON input).
  absl::StatusOr<Httpv2SinkConfig> Config(std::map<std::string, std::string> vars) {
    vars.emplace("INPUT_SCHEMA_DATA_TYPE", "json");
    env_ = Env(std::move(vars));
    return Httpv2SinkConfig::FromEnv(env_, SinkContext{&env_, &metrics_, nullptr});
  }
  std::unique_ptr<Httpv2Sink> Sink(Httpv2SinkConfig config) {
    auto sink = Httpv2Sink::Create(std::move(config), &metrics_);
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }
  static Message JsonRecord(const std::string& text) {
    Message m;
    m.value = text;
    m.json = std::make_shared<nlohmann::json>(nlohmann::json::parse(text));
    return m;
  }
  Env env_;
  testing::RecordingMetrics metrics_;
};

TEST_F(Httpv2UrlSafetyTest, UrlValuesArePercentEncodedHeadersAndBodyAreNot) {
  auto server = testing::HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto config = Config({{"SINK_HTTPV2_SERVICE_URL", (*server)->url() + "/api/users/%s,user_id"},
                        {"SINK_HTTPV2_QUERY_TEMPLATE", R"({"u":"%s,user_id"})"},
                        {"SINK_HTTPV2_HEADERS_TEMPLATE", R"({"X-User":"%s,user_id"})"},
                        {"SINK_HTTPV2_REQUEST_BODY_MODE", "TEMPLATIZED_JSON"},
                        {"SINK_HTTPV2_JSON_BODY_TEMPLATE", R"({"u":"%s,user_id"})"}});
  ASSERT_TRUE(config.ok()) << config.status();
  auto sink = Sink(*std::move(config));
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({JsonRecord(R"({"user_id":"../../admin/x?y#"})")}).empty());
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  // The value stays one path segment; the query value is encoded once.
  EXPECT_EQ(reqs[0].target,
            "/api/users/..%2F..%2Fadmin%2Fx%3Fy%23?u=..%2F..%2Fadmin%2Fx%3Fy%23");
  EXPECT_EQ(reqs[0].Header("x-user"), "../../admin/x?y#");
  EXPECT_EQ(nlohmann::json::parse(reqs[0].body), nlohmann::json::parse(R"({"u":"../../admin/x?y#"})"));
}

// FromEnv keeps placeholders out of the authority
// (Httpv2ConfigTest.PlaceholderBeforeTheEndOfTheAuthorityIsRefused); the
// per-request check still holds for a config whose URL template was swapped
// after FromEnv (built in code): no request leaves for another origin.
TEST_F(Httpv2UrlSafetyTest, ValueThatChangesSchemeHostOrPortFailsTheRecord) {
  auto a = testing::HttpTestServer::Start();
  auto b = testing::HttpTestServer::Start();
  ASSERT_TRUE(a.ok() && b.ok());
  std::string a_port = std::to_string((*a)->port()), b_port = std::to_string((*b)->port());
  struct Case {
    std::string pattern, record;
  } cases[] = {
      {"http://127.0.0.1:%s/x,port", R"({"port":")" + b_port + R"("})"},
      {"http://%s/x,host", R"({"host":"127.0.0.1:)" + b_port + R"("})"},
      {"http://%s:" + a_port + "/x,host", R"({"host":"localhost"})"},
      {"%s://127.0.0.1:" + a_port + "/x,scheme", R"({"scheme":"https"})"},
  };
  for (const Case& c : cases) {
    auto config = Config({{"SINK_HTTPV2_SERVICE_URL", "http://127.0.0.1:" + a_port + "/x/%s,id"}});
    ASSERT_TRUE(config.ok()) << config.status();
    auto swapped = ValueTemplate::Parse(c.pattern, nullptr, "SINK_HTTPV2_SERVICE_URL");
    ASSERT_TRUE(swapped.ok()) << swapped.status();
    config->url = *std::move(swapped);
    auto sink = Sink(*std::move(config));
    ASSERT_NE(sink, nullptr);
    auto failed = sink->Push({JsonRecord(c.record)});
    ASSERT_EQ(failed.size(), 1u) << c.pattern;
    EXPECT_EQ(failed[0].error_type, FirehoseTypes()("URL would leave the configured origin")) << c.pattern;
    EXPECT_THAT(failed[0].error, HasSubstr("scheme, host or port")) << c.pattern;
  }
  EXPECT_TRUE((*a)->requests().empty());
  EXPECT_TRUE((*b)->requests().empty());
}

}  // namespace
}  // namespace sluice::sink
