// The InfluxDB sink against a real influxd 1.x (Debian's), read back with the
// influx CLI.
#include "sink/sinks/influxdb/influx_sink.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/influx_test_server.h"
#include "sink/sinks/testing/generated_pool.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::FindGenerated;

using ::sluice::sink::testing::InfluxTestServer;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

Message Proto(int64_t offset, const std::string& order, const std::string& city, int64_t ms) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(offset * 10);
  pb->set_price(9.5);
  pb->set_paid(offset % 2 == 0);
  pb->set_status(sluice::sink::testing::ACTIVE);
  pb->mutable_address()->set_city(city);
  pb->mutable_event_timestamp()->set_seconds(ms / 1000);
  pb->mutable_event_timestamp()->set_nanos((ms % 1000) * 1000000);
  Message m;
  m.offset = offset;
  m.decoded = pb;
  return m;
}

class InfluxSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = InfluxTestServer::Start("rides");
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  absl::StatusOr<std::unique_ptr<Sink>> MakeSink(std::map<std::string, std::string> vars, bool json) {
    vars["SINK_INFLUX_URL"] = server_->url();
    vars["SINK_INFLUX_USERNAME"] = InfluxTestServer::kUser;
    vars["SINK_INFLUX_PASSWORD"] = InfluxTestServer::kPassword;
    vars["SINK_INFLUX_DB_NAME"] = "rides";
    vars["SINK_INFLUX_MEASUREMENT_NAME"] = "booking events";
    if (!json) vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
    env_ = Env(vars);
    SinkContext ctx{&env_, &metrics_, nullptr};
    if (!json) ctx.find_message = &FindGenerated;
    return CreateFromContext<InfluxSink>(ctx);
  }
  std::unique_ptr<InfluxTestServer> server_;
  Env env_;
  NoopMetrics metrics_;
};

TEST_F(InfluxSinkTest, FirehoseProtoIndexMappingsBecomeTypedFieldsAndTags) {
  auto sink = MakeSink({{"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING",
                         R"({"1":"order_number","2":"amount","8":"price","9":"paid","3":"status"})"},
                        {"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"4":{"1":"city"}})"},
                        {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "5"}},
                       false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Proto(1, "A", "New Delhi", 1714557600123),
                             Proto(2, "B", "Goa", 1714557601000)})
                  .empty());
  std::string out = server_->Query(
      "SELECT order_number, amount, price, paid, status, city FROM \\\"booking events\\\" ORDER BY time");
  EXPECT_THAT(out, HasSubstr("1714557600123000000,A,10,9.5,false,ACTIVE,New Delhi")) << out;
  EXPECT_THAT(out, HasSubstr("1714557601000000000,B,20,9.5,true,ACTIVE,Goa")) << out;
  // Types as Firehose writes them: integers, floats, booleans, strings.
  std::string types = server_->Query("SHOW FIELD KEYS FROM \\\"booking events\\\"");
  EXPECT_THAT(types, HasSubstr("amount,integer"));
  EXPECT_THAT(types, HasSubstr("price,float"));
  EXPECT_THAT(types, HasSubstr("paid,boolean"));
  EXPECT_THAT(types, HasSubstr("order_number,string"));
  EXPECT_THAT(server_->Query("SHOW TAG KEYS FROM \\\"booking events\\\""), HasSubstr("city"));
}

TEST_F(InfluxSinkTest, JsonInputByNameAndErrorsPerMessageOrBatch) {
  auto sink = MakeSink({{"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", R"({"fare":"fare","note":"note"})"},
                        {"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"driver":{"name":"driver"}})"},
                        {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "ts"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto json = [](int64_t offset, const std::string& text) {
    Message m;
    m.offset = offset;
    m.json = std::make_shared<const nlohmann::json>(nlohmann::json::parse(text));
    return m;
  };
  auto failed = (*sink)->Push({json(0, R"({"fare":12.5,"note":"a \"q\", b=c","driver":{"name":"ana b"},"ts":1714557600000})"),
                               json(1, R"({"fare":3.5})"), json(2, R"({"driver":{"name":"x"},"ts":1714557600001})")});
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_THAT(failed[0].error, HasSubstr("event timestamp \"ts\" is absent"));
  EXPECT_EQ(failed[1].message.offset, 2);
  EXPECT_THAT(failed[1].error, HasSubstr("no mapped field has a value"));
  std::string out = server_->Query("SELECT fare, note, driver FROM \\\"booking events\\\"");
  EXPECT_THAT(out, HasSubstr(R"(12.5,"a ""q"", b=c",ana b)")) << out;

  // A field type conflict (fare is a float now) fails that point alone, with
  // InfluxDB's reason; the others of the batch are written.
  failed = (*sink)->Push({json(3, R"({"fare":1.5,"ts":1714557600003})"),
                          json(4, R"({"fare":"cheap","ts":1714557600004})"),
                          json(5, R"({"fare":2.5,"ts":1714557600005})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 4);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSink4xxError);
  EXPECT_THAT(failed[0].error, HasSubstr("field type conflict"));
  std::string fares = server_->Query("SELECT fare FROM \\\"booking events\\\"");
  EXPECT_THAT(fares, HasSubstr("1714557600003000000,1.5")) << fares;
  EXPECT_THAT(fares, HasSubstr("1714557600005000000,2.5")) << fares;
}

TEST(InfluxSinkConfigTest, ErrorsNameTheVariable) {
  NoopMetrics metrics;
  std::map<std::string, std::string> base = {
      {"SINK_INFLUX_URL", "http://h:8086"},
      {"SINK_INFLUX_DB_NAME", "d"},
      {"SINK_INFLUX_MEASUREMENT_NAME", "m"},
      {"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", R"({"a":"a"})"},
      {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "ts"}};
  for (const char* missing : {"SINK_INFLUX_URL", "SINK_INFLUX_DB_NAME", "SINK_INFLUX_MEASUREMENT_NAME",
                              "SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING",
                              "SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX"}) {
    auto vars = base;
    vars.erase(missing);
    Env env(vars);
    auto c = InfluxSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
    ASSERT_FALSE(c.ok()) << missing;
    EXPECT_THAT(c.status().message(), HasSubstr(missing));
  }
  auto vars = base;
  vars["SINK_INFLUX_URL"] = "file:///etc/passwd";
  Env env(vars);
  EXPECT_THAT(InfluxSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr}).status().message(),
              HasSubstr("http:// or https://"));
  vars = base;
  vars["SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING"] = R"({"2":"amount"})";
  env = Env(vars);
  EXPECT_THAT(InfluxSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr}).status().message(),
              HasSubstr("is a proto field number, but the input is JSON"));
}

TEST(LineProtocol, Escaping) {
  EXPECT_EQ(EscapeMeasurement("a b,c=d"), "a\\ b\\,c=d");
  EXPECT_EQ(EscapeKey("a b,c=d"), "a\\ b\\,c\\=d");
  EXPECT_EQ(QuoteFieldString(R"(say "hi" \o/)"), R"("say \"hi\" \\o/")");
}

}  // namespace
}  // namespace sluice::sink
