#include "sink/filter/json_filter.h"

#include <gtest/gtest.h>

#include "sink/sample/sample_gen.h"
#include "sink/schema/json_decoder.h"
#include "sink/schema/proto_decoder.h"

namespace sluice::sink {
namespace {

FilterConfig JsonFilterConfig(std::string schema) {
  FilterConfig f;
  f.engine = FilterConfig::Engine::kJson;
  f.json_schema = std::move(schema);
  return f;
}

std::vector<Message> JsonBatch(const std::vector<std::string>& values) {
  std::vector<Message> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i].offset = static_cast<int64_t>(i);
    out[i].value = values[i];
  }
  return out;
}

std::vector<int64_t> Offsets(const std::vector<Message>& batch) {
  std::vector<int64_t> out;
  for (const Message& m : batch) out.push_back(m.offset);
  return out;
}

TEST(JsonFilter, KeepsJsonRecordsThatValidate) {
  SchemaConfig schema;
  schema.data_type = SchemaConfig::DataType::kJson;
  // Firehose's guide example: a const on one property.
  auto f = JsonFilter::Create(JsonFilterConfig(R"({"properties":{"order_number":{"const":"1253"}}})"),
                              schema, nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<Message> batch = JsonBatch({R"({"order_number":"1253"})", R"({"order_number":1253})",
                                          R"({"other":1})", "[1,", R"({"order_number":"9"})"});
  std::vector<FailedMessage> failed;
  JsonDecoder(false).Decode(&batch, &failed);
  ASSERT_EQ(failed.size(), 1u);
  failed.clear();
  EXPECT_EQ((*f)->Apply(&batch, &failed), 2);
  EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{0, 2})) << "a record without the property validates";
  EXPECT_TRUE(failed.empty());
}

TEST(JsonFilter, ParsesTheSourceItselfWhenTheDecodeStageReadTheOtherOne) {
  SchemaConfig schema;
  schema.data_type = SchemaConfig::DataType::kJson;  // the decode stage reads the message
  FilterConfig fc = JsonFilterConfig(R"({"required":["id"],"properties":{"id":{"minimum":5}}})");
  fc.data_source_key = true;
  auto f = JsonFilter::Create(fc, schema, nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<Message> batch = JsonBatch({"{}", "{}", "{}", "{}"});
  batch[0].key = R"({"id":7})";
  batch[1].key = R"({"id":2})";
  batch[2].key = "not json";
  std::vector<FailedMessage> failed;
  JsonDecoder(false).Decode(&batch, &failed);
  EXPECT_EQ((*f)->Apply(&batch, &failed), 1);
  EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{0}));
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].message.offset, 2);
  EXPECT_EQ(failed[0].error_type, ErrorType::kDeserializationError);
  EXPECT_EQ(failed[1].message.offset, 3) << "no key";
  EXPECT_EQ(failed[1].error_type, ErrorType::kInvalidMessageError);
}

TEST(JsonFilter, PrintsProtobufRecordsAsFirehoseDoes) {
  SchemaConfig schema;
  schema.urls = {"file://sink/sample/sample_cc.desc"};
  schema.proto_class = "sluice.sample.SampleLogMessage";
  auto registry = SchemaRegistry::Create(schema);
  ASSERT_TRUE(registry.ok()) << registry.status();
  // Proto field names; enums as names; int64 as a JSON string (JsonFormat).
  FilterConfig fc = JsonFilterConfig(R"({
    "properties": {
      "driver_id": {"enum": ["driver-2", "driver-5"]},
      "status": {"const": "ON_TRIP"},
      "amount_paid_cents": {"type": "string"}
    },
    "required": ["driver_id", "status"]})");
  fc.esb_protobuf = true;
  fc.proto_class = schema.proto_class;
  auto f = JsonFilter::Create(fc, schema, registry->get());
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<Message> batch(10);
  for (int i = 0; i < 10; ++i) {
    batch[i].offset = i;
    batch[i].value = sample::SampleBytes(i, 1000);
  }
  batch[9].value = "\xff\xff not proto";
  std::vector<FailedMessage> failed;
  auto decoder = *ProtoDecoder::Create(registry->get(), schema.proto_class, false);
  decoder->Decode(&batch, &failed);
  ASSERT_EQ(failed.size(), 1u);
  failed.clear();
  batch.push_back(batch[0]);
  batch.back().offset = 10;
  batch.back().decoded = nullptr;
  batch.back().value = "\xff\xff";
  (*f)->Apply(&batch, &failed);
  // ON_TRIP is i % 3 == 2 (2, 5, 8); driver-2 and driver-5 are records 2 and 5.
  EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{2, 5}));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kDeserializationError);
}

