// OAuth2 client credentials against a real local token endpoint and
// resource server (HttpTestServer) answering with RFC 6749 §5.1/§5.2 shapes.
#include "sink/sinks/http/oauth2.h"

#include <atomic>
#include <map>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sink/sinks/http/http_sink.h"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/recording_metrics.h"

namespace sluice::sink {

testing::ErrorTypeTable& HttpFirehoseTypes();  // http_sink_test.cc
namespace {

using ::sluice::sink::testing::HttpRequest;
using ::sluice::sink::testing::HttpTestServer;
using ::sluice::sink::testing::RecordingMetrics;
using ::testing::HasSubstr;

// A token endpoint issuing "tok-1", "tok-2", ... to client "sink id" with
// secret "s3cr&t", valid for `expires_in` seconds.
class TokenEndpoint {
 public:
  explicit TokenEndpoint(int expires_in = 3600) : expires_in_(expires_in) {
    auto s = HttpTestServer::StartWithResponses([this](const HttpRequest& r) {
      HttpTestServer::Response resp;
      resp.content_type = "application/json";
      // RFC 6749 §2.3.1: id and secret form-encoded, then Basic.
      std::string want = absl::StrCat(
          "Basic ", absl::Base64Escape(absl::StrCat(UrlEscape("sink id"), ":", UrlEscape("s3cr&t"))));
      if (r.method != "POST" || r.Header("authorization") != want) {
        resp.status = 401;
        resp.body = R"({"error":"invalid_client","error_description":"bad credentials"})";
        return resp;
      }
      if (!absl::StartsWith(r.body, "grant_type=client_credentials")) {
        resp.status = 400;
        resp.body = R"({"error":"unsupported_grant_type"})";
        return resp;
      }
      resp.body = absl::StrCat(R"({"access_token":"tok-)", ++issued_,
                               R"(","token_type":"bearer","expires_in":)", expires_in_, "}");
      return resp;
    });
    EXPECT_TRUE(s.ok()) << s.status();
    server_ = std::move(*s);
  }
  std::string url() const { return server_->url() + "/oauth2/token"; }
  int issued() const { return issued_; }
  std::vector<HttpRequest> requests() const { return server_->requests(); }

 private:
  int expires_in_;
  std::atomic<int> issued_{0};
  std::unique_ptr<HttpTestServer> server_;
};

OAuth2Config Config(const TokenEndpoint& endpoint) {
  return OAuth2Config{endpoint.url(), "sink id", "s3cr&t", "orders:write sys:info"};
}

TEST(OAuth2, CredentialsAreEscapedKeepingOnlyUnreservedCharacters) {
  EXPECT_EQ(UrlEscape("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(UrlEscape("s3cr&t :/"), "s3cr%26t%20%3A%2F");
}

TEST(OAuth2, FetchesWithClientCredentialsAndCachesUntilNearExpiry) {
  TokenEndpoint endpoint(/*expires_in=*/300);
  absl::Time now = absl::FromUnixSeconds(1000);
  OAuth2TokenSource source(Config(endpoint), NewCurlHttpClient(), [&] { return now; });
  auto t = source.Token();
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t, "tok-1");
  HttpRequest req = endpoint.requests().at(0);
  EXPECT_EQ(req.body, "grant_type=client_credentials&scope=orders%3Awrite%20sys%3Ainfo");
  EXPECT_EQ(req.Header("content-type"), "application/x-www-form-urlencoded");
  now += absl::Seconds(200);  // 100 s left: still > kRefreshMargin
  EXPECT_EQ(*source.Token(), "tok-1");
  now += absl::Seconds(50);  // 50 s left: replaced
  EXPECT_EQ(*source.Token(), "tok-2");
  source.Invalidate();
  EXPECT_EQ(*source.Token(), "tok-3");
  EXPECT_EQ(endpoint.issued(), 3);
}

TEST(OAuth2, EndpointErrorsNameTheServersError) {
  TokenEndpoint endpoint;
  OAuth2Config c = Config(endpoint);
  c.client_secret = "wrong";
  OAuth2TokenSource source(c, NewCurlHttpClient());
  auto t = source.Token();
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(t.status().message(), HasSubstr("invalid_client: bad credentials"));
  c.token_url = "http://127.0.0.1:1/token";  // nothing listens
  OAuth2TokenSource down(c, NewCurlHttpClient());
  EXPECT_EQ(down.Token().status().code(), absl::StatusCode::kUnavailable);
}

Message Record(int64_t offset) {
  auto pb = std::make_shared<sluice::sink::testing::TestMessage>();
  pb->set_order_number(absl::StrCat("O", offset));
  Message m;
  m.topic = "orders";
  m.offset = offset;
  m.value = pb->SerializeAsString();
  m.decoded = pb;
  return m;
}

class HttpSinkOAuth2Test : public ::testing::Test {
 protected:
  std::unique_ptr<Sink> MakeSink(const std::string& service_url, const TokenEndpoint& endpoint,
                                 std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> vars = {
        {"SINK_HTTP_SERVICE_URL", service_url},
        {"SINK_HTTP_OAUTH2_ENABLE", "true"},
        {"SINK_HTTP_OAUTH2_ACCESS_TOKEN_URL", endpoint.url()},
        {"SINK_HTTP_OAUTH2_CLIENT_NAME", "sink id"},
        {"SINK_HTTP_OAUTH2_CLIENT_SECRET", "s3cr&t"},
        {"SINK_HTTP_OAUTH2_SCOPE", "orders:write"}};
    for (auto& [k, v] : extra) vars[k] = v;
    env_ = Env(vars);
    auto sink = CreateFromContext<HttpSink>(SinkContext{&env_, &metrics_, nullptr});
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }
  Env env_;
  RecordingMetrics metrics_;
};

TEST_F(HttpSinkOAuth2Test, RequestsCarryTheBearerTokenFetchedOnce) {
  TokenEndpoint endpoint;
  auto service = HttpTestServer::Start();
  ASSERT_TRUE(service.ok());
  auto sink = MakeSink((*service)->url() + "/ingest", endpoint);
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1)}).empty());
  EXPECT_TRUE(sink->Push({Record(2)}).empty());
  auto reqs = (*service)->requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].Header("authorization"), "Bearer tok-1");
  EXPECT_EQ(reqs[1].Header("authorization"), "Bearer tok-1");
  EXPECT_EQ(endpoint.issued(), 1);
}

