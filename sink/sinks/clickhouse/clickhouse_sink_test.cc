// The ClickHouse sink against a real clickhouse-server (Debian's), read back
// with clickhouse-client.
#include "sink/sinks/clickhouse/clickhouse_sink.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/clickhouse_test_server.h"
#include "sink/sinks/testing/generated_pool.h"
#include "sink/sinks/testing/json_message.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::FindGenerated;

using ::sluice::sink::testing::ClickHouseTestServer;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

Message Proto(int64_t offset, const std::string& order, int64_t amount) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(amount);
  pb->set_price(9.5);
  pb->set_paid(true);
  pb->set_status(sluice::sink::testing::ACTIVE);
  pb->mutable_address()->set_city("Pune");
  pb->mutable_event_timestamp()->set_seconds(1714557600 + offset);
  pb->add_tags("a");
  Message m;
  m.offset = offset;
  m.decoded = pb;
  return m;
}

Message Json(int64_t offset, const std::string& text) {
  return ::sluice::sink::testing::JsonMessage(offset, text);
}

class ClickHouseSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ClickHouseTestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ASSERT_EQ(server_->Query("CREATE TABLE orders (order_number String, amount UInt64, price Float64, "
                             "paid UInt8, status String, city String, ts DateTime, tags String) "
                             "ENGINE = MergeTree ORDER BY order_number"),
              "");
  }
  absl::StatusOr<std::unique_ptr<Sink>> MakeSink(std::map<std::string, std::string> vars, bool json) {
    vars["SINK_CLICKHOUSE_URL"] = server_->url();
    vars["SINK_CLICKHOUSE_TABLE_NAME"] = "orders";
    if (!json) vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
    env_ = Env(vars);
    SinkContext ctx{&env_, &metrics_, nullptr};
    if (!json) ctx.find_message = &FindGenerated;
    return CreateFromContext<ClickHouseSink>(ctx);
  }
  std::unique_ptr<ClickHouseTestServer> server_;
  Env env_;
  NoopMetrics metrics_;
};

TEST_F(ClickHouseSinkTest, ProtobufRowsWithJdbcsColumnMapping) {
  auto sink = MakeSink({{"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING",
                         R"({"1":"order_number","2":"amount","8":"price","9":"paid","3":"status",)"
                         R"("4":{"1":"city"},"5":"ts","6":"tags"})"}},
                       false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  EXPECT_TRUE((*sink)->Push({Proto(0, "A", 10), Proto(1, "B", 20)}).empty());
  EXPECT_EQ(server_->Query("SELECT order_number, amount, price, paid, status, city, toUnixTimestamp(ts), "
                           "tags FROM orders ORDER BY order_number FORMAT CSV"),
            "\"A\",10,9.5,1,\"ACTIVE\",\"Pune\",1714557600,\"[\"\"a\"\"]\"\n"
            "\"B\",20,9.5,1,\"ACTIVE\",\"Pune\",1714557601,\"[\"\"a\"\"]\"\n");
}

TEST_F(ClickHouseSinkTest, JsonRowsAndABadRowFailsAlone) {
  auto sink = MakeSink({{"INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING",
                         R"({"order":"order_number","amount":"amount","driver":{"city":"city"}})"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({Json(0, R"({"order":"A","amount":1,"driver":{"city":"Goa"}})"),
                               Json(1, R"({"order":"B","amount":"lots"})"),
                               Json(2, R"({"order":"C","amount":3})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSink4xxError);
  EXPECT_THAT(failed[0].error, HasSubstr("Cannot parse input"));
  EXPECT_EQ(server_->Query("SELECT order_number, amount, city FROM orders ORDER BY order_number FORMAT CSV"),
            "\"A\",1,\"Goa\"\n\"C\",3,\"\"\n");
}

TEST_F(ClickHouseSinkTest, AStoppedServerIsRetryable) {
  auto sink = MakeSink({{"INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", R"({"order":"order_number"})"}}, true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  server_->Kill();
  auto failed = (*sink)->Push({Json(0, R"({"order":"A"})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSinkRetryableError);
}

TEST(ClickHouseSinkConfigTest, ErrorsNameTheVariable) {
  NoopMetrics metrics;
  std::map<std::string, std::string> base = {{"SINK_CLICKHOUSE_URL", "http://h:8123"},
                                             {"SINK_CLICKHOUSE_TABLE_NAME", "t"},
                                             {"INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", R"({"a":"a"})"}};
  for (const char* missing :
       {"SINK_CLICKHOUSE_URL", "SINK_CLICKHOUSE_TABLE_NAME", "INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING"}) {
    auto vars = base;
    vars.erase(missing);
    Env env(vars);
    auto c = ClickHouseSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
    ASSERT_FALSE(c.ok()) << missing;
    EXPECT_THAT(c.status().message(), HasSubstr(missing));
  }
  auto vars = base;
  vars["SINK_CLICKHOUSE_URL"] = "ftp://h";
  Env env(vars);
  EXPECT_THAT(ClickHouseSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr}).status().message(),
              HasSubstr("http:// or https://"));
}

}  // namespace
}  // namespace sluice::sink
