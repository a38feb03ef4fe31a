#include "sink/filter/jexl_filter.h"

#include <gtest/gtest.h>

#include <sstream>

#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

#include "sink/sample/sample_gen.h"
#include "sink/schema/json_decoder.h"

namespace sluice::sink {
namespace {

struct Fixture {
  std::unique_ptr<SchemaRegistry> registry;
  SchemaConfig schema;
  Fixture() {
    schema.urls = {"file://sink/sample/sample_cc.desc"};
    schema.proto_class = "io.sluice.sample.SampleProto$SampleLogMessage";
    registry = *SchemaRegistry::Create(schema);
  }
  FilterConfig Filter(std::string expression) {
    FilterConfig f;
    f.jexl = true;
    f.expression = std::move(expression);
    f.proto_class = "sluice.sample.SampleLogMessage";
    return f;
  }
};

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

std::vector<Message> Batch(int n) {
  std::vector<Message> out(n);
  for (int i = 0; i < n; ++i) {
    out[i].offset = i;
    out[i].value = sample::SampleBytes(i, 1000);
    out[i].key = sample::SampleBytes(i, 1000);
  }
  return out;
}

TEST(JexlFilter, KeepsMatchingRecordsReusingDecodedMessages) {
  Fixture fx;
  auto f = JexlFilter::Create(fx.Filter("sampleLogMessage.getDriverId() == \"driver-3\" || "
                                        "sampleLogMessage.getStatus() == \"ON_TRIP\""),
                              fx.schema, fx.registry.get());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->variable(), "sampleLogMessage");
  auto dec = *ProtoDecoder::Create(fx.registry.get(), fx.schema.proto_class, false);
  std::vector<Message> batch = Batch(10);
  std::vector<FailedMessage> failed;
  dec->Decode(&batch, &failed);
  int dropped = (*f)->Apply(&batch, &failed);
  // driver-3 is record 3; ON_TRIP is i % 3 == 2: 2, 5, 8.
  std::vector<int64_t> kept;
  for (const auto& m : batch) kept.push_back(m.offset);
  EXPECT_EQ(kept, (std::vector<int64_t>{2, 3, 5, 8}));
  EXPECT_EQ(dropped, 6);
  EXPECT_TRUE(failed.empty());
}

TEST(JexlFilter, DecodesTheKeyWhenAsked) {
  Fixture fx;
  FilterConfig fc = fx.Filter("sampleLogMessage.getTagsList().contains(\"even\")");
  fc.data_source_key = true;
  auto f = JexlFilter::Create(fc, fx.schema, fx.registry.get());
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<Message> batch = Batch(4);
  batch[1].key.reset();
  std::vector<FailedMessage> failed;
  EXPECT_EQ((*f)->Apply(&batch, &failed), 1);  // record 3 (odd)
  ASSERT_EQ(batch.size(), 2u);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kInvalidMessageError);
}

TEST(JexlFilter, EvaluationErrorsAreInvalidMessagesNotCrashes) {
  Fixture fx;
  auto f = JexlFilter::Create(fx.Filter("sampleLogMessage.getAmountPaidCents() / 0 == 1"),
                              fx.schema, fx.registry.get());
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<Message> batch = Batch(2);
  batch[1].value = "\xff\xff not proto";
  std::vector<FailedMessage> failed;
  (*f)->Apply(&batch, &failed);
  EXPECT_TRUE(batch.empty());
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kInvalidMessageError);
  EXPECT_EQ(failed[1].error_type, ErrorType::kDeserializationError);
  // A non-boolean result is an error too.
  auto g = JexlFilter::Create(fx.Filter("sampleLogMessage.getDriverId()"), fx.schema,
                              fx.registry.get());
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE((*g)->Evaluate(Batch(1)[0]).ok());
}