TEST_F(HttpSinkOAuth2Test, A401RenewsTheTokenAndResendsOnce) {
  TokenEndpoint endpoint;
  // The resource server revoked tok-1 early.
  auto service = HttpTestServer::Start(
      [](const HttpRequest& r) { return r.Header("authorization") == "Bearer tok-1" ? 401 : 200; });
  ASSERT_TRUE(service.ok());
  auto sink = MakeSink((*service)->url() + "/ingest", endpoint);
  ASSERT_NE(sink, nullptr);
  EXPECT_TRUE(sink->Push({Record(1), Record(2)}).empty());
  auto reqs = (*service)->requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].Header("authorization"), "Bearer tok-2");
  EXPECT_EQ(endpoint.issued(), 2);
}

TEST_F(HttpSinkOAuth2Test, A401AfterRenewalFailsTheMessagesAsUsual) {
  TokenEndpoint endpoint;
  auto service = HttpTestServer::Start([](const HttpRequest&) { return 401; });
  ASSERT_TRUE(service.ok());
  auto sink = MakeSink((*service)->url() + "/ingest", endpoint);
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("4xx in SINK_HTTP_RETRY_STATUS_CODE_RANGES"));
  EXPECT_EQ((*service)->requests().size(), 2u);  // not an endless loop
}

TEST_F(HttpSinkOAuth2Test, NoTokenFailsTheBatchAsRetryableWithoutCallingTheService) {
  TokenEndpoint endpoint;
  auto service = HttpTestServer::Start();
  ASSERT_TRUE(service.ok());
  auto sink = MakeSink((*service)->url() + "/ingest", endpoint,
                       {{"SINK_HTTP_OAUTH2_CLIENT_SECRET", "wrong"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1), Record(2)});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error_type, HttpFirehoseTypes()("OAuth2 token request fails"));
  EXPECT_THAT(failed[0].error, HasSubstr("invalid_client"));
  EXPECT_TRUE((*service)->requests().empty());
}

TEST(HttpSinkOAuth2Config, EnabledWithoutTheEndpointNamesTheVariable) {
  Env env(std::map<std::string, std::string>{{"SINK_HTTP_SERVICE_URL", "http://x"},
                                             {"SINK_HTTP_OAUTH2_ENABLE", "true"},
                                             {"SINK_HTTP_OAUTH2_CLIENT_NAME", "c"},
                                             {"SINK_HTTP_OAUTH2_CLIENT_SECRET", "s"}});
  RecordingMetrics metrics;
  auto c = HttpSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("SINK_HTTP_OAUTH2_ACCESS_TOKEN_URL"));
  Env off(std::map<std::string, std::string>{{"SINK_HTTP_SERVICE_URL", "http://x"}});
  auto plain = HttpSinkConfig::FromEnv(off, SinkContext{&off, &metrics, nullptr});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->oauth2.has_value());
}

}  // namespace
}  // namespace sluice::sink
