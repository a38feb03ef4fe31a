// The HTTP sink against hostile records and answers (security review
// 2026-11: H5, M7, M8, L6, C4).
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/http/http_sink.h"
#include "sink/sinks/http/oauth2.h"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/recording_metrics.h"
#include "sink/sinks/testing/generated_pool.h"

namespace sluice::sink {

testing::ErrorTypeTable& HttpFirehoseTypes();  // http_sink_test.cc
namespace {

using ::sluice::sink::testing::FindGenerated;

using ::sluice::sink::testing::HttpRequest;
using ::sluice::sink::testing::HttpTestServer;
using ::sluice::sink::testing::RecordingMetrics;
using ::sluice::sink::testing::TestKey;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

Message Raw(int64_t offset, std::string value) {
  Message m;
  m.topic = "orders";
  m.partition = 0;
  m.offset = offset;
  m.value = std::move(value);
  return m;
}

Message Decoded(int64_t offset, const std::string& order) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  Message m = Raw(offset, pb->SerializeAsString());
  m.decoded = pb;
  TestKey key;
  key.set_order_number(order);
  m.key = key.SerializeAsString();
  return m;
}

// Captures what the default spdlog logger writes while alive.
class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::string text() const { return out_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream out_;
};

class HttpSinkSecurityTest : public ::testing::Test {
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

// H5: INPUT_SCHEMA_DATA_TYPE=json, SINK_HTTP_DATA_FORMAT=json, no template:
// the raw value goes into a JSON string and nlohmann's dump() threw
// type_error 316 on the worker thread.
TEST_F(HttpSinkSecurityTest, InvalidUtf8ValueFailsThatRecordAsInvalidMessage) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTP_DATA_FORMAT", "json"}});
  std::vector<FailedMessage> failed;
  ASSERT_NO_THROW(failed = sink->Push({Raw(1, R"({"a":1})"), Raw(2, "\xff\xfe"), Raw(3, "{}")}));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 2);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("record not serializable"));
  EXPECT_THAT(failed[0].error, HasSubstr("UTF-8"));
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  auto body = nlohmann::json::parse(reqs[0].body);
  ASSERT_EQ(body.size(), 2u) << "the other records are sent";
  EXPECT_EQ(body[1]["logMessage"], "{}");
}

// M7: a header parameter taken from a record must not add headers.
TEST_F(HttpSinkSecurityTest, HeaderParameterWithCrLfFailsThatRecord) {
  auto server = HttpTestServer::Start();
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTP_PARAMETER_SOURCE", "key"},
                        {"SINK_HTTP_PARAMETER_PLACEMENT", "header"},
                        {"SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestKey"},
                        {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"X-Order"})"}});
  auto failed = sink->Push({Decoded(1, "a\r\nX-Admin: 1"), Decoded(2, "fine"),
                            Decoded(3, std::string("nul\0x", 5))});
  ASSERT_EQ(failed.size(), 2u);
  for (const FailedMessage& f : failed) {
    EXPECT_EQ(f.error_type, HttpFirehoseTypes()("record not serializable"));
    EXPECT_THAT(f.error, HasSubstr("X-Order"));
  }
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[1].message.offset, 3);
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].Header("x-order"), "fine");
  EXPECT_EQ(reqs[0].Header("x-admin"), "");
}

// M7: values of a dynamic URL are percent-encoded: no path, query or host
// control from a record.
TEST_F(HttpSinkSecurityTest, DynamicUrlValuesArePercentEncoded) {
  auto server = HttpTestServer::Start();
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url() + "/orders/%s/x,1"},
                        {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"}});
  EXPECT_TRUE(sink->Push({Decoded(1, "../../admin?drop=1#"), Decoded(2, "A-1_b.c~")}).empty());
  std::set<std::string> targets;
  for (const auto& r : (*server)->requests()) targets.insert(r.target);
  EXPECT_THAT(targets, ::testing::UnorderedElementsAre("/orders/..%2F..%2Fadmin%3Fdrop%3D1%23/x",
                                                       "/orders/A-1_b.c~/x"));
}

