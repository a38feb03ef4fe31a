#include "sink/filter/timestamp_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sink/sample/sample_gen.h"

namespace sluice::sink {
namespace {

using ::sluice::sample::SampleLogMessage;
using ::testing::HasSubstr;

constexpr int64_t kNow = 1'700'000'000;  // seconds

class TimestampFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_.urls = {"file://sink/sample/sample_cc.desc"};
    schema_.proto_class = "sluice.sample.SampleLogMessage";
    auto registry = SchemaRegistry::Create(schema_);
    ASSERT_TRUE(registry.ok()) << registry.status();
    registry_ = *std::move(registry);
    config_.engine = FilterConfig::Engine::kTimestamp;
    config_.proto_class = schema_.proto_class;
  }
  absl::StatusOr<std::unique_ptr<TimestampFilter>> Make() {
    return TimestampFilter::Create(config_, schema_, registry_.get(),
                                   [] { return absl::FromUnixSeconds(kNow); });
  }
  static Message Record(int64_t offset, const SampleLogMessage& pb) {
    Message m;
    m.offset = offset;
    m.value = pb.SerializeAsString();
    return m;
  }
  static SampleLogMessage At(int64_t seconds) {
    SampleLogMessage pb;
    pb.set_order_number("o");
    pb.mutable_event_timestamp()->set_seconds(seconds);
    return pb;
  }
  static std::vector<int64_t> Offsets(const std::vector<Message>& batch) {
    std::vector<int64_t> out;
    for (const Message& m : batch) out.push_back(m.offset);
    return out;
  }
  SchemaConfig schema_;
  std::unique_ptr<SchemaRegistry> registry_;
  FilterConfig config_;
};

TEST_F(TimestampFilterTest, KeepsRecordsInsideTheWindowWithFirehoseDefaults) {
  auto f = Make();
  ASSERT_TRUE(f.ok()) << f.status();
  SampleLogMessage unset;
  unset.set_order_number("no time");
  std::vector<Message> batch = {
      Record(0, At(kNow)),
      Record(1, At(kNow - 604800)),      // exactly the past bound: kept
      Record(2, At(kNow - 604801)),      // too old
      Record(3, At(kNow + 604800)),      // exactly the future bound: kept
      Record(4, At(kNow + 604801)),      // too far in the future
      Record(5, unset),                  // field unset: dropped
  };
  batch.push_back(Message{});            // empty data: dropped
  batch.back().offset = 6;
  std::vector<FailedMessage> failed;
  EXPECT_EQ((*f)->Apply(&batch, &failed), 4);
  EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_TRUE(failed.empty());
}

TEST_F(TimestampFilterTest, WindowsAndIntegerAndStringFields) {
  config_.timestamp_past_window_seconds = 10;
  config_.timestamp_future_window_seconds = 0;
  config_.timestamp_field = "amount_paid_cents";  // int64 seconds
  auto f = Make();
  ASSERT_TRUE(f.ok()) << f.status();
  SampleLogMessage a, b, c;
  a.set_amount_paid_cents(kNow - 5);
  b.set_amount_paid_cents(kNow + 1);
  c.set_amount_paid_cents(kNow - 11);
  std::vector<Message> batch = {Record(0, a), Record(1, b), Record(2, c)};
  std::vector<FailedMessage> failed;
  (*f)->Apply(&batch, &failed);
  EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{0}));

  config_.timestamp_field = "driver_id";  // a string: seconds or an RFC 3339 instant
  f = Make();
  ASSERT_TRUE(f.ok()) << f.status();
  SampleLogMessage s1, s2, s3;
  s1.set_driver_id(std::to_string(kNow - 1));
  s2.set_driver_id("2023-11-14T22:13:15Z");  // kNow - 5
  s3.set_driver_id("yesterday");
  batch = {Record(0, s1), Record(1, s2), Record(2, s3)};
  failed.clear();
  (*f)->Apply(&batch, &failed);
  EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{0, 1}));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 2);
  EXPECT_EQ(failed[0].error_type, ErrorType::kInvalidMessageError);
}