// FILTER_DROP_DESERIALIZATION_ERROR (Firehose's FilterConfig, default false):
// false fails the record as DESERIALIZATION_ERROR (Firehose throws
// FilterException); true drops it as filtered and counts it.
TEST(JexlFilter, UndecodableRecordsFailUnlessDropDeserializationErrorIsSet) {
  Fixture fx;
  FilterConfig fc = fx.Filter("sampleLogMessage.getDriverId() != \"\"");
  EXPECT_FALSE(fc.drop_deserialization_error) << "Firehose's default";
  for (bool drop : {false, true}) {
    fc.drop_deserialization_error = drop;
    auto f = JexlFilter::Create(fc, fx.schema, fx.registry.get());
    ASSERT_TRUE(f.ok()) << f.status();
    std::vector<Message> batch = Batch(3);
    batch[1].value = "\xff\xff not proto";
    batch[1].topic = "rides";
    batch[1].partition = 4;
    std::vector<FailedMessage> failed;
    CapturedLog log;
    int dropped = (*f)->Apply(&batch, &failed);
    ASSERT_EQ(batch.size(), 2u) << drop;
    if (!drop) {
      EXPECT_EQ(dropped, 0);
      ASSERT_EQ(failed.size(), 1u);
      EXPECT_EQ(failed[0].error_type, ErrorType::kDeserializationError);
      EXPECT_EQ((*f)->DeserializationDrops(), 0);
    } else {
      EXPECT_EQ(dropped, 1);
      EXPECT_TRUE(failed.empty());
      EXPECT_EQ((*f)->DeserializationDrops(), 1);
      EXPECT_EQ((*f)->DeserializationDropMetric(), "firehose_jexl_filter_deserialization_errors_total");
      EXPECT_NE(log.text().find("dropped topic=rides partition=4 offset=1"), std::string::npos)
          << log.text();
    }
  }
}

TEST(JexlFilter, StartUpErrorsNameTheVariableAndColumn) {
  Fixture fx;
  auto syntax = JexlFilter::Create(fx.Filter("sampleLogMessage.getDriverId() == )"), fx.schema,
                                   fx.registry.get());
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("FILTER_JEXL_EXPRESSION"), std::string::npos);
  EXPECT_NE(syntax.status().message().find("column"), std::string::npos) << syntax.status();
  auto var = JexlFilter::Create(fx.Filter("driver.getId() == 1"), fx.schema, fx.registry.get());
  ASSERT_FALSE(var.ok());
  EXPECT_NE(var.status().message().find("sampleLogMessage"), std::string::npos);
  FilterConfig bad_class = fx.Filter("x == 1");
  bad_class.proto_class = "com.nope.Missing";
  auto cls = JexlFilter::Create(bad_class, fx.schema, fx.registry.get());
  ASSERT_FALSE(cls.ok());
  EXPECT_NE(cls.status().message().find("FILTER_SCHEMA_PROTO_CLASS"), std::string::npos);
}

// Beyond Firehose: JEXL over JSON records, with the proto getter paths.
TEST(JexlFilter, ReadsJsonRecordsWithTheProtoGetterPaths) {
  SchemaConfig schema;
  schema.data_type = SchemaConfig::DataType::kJson;
  FilterConfig fc;
  fc.jexl = true;
  fc.jexl_json = true;
  fc.expression =
      "message.getDriver().getName() == 'ana' || message.driver.name == 'bo' && message.fare > 10";
  auto f = JexlFilter::Create(fc, schema, /*registry=*/nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->variable(), "message");
  std::vector<Message> batch(5);
  const char* values[] = {R"({"driver":{"name":"ana"},"fare":1})",
                          R"({"driver":{"name":"bo"},"fare":11})",
                          R"({"driver":{"name":"bo"},"fare":9})", "not json",
                          R"({"driver":"flat"})"};
  for (int i = 0; i < 5; ++i) {
    batch[i].offset = i;
    batch[i].value = values[i];
  }
  std::vector<FailedMessage> failed;
  JsonDecoder(false).Decode(&batch, &failed);
  ASSERT_EQ(failed.size(), 1u) << "offset 3 fails in the decode stage";
  failed.clear();
  EXPECT_EQ((*f)->Apply(&batch, &failed), 1);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].offset, 0);
  EXPECT_EQ(batch[1].offset, 1);
  ASSERT_EQ(failed.size(), 1u) << "reading a member of a string is an error";
  EXPECT_EQ(failed[0].message.offset, 4);
  EXPECT_EQ(failed[0].error_type, ErrorType::kInvalidMessageError);

  // Without the decode stage (e.g. TestFilter) the filter parses the bytes.
  Message raw;
  raw.value = R"({"driver":{"name":"ana"}})";
  EXPECT_TRUE(*(*f)->Evaluate(raw));
  EXPECT_EQ((*f)->Describe(raw), raw.value);
  raw.value = "{";
  EXPECT_TRUE(absl::IsDataLoss((*f)->Evaluate(raw).status()));

  fc.expression = "sampleLogMessage.getDriverId() == 'x'";
  auto wrong = JexlFilter::Create(fc, schema, nullptr);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("bound as \"message\""), std::string::npos)
      << wrong.status();
  fc.expression = "key.id == 7";
  fc.data_source_key = true;
  auto key = JexlFilter::Create(fc, schema, nullptr);
  ASSERT_TRUE(key.ok()) << key.status();
  raw.key = R"({"id":7})";
  EXPECT_TRUE(*(*key)->Evaluate(raw));
}

}  // namespace
}  // namespace sluice::sink