TEST(HttpSinkSecurityConfigTest, RefusesUrlsThatAreNotHttpAndBadHeaders) {
  NoopMetrics metrics;
  auto check = [&](std::map<std::string, std::string> vars, const std::string& variable) {
    Env env(vars);
    auto c = HttpSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
    ASSERT_FALSE(c.ok()) << variable;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(c.status().message(), HasSubstr(variable));
  };
  check({{"SINK_HTTP_SERVICE_URL", "file:///etc/passwd"}}, "SINK_HTTP_SERVICE_URL");
  check({{"SINK_HTTP_SERVICE_URL", "gopher://redis:6379/_FLUSHALL"}}, "SINK_HTTP_SERVICE_URL");
  check({{"SINK_HTTP_SERVICE_URL", "%s,1"}, {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"}},
        "SINK_HTTP_SERVICE_URL");
  // A %s in the authority would let a record choose the host (review R3-M1).
  for (const char* url : {"http://%s/x,1", "http://ingest-%s.example.com/x,1", "http://h:%s/x,1"}) {
    check({{"SINK_HTTP_SERVICE_URL", url}, {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"}},
          "SINK_HTTP_SERVICE_URL");
  }
  check({{"SINK_HTTP_SERVICE_URL", "http://x"}, {"SINK_HTTP_HEADERS", "X-A:b\rX-Admin:1"}},
        "SINK_HTTP_HEADERS");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"}, {"SINK_HTTP_HEADERS", "X A:b"}},
        "SINK_HTTP_HEADERS");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"},
         {"SINK_HTTP_PARAMETER_SOURCE", "key"},
         {"SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestKey"},
         {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING", R"({"1":"X Order"})"}},
        "INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"},
         {"SINK_HTTP_OAUTH2_ENABLE", "true"},
         {"SINK_HTTP_OAUTH2_ACCESS_TOKEN_URL", "file:///var/run/secrets/token"},
         {"SINK_HTTP_OAUTH2_CLIENT_NAME", "c"},
         {"SINK_HTTP_OAUTH2_CLIENT_SECRET", "s"}},
        "SINK_HTTP_OAUTH2_ACCESS_TOKEN_URL");
  check({{"SINK_HTTP_SERVICE_URL", "http://x"}, {"SINK_HTTP_LOG_BODIES", "yes"}},
        "SINK_HTTP_LOG_BODIES");
}

// M8: a redirect stores nothing; its records are not committed as delivered.
TEST_F(HttpSinkSecurityTest, RedirectsFailTheRecordsAsDefaultError) {
  std::atomic<int> status{301};
  auto server = HttpTestServer::Start([&](const HttpRequest&) { return status.load(); });
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()}});
  for (int code : {301, 302, 307, 308}) {
    status = code;
    auto failed = sink->Push({Raw(1, "a"), Raw(2, "b")});
    ASSERT_EQ(failed.size(), 2u) << code;
    EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("3xx outside the retry ranges")) << code;
    EXPECT_THAT(failed[0].error, HasSubstr(absl::StrCat(code)));
  }
  EXPECT_EQ(metrics_.Sum("firehose_sink_messages_drop_total"), 0);
  // A 3xx inside the configured retry ranges: Firehose retries it.
  auto ranged = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                          {"SINK_HTTP_RETRY_STATUS_CODE_RANGES", "300-399"}});
  status = 302;
  auto failed = ranged->Push({Raw(3, "c")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("3xx in SINK_HTTP_RETRY_STATUS_CODE_RANGES"));
}