TEST_F(TimestampFilterTest, DropDeserializationErrorDropsUndecodableAndUnreadableRecords) {
  SampleLogMessage bad_time;
  bad_time.mutable_event_timestamp()->set_nanos(5);  // seconds unset: Firehose's error
  for (bool drop : {false, true}) {
    config_.drop_deserialization_error = drop;
    auto f = Make();
    ASSERT_TRUE(f.ok()) << f.status();
    std::vector<Message> batch = {Record(0, At(kNow)), Record(1, bad_time), Record(2, At(kNow))};
    batch[2].value = "\xff\xff\xff";
    std::vector<FailedMessage> failed;
    (*f)->Apply(&batch, &failed);
    EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{0}));
    if (drop) {
      EXPECT_TRUE(failed.empty());
      EXPECT_EQ((*f)->DeserializationDrops(), 1);
      EXPECT_EQ((*f)->DeserializationDropMetric(), "firehose_timestamp_filter_deserialization_errors_total");
    } else {
      ASSERT_EQ(failed.size(), 2u);
      EXPECT_EQ(failed[0].error_type, ErrorType::kInvalidMessageError);
      EXPECT_EQ(failed[1].error_type, ErrorType::kDeserializationError);
    }
  }
}

TEST_F(TimestampFilterTest, KeySourceWithoutKeyIsDropped) {
  config_.data_source_key = true;
  auto f = Make();
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<Message> batch = {Record(0, At(kNow)), Record(1, At(kNow))};
  batch[0].key = At(kNow).SerializeAsString();
  std::vector<FailedMessage> failed;
  (*f)->Apply(&batch, &failed);
  EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{0}));
  EXPECT_TRUE(failed.empty());
}

TEST_F(TimestampFilterTest, BadFieldIsRefusedAtStartNamingTheVariable) {
  config_.timestamp_field = "nope";
  EXPECT_THAT(Make().status().message(), HasSubstr("FILTER_TIMESTAMP_PROTO_FIELD_NAME"));
  config_.timestamp_field = "is_priority";  // bool
  EXPECT_THAT(Make().status().message(), HasSubstr("FILTER_TIMESTAMP_PROTO_FIELD_NAME"));
  config_.timestamp_field = "tags";  // repeated
  EXPECT_THAT(Make().status().message(), HasSubstr("FILTER_TIMESTAMP_PROTO_FIELD_NAME"));
}

TEST(TimestampFilterConfig, ParsedWithFirehoseNamesAndDefaults) {
  Env env({{"SINK_TYPE", "log"}, {"SOURCE_KAFKA_BROKERS", "b:9092"}, {"SOURCE_KAFKA_TOPIC", "t"},
           {"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g"}, {"INPUT_SCHEMA_PROTO_CLASS", "x.Y"},
           {"SCHEMA_REGISTRY_STENCIL_URLS", "http://r/d"},
           {"FILTER_ENGINE", "TIMESTAMP"}, {"FILTER_DATA_SOURCE", "MESSAGE"},
           {"FILTER_SCHEMA_PROTO_CLASS", "x.Y"}});
  auto c = ParseSinkConfig(env);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->filter.engine, FilterConfig::Engine::kTimestamp);
  EXPECT_EQ(c->filter.timestamp_field, "event_timestamp");
  EXPECT_EQ(c->filter.timestamp_past_window_seconds, 604800);
  EXPECT_EQ(c->filter.timestamp_future_window_seconds, 604800);
  Env missing({{"SINK_TYPE", "log"}, {"SOURCE_KAFKA_BROKERS", "b:9092"}, {"SOURCE_KAFKA_TOPIC", "t"},
               {"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g"}, {"INPUT_SCHEMA_PROTO_CLASS", "x.Y"},
           {"SCHEMA_REGISTRY_STENCIL_URLS", "http://r/d"},
               {"FILTER_ENGINE", "TIMESTAMP"}, {"FILTER_TIMESTAMP_PAST_WINDOW_SECONDS", "soon"},
               {"FILTER_DATA_SOURCE", "MESSAGE"}, {"FILTER_SCHEMA_PROTO_CLASS", "x.Y"}});
  EXPECT_THAT(ParseSinkConfig(missing).status().message(), HasSubstr("FILTER_TIMESTAMP_PAST_WINDOW_SECONDS"));
}

}  // namespace
}  // namespace sluice::sink
