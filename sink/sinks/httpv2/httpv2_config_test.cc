#include "sink/sinks/httpv2/httpv2_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/recording_metrics.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::FindGenerated;
using ::testing::HasSubstr;

absl::StatusOr<Httpv2SinkConfig> Parse(std::map<std::string, std::string> vars) {
  vars.emplace("INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage");
  Env env(std::move(vars));
  testing::RecordingMetrics metrics;
  return Httpv2SinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
}

TEST(Httpv2ConfigTest, DepotDefaults) {
  auto c = Parse({{"SINK_HTTPV2_SERVICE_URL", "http://h/x"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->method, "PUT");
  EXPECT_FALSE(c->batch);
  EXPECT_EQ(c->body_mode, Httpv2SinkConfig::BodyMode::kRaw);
  EXPECT_EQ(c->retry_ranges, (std::vector<std::pair<int, int>>{{400, 600}}));
  EXPECT_EQ(c->log_ranges, (std::vector<std::pair<int, int>>{{400, 600}}));
  EXPECT_EQ(c->max_connections, 10);
  EXPECT_EQ(c->timeout_ms, 10000);
  EXPECT_TRUE(c->default_field_values);
  EXPECT_TRUE(c->delete_body);
  EXPECT_FALSE(c->headers_from_key);
  EXPECT_FALSE(c->query_from_key);
  EXPECT_FALSE(c->oauth2.has_value());
}

TEST(Httpv2ConfigTest, ErrorsNameTheVariable) {
  struct Case {
    std::map<std::string, std::string> vars;
    std::string want;
  } cases[] = {
      {{}, "SINK_HTTPV2_SERVICE_URL"},
      {{{"SINK_HTTPV2_SERVICE_URL", "file:///etc/passwd"}}, "SINK_HTTPV2_SERVICE_URL"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h/%s,nope"}}, "SINK_HTTPV2_SERVICE_URL"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_REQUEST_METHOD", "get"}},
       "SINK_HTTPV2_REQUEST_METHOD"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_REQUEST_MODE", "MANY"}},
       "SINK_HTTPV2_REQUEST_MODE"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_REQUEST_BODY_MODE", "TEMPLATIZED_JSON"}},
       "SINK_HTTPV2_JSON_BODY_TEMPLATE"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_REQUEST_BODY_MODE", "TEMPLATIZED_JSON"},
        {"SINK_HTTPV2_JSON_BODY_TEMPLATE", R"({"a":"%s,nope"})"}},
       "SINK_HTTPV2_JSON_BODY_TEMPLATE"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h/%s,order_number"}, {"SINK_HTTPV2_REQUEST_MODE", "BATCH"}},
       "SINK_HTTPV2_SERVICE_URL"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_REQUEST_MODE", "BATCH"},
        {"SINK_HTTPV2_HEADERS_TEMPLATE", R"({"X-Id":"%s,order_number"})"}},
       "SINK_HTTPV2_HEADERS_TEMPLATE"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_REQUEST_MODE", "BATCH"},
        {"SINK_HTTPV2_QUERY_TEMPLATE", R"({"id":"%s,order_number"})"}},
       "SINK_HTTPV2_QUERY_TEMPLATE"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_QUERY_TEMPLATE", "[1]"}},
       "SINK_HTTPV2_QUERY_TEMPLATE"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_RETRY_STATUS_CODE_RANGES", "500"}},
       "SINK_HTTPV2_RETRY_STATUS_CODE_RANGES"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_MAX_CONNECTIONS", "0"}},
       "SINK_HTTPV2_MAX_CONNECTIONS"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_OAUTH2_ENABLE", "true"}},
       "SINK_HTTPV2_OAUTH2_ACCESS_TOKEN_URL"},
      {{{"SINK_HTTPV2_SERVICE_URL", "http://h"}, {"SINK_HTTPV2_HEADERS_PARAMETER_SOURCE", "BODY"}},
       "SINK_HTTPV2_HEADERS_PARAMETER_SOURCE"},
  };
  for (const Case& c : cases) {
    auto parsed = Parse(c.vars);
    EXPECT_FALSE(parsed.ok()) << c.want;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.want));
  }
}

TEST(Httpv2ConfigTest, BatchAllowsConstantQuery) {
  auto c = Parse({{"SINK_HTTPV2_SERVICE_URL", "http://h/x"},
                  {"SINK_HTTPV2_REQUEST_MODE", "batch"},
                  {"SINK_HTTPV2_QUERY_TEMPLATE", R"({"source":"firehose"})"},
                  {"SINK_HTTPV2_REQUEST_METHOD", "post"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->batch);
  EXPECT_EQ(c->method, "POST");
  ASSERT_EQ(c->query_templates.size(), 1u);
}

// Security review R3-M1: record values must not choose the scheme, host or
// port. JSON input, so that any field name parses.
TEST(Httpv2ConfigTest, PlaceholderBeforeTheEndOfTheAuthorityIsRefused) {
  auto parse_json = [](const std::string& url) {
    Env env({{"INPUT_SCHEMA_DATA_TYPE", "json"}, {"SINK_HTTPV2_SERVICE_URL", url}});
    testing::RecordingMetrics metrics;
    return Httpv2SinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  };
  for (const char* url : {"http://%s/x,host", "http://ingest-%s.example.com/x,region",
                          "http://ingest-%s.example.com:8080/events,region", "http://h:%s/x,port",
                          "http://u:%s@h/x,password", "http://h%s,suffix"}) {
    auto c = parse_json(url);
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(c.status().message(), HasSubstr("SINK_HTTPV2_SERVICE_URL: a %s placeholder")) << url;
  }
  struct Accepted {
    std::string url, origin;
  } accepted[] = {{"http://h/%s,id", "http://h:80"},
                  {"https://H:8443/a/%s/b,id", "https://h:8443"},
                  {"http://h?q=%s,id", "http://h:80"},
                  {"http://[::1]:9/%s,id", "http://[::1]:9"}};
  for (const Accepted& a : accepted) {
    auto c = parse_json(a.url);
    ASSERT_TRUE(c.ok()) << a.url << ": " << c.status();
    EXPECT_EQ(c->url_origin, a.origin);
  }
}

}  // namespace
}  // namespace sluice::sink
