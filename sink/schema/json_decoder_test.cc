#include "sink/schema/json_decoder.h"

#include <gtest/gtest.h>

#include "nlohmann/json.hpp"

namespace sluice::sink {
namespace {

Message Record(int64_t offset, std::string value, std::optional<std::string> key = std::nullopt) {
  Message m;
  m.topic = "t";
  m.offset = offset;
  m.value = std::move(value);
  m.key = std::move(key);
  return m;
}

TEST(JsonDecoder, ParsesEachRecordOnceAndKeepsTheOrder) {
  JsonDecoder d(/*parse_key=*/false);
  std::vector<Message> batch = {Record(0, R"({"driver":{"name":"ana"},"fare":12.5})"),
                                Record(1, "[1,2]")};
  std::vector<FailedMessage> failed;
  d.Decode(&batch, &failed);
  EXPECT_TRUE(failed.empty());
  ASSERT_EQ(batch.size(), 2u);
  ASSERT_NE(batch[0].json, nullptr);
  EXPECT_EQ((*batch[0].json)["driver"]["name"], "ana");
  EXPECT_EQ((*batch[0].json)["fare"], 12.5);
  EXPECT_TRUE(batch[1].json->is_array());
}

TEST(JsonDecoder, InvalidJsonIsADeserializationErrorAndNothingIsDropped) {
  JsonDecoder d(false);
  std::vector<Message> batch = {Record(0, R"({"a":1})"), Record(1, "{\"a\":"),
                                Record(2, "\xff\xfe"), Record(3, ""), Record(4, "{} {}"),
                                Record(5, "7")};
  std::vector<FailedMessage> failed;
  d.Decode(&batch, &failed);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].offset, 0);
  EXPECT_EQ(batch[1].offset, 5) << "a bare number is a JSON document";
  ASSERT_EQ(failed.size(), 4u);
  for (const FailedMessage& f : failed) {
    EXPECT_EQ(f.error_type, ErrorType::kDeserializationError);
    EXPECT_NE(f.error.find("JSON input"), std::string::npos) << f.error;
    EXPECT_EQ(f.message.json, nullptr);
  }
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_NE(failed[0].error.find("parse error"), std::string::npos) << failed[0].error;
}

TEST(JsonDecoder, KeyModeParsesTheKey) {
  JsonDecoder d(/*parse_key=*/true);
  std::vector<Message> batch = {Record(0, "not json", R"({"id":7})"), Record(1, "{}")};
  std::vector<FailedMessage> failed;
  d.Decode(&batch, &failed);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ((*batch[0].json)["id"], 7);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].error.find("no key"), std::string::npos);
}

TEST(JsonDecoder, ARecordNestedTooDeepFailsAloneInsteadOfCrashingThePrinter) {
  // 100,000 levels crashed nlohmann's recursive dump() (the log sink) with a
  // stack overflow before the limit existed.
  const int deep = 100000;
  std::string poison = std::string(deep, '[') + std::string(deep, ']');
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  std::string in_string = "\"" + std::string(5000, '[') + "\"";
  JsonDecoder d(false);
  std::vector<Message> batch = {Record(0, poison), Record(1, ok), Record(2, in_string),
                                Record(3, "{\"a\\\"[\":1}")};
  std::vector<FailedMessage> failed;
  d.Decode(&batch, &failed);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 0);
  EXPECT_NE(failed[0].error.find("nested deeper than 1000"), std::string::npos) << failed[0].error;
  ASSERT_EQ(batch.size(), 3u) << "brackets inside strings and escaped quotes do not count";
  EXPECT_EQ(batch[0].json->dump().size(), ok.size());
  EXPECT_EQ((*batch[2].json)["a\"["], 1);
}

TEST(JsonDecoder, ParseJsonRecordNamesTheReason) {
  EXPECT_TRUE(ParseJsonRecord("{\"a\":[1]}").ok());
  absl::StatusOr<nlohmann::json> bad = ParseJsonRecord("{\"a\":");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("JSON input: "), absl::string_view::npos);
}

}  // namespace
}  // namespace sluice::sink