// FILTER_DROP_DESERIALIZATION_ERROR=true drops a protobuf record that does
// not decode (Firehose's JsonFilter.deserialize); JSON that does not parse
// still fails, as Firehose's readTree throws FilterException either way.
TEST(JsonFilter, DropDeserializationErrorDropsUndecodableProtobufOnly) {
  SchemaConfig schema;
  schema.urls = {"file://sink/sample/sample_cc.desc"};
  schema.proto_class = "sluice.sample.SampleLogMessage";
  auto registry = SchemaRegistry::Create(schema);
  ASSERT_TRUE(registry.ok()) << registry.status();
  FilterConfig fc = JsonFilterConfig(R"({"required":["driver_id"]})");
  fc.esb_protobuf = true;
  fc.proto_class = schema.proto_class;
  for (bool drop : {false, true}) {
    fc.drop_deserialization_error = drop;
    auto f = JsonFilter::Create(fc, schema, registry->get());
    ASSERT_TRUE(f.ok()) << f.status();
    std::vector<Message> batch(3);
    for (int i = 0; i < 3; ++i) {
      batch[i].offset = i;
      batch[i].value = i == 1 ? std::string("\xff\xff not proto") : sample::SampleBytes(i, 1000);
    }
    std::vector<FailedMessage> failed;
    int dropped = (*f)->Apply(&batch, &failed);
    EXPECT_EQ(Offsets(batch), (std::vector<int64_t>{0, 2})) << drop;
    EXPECT_EQ(dropped, drop ? 1 : 0);
    EXPECT_EQ(failed.size(), drop ? 0u : 1u);
    EXPECT_EQ((*f)->DeserializationDrops(), drop ? 1 : 0);
    EXPECT_EQ((*f)->DeserializationDropMetric(), "firehose_json_filter_deserialization_errors_total");
  }
  SchemaConfig json_input;
  json_input.data_type = SchemaConfig::DataType::kJson;
  FilterConfig jc = JsonFilterConfig("{}");
  jc.drop_deserialization_error = true;
  auto j = JsonFilter::Create(jc, json_input, nullptr);
  ASSERT_TRUE(j.ok()) << j.status();
  std::vector<Message> batch = JsonBatch({"[1,"});
  std::vector<FailedMessage> failed;
  EXPECT_EQ((*j)->Apply(&batch, &failed), 0);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kDeserializationError);
}

TEST(JsonFilter, StartUpErrorsNameTheVariable) {
  SchemaConfig schema;
  schema.data_type = SchemaConfig::DataType::kJson;
  auto bad = JsonFilter::Create(JsonFilterConfig(R"({"properties":{"a":{"maxLength":"x"}}})"),
                                schema, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "FILTER_JSON_SCHEMA: /properties/a/maxLength: must be a non-negative integer");
  FilterConfig proto = JsonFilterConfig("{}");
  proto.esb_protobuf = true;
  proto.proto_class = "x.Y";
  auto no_registry = JsonFilter::Create(proto, schema, nullptr);
  ASSERT_FALSE(no_registry.ok());
  EXPECT_NE(no_registry.status().message().find("FILTER_SCHEMA_PROTO_CLASS"), std::string::npos);
}

}  // namespace
}  // namespace sluice::sink
