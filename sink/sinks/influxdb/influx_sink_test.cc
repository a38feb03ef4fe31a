// The InfluxDB sink against a real influxd 1.x (Debian's), read back with the
// influx CLI.
#include "sink/sinks/influxdb/influx_sink.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/influx_test_server.h"
#include "sink/sinks/testing/generated_pool.h"

namespace sluice::sink {
namespace {

// The influxdb sink's outcomes and goto Firehose's types
// (error_type_table.h). InfluxSink sets no type (firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:70 -> message/Message.java:33-36).
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/influxdb/InfluxSink.java:67 client.write throws,
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53 (was SINK_4XX_ERROR)
      {"point rejected by InfluxDB", ErrorType::kDefaultError},
      // sluice only: one bad record fails alone (Firehose fails the batch);
      // README "Switching from Firehose"
      {"record unusable", ErrorType::kInvalidMessageError},
  });
  return *table;
}


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
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("point rejected by InfluxDB"));
  EXPECT_THAT(failed[0].error, HasSubstr("field type conflict"));
  std::string fares = server_->Query("SELECT fare FROM \\\"booking events\\\"");
  EXPECT_THAT(fares, HasSubstr("1714557600003000000,1.5")) << fares;
  EXPECT_THAT(fares, HasSubstr("1714557600005000000,2.5")) << fares;
}