// M8: when the multi handle fails, nothing in flight counts as delivered.
TEST_F(HttpSinkSecurityTest, AFailedMultiPerformFailsEveryRequestInFlight) {
  auto server = HttpTestServer::Start();
  Env env({{"SINK_HTTP_SERVICE_URL", (*server)->url() + "/%s,1"},
           {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"}});
  auto config = HttpSinkConfig::FromEnv(env, SinkContext{&env, &metrics_, &FindGenerated});
  ASSERT_TRUE(config.ok()) << config.status();
  auto sink = HttpSink::Create(*std::move(config), &metrics_);
  ASSERT_TRUE(sink.ok());
  (*sink)->SetMultiPerformForTesting([](void*, int*) { return 8; /* CURLM_INTERNAL_ERROR */ });
  auto failed = (*sink)->Push({Decoded(1, "a"), Decoded(2, "b"), Decoded(3, "c")});
  ASSERT_EQ(failed.size(), 3u);
  for (const FailedMessage& f : failed) {
    EXPECT_EQ(f.error_type, HttpFirehoseTypes()("transfer engine failure"));
    EXPECT_THAT(f.error, HasSubstr("curl_multi_perform"));
  }
}

// L6: failed requests are logged with status and sizes, bodies only on request.
TEST_F(HttpSinkSecurityTest, LogsStatusAndSizesNotBodies) {
  auto server = HttpTestServer::StartWithResponses([](const HttpRequest&) {
    HttpTestServer::Response r;
    r.status = 400;
    r.body = "rejected: token=abc";
    return r;
  });
  {
    CapturedLog log;
    auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url() + "/in?key=k1"},
                          {"SINK_HTTP_DATA_FORMAT", "json"}});
    ASSERT_EQ(sink->Push({Raw(1, "PII-alice@example.com")}).size(), 1u);
    std::string text = log.text();
    EXPECT_THAT(text, HasSubstr("-> 400"));
    EXPECT_THAT(text, HasSubstr("bytes"));
    EXPECT_THAT(text, HasSubstr("response 19 bytes"));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("alice")));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("token=abc")));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("key=k1"))) << "the query may hold record values";
  }
  {
    CapturedLog log;
    auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                          {"SINK_HTTP_DATA_FORMAT", "json"},
                          {"SINK_HTTP_LOG_BODIES", "true"}});
    ASSERT_EQ(sink->Push({Raw(1, "PII-alice@example.com")}).size(), 1u);
    EXPECT_THAT(log.text(), HasSubstr("alice"));
    EXPECT_THAT(log.text(), HasSubstr("token=abc"));
  }
}

// C4: the sink's libcurl handles speak http and https only.
TEST_F(HttpSinkSecurityTest, AFileUrlIsNeverReadNorCountedAsDelivered) {
  std::string path = ::testing::TempDir() + "/secret.txt";
  std::ofstream(path) << "SLUICE_DB_DSN=postgres://u:p@db/x\n";
  HttpSinkConfig config;
  config.url = "file://" + path;  // past FromEnv's check, as a redirect could be
  auto sink = HttpSink::Create(config, &metrics_);
  ASSERT_TRUE(sink.ok());
  auto failed = (*sink)->Push({Raw(1, "a")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("non-http(s) URL"));
  EXPECT_THAT(failed[0].error, ::testing::Not(HasSubstr("SLUICE_DB_DSN")));
  EXPECT_EQ(metrics_.Sum("firehose_sink_messages_drop_total"), 0);
}

// C4: the OAuth2 token source's client (common/http_client) too.
TEST(OAuth2Outbound, AFileTokenUrlIsNotRead) {
  std::string path = ::testing::TempDir() + "/token.json";
  std::ofstream(path) << R"({"access_token":"stolen","token_type":"bearer"})";
  OAuth2TokenSource source(OAuth2Config{"file://" + path, "c", "s", ""}, NewCurlHttpClient());
  auto token = source.Token();
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), absl::StatusCode::kUnavailable) << token.status();
  EXPECT_THAT(token.status().message(), ::testing::Not(HasSubstr("stolen")));
}

// M7: a token endpoint cannot inject headers into the sink's requests.
TEST(OAuth2Outbound, ATokenWithCrLfIsRefused) {
  auto endpoint = HttpTestServer::StartWithResponses([](const HttpRequest&) {
    HttpTestServer::Response r;
    r.content_type = "application/json";
    r.body = R"({"access_token":"tok\r\nX-Admin: 1","token_type":"bearer"})";
    return r;
  });
  ASSERT_TRUE(endpoint.ok());
  OAuth2TokenSource source(OAuth2Config{(*endpoint)->url() + "/token", "c", "s", ""},
                           NewCurlHttpClient());
  auto token = source.Token();
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace sluice::sink
