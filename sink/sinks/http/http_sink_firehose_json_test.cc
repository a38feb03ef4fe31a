// The four SINK_HTTP_* variables that change the body as Firehose does:
// SIMPLE_DATE_FORMAT_ENABLE, SERIALIZER_JSON_TYPECAST,
// JSON_BODY_TEMPLATE_PARSE_OPTION and DELETE_BODY_ENABLE (issue 29, item 4),
// each against a real HTTP server.
#include <map>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/http/http_sink.h"
#include "sink/sinks/http/json_typecast.h"
#include "sink/sinks/http/message_to_json.h"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/recording_metrics.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::FindGenerated;
using ::sluice::sink::testing::HttpTestServer;
using ::sluice::sink::testing::RecordingMetrics;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

constexpr int64_t kMar20201710h54 = 1490007240;  // 2017-03-20T10:54:00Z

Message Record(int64_t offset, const std::string& order, int64_t seconds) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(5);
  pb->mutable_address()->set_city("Pune");
  pb->mutable_address()->set_zip(411001);
  pb->mutable_event_timestamp()->set_seconds(seconds);
  pb->mutable_event_timestamp()->set_nanos(250000000);
  Message m;
  m.topic = "orders";
  m.offset = offset;
  m.value = pb->SerializeAsString();
  m.decoded = pb;
  return m;
}

class HttpFirehoseJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = HttpTestServer::Start();
    ASSERT_TRUE(server.ok());
    server_ = *std::move(server);
  }
  absl::StatusOr<std::unique_ptr<Sink>> Make(std::map<std::string, std::string> vars) {
    vars["SINK_HTTP_SERVICE_URL"] = server_->url();
    vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
    env_ = Env(std::move(vars));
    return CreateFromContext<HttpSink>(SinkContext{&env_, &metrics_, &FindGenerated});
  }
  // The logMessage JSON of the first element of the one request's body.
  nlohmann::json LogMessage() {
    auto body = nlohmann::json::parse(server_->requests().at(0).body);
    return nlohmann::json::parse(body[0]["logMessage"].get<std::string>());
  }
  std::unique_ptr<HttpTestServer> server_;
  Env env_;
  RecordingMetrics metrics_;
};

// Firehose's MessageToJsonTest expects "Mar 20, 2017 10:54:00 AM".
TEST(GsonDateTextTest, MatchesFirehoseExpectations) {
  EXPECT_EQ(GsonDateText(kMar20201710h54), "Mar 20, 2017 10:54:00 AM");
  EXPECT_EQ(GsonDateText(kMar20201710h54 + 60), "Mar 20, 2017 10:55:00 AM");
  EXPECT_EQ(GsonDateText(kMar20201710h54 + 5 * 3600 + 11), "Mar 20, 2017 3:54:11 PM");
  EXPECT_EQ(GsonDateText(kMar20201710h54 - 10 * 3600 - 54 * 60), "Mar 20, 2017 12:00:00 AM");
  // SimpleDateFormat's "hh" reads 12 as hour 0: Firehose prints noon as AM.
  EXPECT_EQ(GsonDateText(kMar20201710h54 + 3600 + 6 * 60), "Mar 20, 2017 12:00:00 AM");
}

TEST_F(HttpFirehoseJsonTest, SimpleDateFormatIsTheDefault) {
  auto sink = Make({{"SINK_HTTP_DATA_FORMAT", "json"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Record(1, "A", kMar20201710h54)}).empty());
  auto msg = LogMessage();
  EXPECT_EQ(msg["eventTimestamp"], "Mar 20, 2017 10:54:00 AM");
  EXPECT_EQ(msg["address"]["city"], "Pune");
}

TEST_F(HttpFirehoseJsonTest, SimpleDateFormatDisabledKeepsRfc3339) {
  auto sink = Make({{"SINK_HTTP_DATA_FORMAT", "json"},
                    {"SINK_HTTP_SIMPLE_DATE_FORMAT_ENABLE", "false"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Record(1, "A", kMar20201710h54)}).empty());
  EXPECT_EQ(LogMessage()["eventTimestamp"], "2017-03-20T10:54:00.250Z");
}

TEST_F(HttpFirehoseJsonTest, TypecastChangesTemplatedValues) {
  auto sink = Make(
      {{"SINK_HTTP_DATA_FORMAT", "json"},
       {"SINK_HTTP_JSON_BODY_TEMPLATE", R"({"id":"$.order_number","amount":"$.amount","zip":"$.address.zip"})"},
       {"SINK_HTTP_SERIALIZER_JSON_TYPECAST",
        R"([{"jsonPath":"$.amount","type":"LONG"},{"jsonPath":"$..zip","type":"STRING"}])"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Record(1, "A", kMar20201710h54)}).empty());
  auto body = nlohmann::json::parse(server_->requests().at(0).body);
  EXPECT_EQ(body[0]["amount"], 5);  // proto3 JSON gives "5"; the cast makes it a number
  EXPECT_EQ(body[0]["zip"], "411001");
  EXPECT_EQ(body[0]["id"], "A");
}