// Finding F-L2 against the real influxd: one record carrying each special
// character in its tags and string field is one point, read back as sent;
// the record with a newline in a tag (before the fix it wrote a second point
// into measurement "mem_used") is refused and writes nothing.
TEST_F(InfluxSinkTest, SpecialCharactersRoundTripAndCannotInjectPoints) {
  auto sink = MakeSink({{"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", R"({"note":"note"})"},
                        {"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"host":"host","path":"path"})"},
                        {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "ts"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto json = [](int64_t offset, nlohmann::json j) {
    Message m;
    m.offset = offset;
    m.json = std::make_shared<const nlohmann::json>(std::move(j));
    return m;
  };
  auto failed = (*sink)->Push(
      {json(0, {{"host", "a,b=c d"}, {"path", "C:\\dir"}, {"note", "q\"uote \\ back\nslash"}, {"ts", 1714557600000}}),
       json(1, {{"host", "web1\nmem_used"}, {"path", "x"}, {"note", "n"}, {"ts", 1714557600001}}),
       json(2, {{"host", "ok"}, {"path", "p"}, {"note", "n"}, {"ts", 1714557600002}})});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("record unusable"));
  EXPECT_THAT(failed[0].error, HasSubstr("tag \"host\""));
  std::string out = server_->Query("SELECT host, path, note FROM \\\"booking events\\\" ORDER BY time");
  EXPECT_THAT(out, HasSubstr("1714557600000000000,\"a,b=c d\",C:\\dir,\"q\"\"uote \\ back\nslash\"")) << out;
  EXPECT_THAT(out, HasSubstr("1714557600002000000,ok,p,n")) << out;
  EXPECT_THAT(out, ::testing::Not(HasSubstr("1714557600001"))) << out;
  EXPECT_THAT(server_->Query("SHOW MEASUREMENTS"), ::testing::Not(HasSubstr("mem_used")));
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

// Finding F-L2: a backslash run that would escape the separator after it (or
// the escape sluice adds) gets one more backslash, so it escapes itself; a
// backslash before an ordinary character stays as it is (InfluxDB 1.x keeps
// it literally).
TEST(LineProtocol, BackslashesNeverEscapeASeparator) {
  EXPECT_EQ(EscapeKey(R"(C:\dir)"), R"(C:\dir)");
  EXPECT_EQ(EscapeKey(R"(end\)"), R"(end\\)");
  EXPECT_EQ(EscapeKey(R"(two\\)"), R"(two\\)");
  EXPECT_EQ(EscapeKey(R"(a\,b)"), R"(a\\\,b)");
  EXPECT_EQ(EscapeKey(R"(a\=b)"), R"(a\\\=b)");
  EXPECT_EQ(EscapeKey(R"(a\ b)"), R"(a\\\ b)");
  EXPECT_EQ(EscapeMeasurement(R"(m\)"), R"(m\\)");
  EXPECT_EQ(EscapeMeasurement(R"(m\=)"), R"(m\=)");  // "=" is plain in a measurement
}

// Captures the /write bodies.
class CapturingHttp : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& req) override {
    bodies.push_back(req.body);
    return HttpResult{204, ""};
  }
  std::vector<std::string> bodies;
};

Message JsonMessage(int64_t offset, const nlohmann::json& j) {
  Message m;
  m.offset = offset;
  m.json = std::make_shared<const nlohmann::json>(j);
  return m;
}

// Finding F-L2: every line-protocol special character in a record's tag and
// string field values is escaped, so a record writes exactly its own point; a
// tag value with a newline or carriage return (which line protocol cannot
// escape) fails that record alone as INVALID_MESSAGE_ERROR naming the tag.
TEST(InfluxLineBuilderTest, EscapesEachSpecialCharacterAndRefusesLineBreaksInTags) {
  NoopMetrics metrics;
  Env env({{"SINK_INFLUX_URL", "http://127.0.0.1:1"},
           {"SINK_INFLUX_DB_NAME", "d"},
           {"SINK_INFLUX_MEASUREMENT_NAME", "cpu load"},
           {"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", R"({"v":"usage","note":"the note"})"},
           {"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"host":"host","region":"region"})"},
           {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "ts"}});
  auto config = InfluxSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
  ASSERT_TRUE(config.ok()) << config.status();
  auto http = std::make_shared<CapturingHttp>();
  auto sink = InfluxSink::Create(*config, &metrics, http);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto rec = [](int64_t off, const std::string& host, const std::string& note) {
    return JsonMessage(off, {{"host", host}, {"region", "eu"}, {"v", 99.5}, {"note", note}, {"ts", 1700000000000}});
  };
  auto failed = (*sink)->Push({
      rec(0, "a,b", "x"), rec(1, "a=b", "x"), rec(2, "a b", "x"), rec(3, "a\\", "x"),
      rec(4, "web1\nmem_used", "x"), rec(5, "web1\rmem_used", "x"),
      rec(6, "h", "say \"hi\" \\o/"), rec(7, "h", "two\nlines"),
  });
  ASSERT_EQ(failed.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(failed[i].message.offset, 4 + i);
    EXPECT_EQ(failed[i].error_type, FirehoseTypes()("record unusable"));
    EXPECT_THAT(failed[i].error, HasSubstr("tag \"host\""));
    EXPECT_THAT(failed[i].error, HasSubstr("newline or carriage return"));
  }
  ASSERT_EQ(http->bodies.size(), 1u);
  EXPECT_EQ(http->bodies[0],
            "cpu\\ load,host=a\\,b,region=eu the\\ note=\"x\",usage=99.5 1700000000000\n"
            "cpu\\ load,host=a\\=b,region=eu the\\ note=\"x\",usage=99.5 1700000000000\n"
            "cpu\\ load,host=a\\ b,region=eu the\\ note=\"x\",usage=99.5 1700000000000\n"
            "cpu\\ load,host=a\\\\,region=eu the\\ note=\"x\",usage=99.5 1700000000000\n"
            "cpu\\ load,host=h,region=eu the\\ note=\"say \\\"hi\\\" \\\\o/\",usage=99.5 1700000000000\n"
            "cpu\\ load,host=h,region=eu the\\ note=\"two\nlines\",usage=99.5 1700000000000");
}

// Names from the configuration (measurement, tag and field keys) with a line
// break are refused at start, naming the variable.
TEST(InfluxSinkConfigTest, LineBreaksInNamesAreRefused) {
  NoopMetrics metrics;
  std::map<std::string, std::string> base = {
      {"SINK_INFLUX_URL", "http://h:8086"},
      {"SINK_INFLUX_DB_NAME", "d"},
      {"SINK_INFLUX_MEASUREMENT_NAME", "m"},
      {"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", R"({"a":"a"})"},
      {"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"t":"t"})"},
      {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "ts"}};
  for (auto [var, value] : {std::pair{"SINK_INFLUX_MEASUREMENT_NAME", "m\nevil"},
                            std::pair{"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", R"({"a":"a\nb"})"},
                            std::pair{"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"t":"t\rb"})"}}) {
    auto vars = base;
    vars[var] = value;
    Env env(vars);
    auto c = InfluxSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
    EXPECT_TRUE(absl::IsInvalidArgument(c.status())) << var;
    EXPECT_THAT(c.status().message(), HasSubstr(var));
  }
}

}  // namespace
}  // namespace sluice::sink
