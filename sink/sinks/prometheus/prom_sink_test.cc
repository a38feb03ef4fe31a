// The Prometheus remote-write sink against a real prometheus (Debian's) with
// --web.enable-remote-write-receiver, read back through /api/v1/query.
#include "sink/sinks/prometheus/prom_sink.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/prometheus_test_server.h"
#include "sink/sinks/testing/recording_metrics.h"
#include "sink/sinks/testing/generated_pool.h"

namespace sluice::sink {
namespace {

// The prometheus sink's outcomes and goto Firehose's types
// (error_type_table.h). PromSink is an AbstractHttpSink and sets no type:
// DEFAULT_ERROR (firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:70 -> message/Message.java:33-36).
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/common/AbstractHttpSink.java:53 httpClient.execute throws,
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53 (was SINK_RETRYABLE_ERROR)
      {"server unreachable", ErrorType::kDefaultError},
      // sluice only: one bad record fails alone (Firehose fails the batch);
      // README "Switching from Firehose"
      {"record value not a number", ErrorType::kInvalidMessageError},
  });
  return *table;
}


using ::sluice::sink::testing::FindGenerated;

using ::sluice::sink::testing::PrometheusTestServer;
using ::sluice::sink::testing::RecordingMetrics;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

Message Proto(int64_t offset, const std::string& order, int64_t amount, int64_t ms) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  pb->set_amount(amount);
  pb->set_price(9.5);
  pb->mutable_address()->set_city("Pune");
  pb->mutable_event_timestamp()->set_seconds(ms / 1000);
  pb->mutable_event_timestamp()->set_nanos((ms % 1000) * 1000000);
  Message m;
  m.offset = offset;
  m.partition = 3;
  m.decoded = pb;
  return m;
}

// The value of the single series `promql` selects at `ms`, or "" when none.
std::string ValueAt(const PrometheusTestServer& p, const std::string& promql, int64_t ms) {
  nlohmann::json j = nlohmann::json::parse(p.Query(promql, ms / 1000.0), nullptr, false);
  if (j.is_discarded() || j["status"] != "success" || j["data"]["result"].empty()) return "";
  return j["data"]["result"][0]["value"][1].get<std::string>();
}

class PromSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = PrometheusTestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  absl::StatusOr<std::unique_ptr<Sink>> MakeSink(std::map<std::string, std::string> vars, bool json) {
    vars["SINK_PROM_SERVICE_URL"] = server_->write_url();
    if (!json) vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
    env_ = Env(vars);
    SinkContext ctx{&env_, &metrics_, nullptr};
    if (!json) ctx.find_message = &FindGenerated;
    return CreateFromContext<PromSink>(ctx);
  }
  std::unique_ptr<PrometheusTestServer> server_;
  Env env_;
  RecordingMetrics metrics_;
};

TEST_F(PromSinkTest, FirehoseMappingsBecomeSeriesWithEventTimestamps) {
  auto sink = MakeSink({{"SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING", R"({"2":"order_amount","8":"order_price"})"},
                        {"SINK_PROM_LABEL_NAME_PROTO_INDEX_MAPPING", R"({"1":"order_number","4":{"1":"city"}})"},
                        {"SINK_PROM_WITH_EVENT_TIMESTAMP", "true"},
                        {"SINK_PROM_PROTO_EVENT_TIMESTAMP_INDEX", "5"}},
                       false);
  ASSERT_TRUE(sink.ok()) << sink.status();
  const int64_t t = absl::ToUnixMillis(absl::Now()) - 60000;
  EXPECT_TRUE((*sink)->Push({Proto(1, "A", 10, t), Proto(2, "B", 20, t + 1000)}).empty());
  EXPECT_EQ(ValueAt(*server_, R"(order_amount{order_number="A",city="Pune",kafka_partition="3"})", t), "10");
  EXPECT_EQ(ValueAt(*server_, R"(order_amount{order_number="B"})", t + 1000), "20");
  EXPECT_EQ(ValueAt(*server_, R"(order_price{order_number="B"})", t + 1000), "9.5");

  // An older sample for an existing series: Prometheus refuses it as out of
  // order; the remote-write spec says not to retry, so the batch is done and
  // the drop is counted.
  auto failed = (*sink)->Push({Proto(3, "A", 99, t - 30000)});
  EXPECT_TRUE(failed.empty()) << failed[0].error;
  EXPECT_EQ(metrics_.Sum("firehose_sink_messages_drop_total", {"cause", "rejected_samples"}), 1);
  EXPECT_EQ(ValueAt(*server_, R"(order_amount{order_number="A"})", t), "10");
}

TEST_F(PromSinkTest, JsonInputAndABadRecordFailsAloneAndAStoppedServerIsRetryable) {
  auto sink = MakeSink({{"SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING", R"({"fare":"ride_fare"})"},
                        {"SINK_PROM_LABEL_NAME_PROTO_INDEX_MAPPING", R"({"driver":{"name":"driver"}})"}},
                       true);
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto json = [](int64_t offset, const std::string& text) {
    Message m;
    m.offset = offset;
    m.json = std::make_shared<const nlohmann::json>(nlohmann::json::parse(text));
    return m;
  };
  auto failed = (*sink)->Push({json(0, R"({"fare":12.5,"driver":{"name":"ana"}})"),
                               json(1, R"({"fare":"cheap","driver":{"name":"bo"}})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("record value not a number"));
  EXPECT_THAT(failed[0].error, HasSubstr("not a number"));
  EXPECT_EQ(ValueAt(*server_, R"(ride_fare{driver="ana"})", absl::ToUnixMillis(absl::Now())), "12.5");

  server_->Kill();
  failed = (*sink)->Push({json(2, R"({"fare":1,"driver":{"name":"cy"}})")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("server unreachable"));
}

TEST(PromSinkConfigTest, ErrorsNameTheVariable) {
  testing::RecordingMetrics metrics;
  std::map<std::string, std::string> base = {{"SINK_PROM_SERVICE_URL", "http://h/api/v1/write"},
                                             {"SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING", R"({"a":"a"})"}};
  struct Case {
    std::string var, value, want;
  } cases[] = {
      {"SINK_PROM_SERVICE_URL", "gopher://h", "http:// or https://"},
      {"SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING", "{}", "non-empty JSON object"},
      {"SINK_PROM_RETRY_STATUS_CODE_RANGES", "500", "bad range"},
      {"SINK_PROM_HEADERS", "NoColon", "is not name:value"},
      {"SINK_PROM_WITH_EVENT_TIMESTAMP", "true", "needs SINK_PROM_PROTO_EVENT_TIMESTAMP_INDEX"},
  };
  for (const Case& c : cases) {
    auto vars = base;
    vars[c.var] = c.value;
    Env env(vars);
    auto config = PromSinkConfig::FromEnv(env, SinkContext{&env, &metrics, nullptr});
    ASSERT_FALSE(config.ok()) << c.var;
    EXPECT_THAT(config.status().message(), HasSubstr(c.want)) << c.var;
  }
}

}  // namespace
}  // namespace sluice::sink