TEST_F(HttpFirehoseJsonTest, TypecastFailureFailsTheRecordAlone) {
  auto sink = Make({{"SINK_HTTP_DATA_FORMAT", "json"},
                    {"SINK_HTTP_JSON_BODY_TEMPLATE", R"({"id":"$.order_number"})"},
                    {"SINK_HTTP_SERIALIZER_JSON_TYPECAST", R"([{"jsonPath":"$.id","type":"INTEGER"}])"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({Record(1, "A", 1), Record(2, "42", 1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, ErrorType::kInvalidMessageError);
  auto body = nlohmann::json::parse(server_->requests().at(0).body);
  EXPECT_EQ(body[0]["id"], 42);
}

TEST_F(HttpFirehoseJsonTest, TypecastConfigErrorsNameTheVariable) {
  for (const char* bad : {"{", R"([{"jsonPath":"$.a"}])", R"([{"jsonPath":"$.a","type":"BYTE"}])",
                          R"([{"jsonPath":"$.a[*]","type":"LONG"}])"}) {
    auto sink = Make({{"SINK_HTTP_SERIALIZER_JSON_TYPECAST", bad}});
    ASSERT_FALSE(sink.ok()) << bad;
    EXPECT_THAT(sink.status().message(), HasSubstr("SINK_HTTP_SERIALIZER_JSON_TYPECAST")) << bad;
  }
}

TEST_F(HttpFirehoseJsonTest, ParseOptionSuppressExceptionsLeavesTheSlotEmpty) {
  const std::string tmpl = R"({"test":"$.order_number", "test2":"$.xyz"})";
  auto strict = Make({{"SINK_HTTP_DATA_FORMAT", "json"}, {"SINK_HTTP_JSON_BODY_TEMPLATE", tmpl}});
  ASSERT_TRUE(strict.ok());
  auto failed = (*strict)->Push({Record(1, "BIKE", 1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kDeserializationError);

  auto lenient = Make({{"SINK_HTTP_DATA_FORMAT", "json"},
                       {"SINK_HTTP_JSON_BODY_TEMPLATE", tmpl},
                       {"SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION", "suppress_exceptions"}});
  ASSERT_TRUE(lenient.ok()) << lenient.status();
  EXPECT_TRUE((*lenient)->Push({Record(1, "BIKE", 1)}).empty());
  // Firehose's MessageToTemplatizedJsonTest expectation, byte for byte.
  EXPECT_EQ(server_->requests().at(0).body, R"([{"test":"BIKE", "test2":}])");
}

TEST_F(HttpFirehoseJsonTest, ParseOptionLeafToNullOnlyForTheLastStep) {
  auto t = JsonTemplate::Parse(R"({"a":"$.x","b":"$.y.z"})",
                               JsonTemplate::ParseOption::kDefaultPathLeafToNull);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->Render(R"({})").ok());
  auto out = t->Render(R"({"y":{}})");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, R"({"a":,"b":})");
  auto list = JsonTemplate::Parse(R"({"a":"$.x"})", JsonTemplate::ParseOption::kAlwaysReturnList);
  EXPECT_EQ(*list->Render(R"({"x":1})"), R"({"a":[1]})");
}

TEST_F(HttpFirehoseJsonTest, ParseOptionUnknownIsRefusedByName) {
  auto sink = Make({{"SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION", "LENIENT"}});
  ASSERT_FALSE(sink.ok());
  EXPECT_THAT(sink.status().message(), HasSubstr("SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION"));
  EXPECT_THAT(sink.status().message(), HasSubstr("SUPPRESS_EXCEPTIONS"));
}

TEST_F(HttpFirehoseJsonTest, DeleteBodyEnabledByDefault) {
  auto sink = Make({{"SINK_HTTP_REQUEST_METHOD", "delete"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Record(1, "A", 1)}).empty());
  auto req = server_->requests().at(0);
  EXPECT_EQ(req.method, "DELETE");
  EXPECT_THAT(req.body, HasSubstr("log_message"));
}

TEST_F(HttpFirehoseJsonTest, DeleteBodyDisabledSendsNoBody) {
  auto sink = Make({{"SINK_HTTP_REQUEST_METHOD", "delete"}, {"SINK_HTTP_DELETE_BODY_ENABLE", "false"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Record(1, "A", 1)}).empty());
  auto req = server_->requests().at(0);
  EXPECT_EQ(req.method, "DELETE");
  EXPECT_EQ(req.body, "");
  EXPECT_EQ(req.Header("content-length"), "");
}

}  // namespace
}  // namespace sluice::sink
