#include "sink/sinks/common/record_fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"

namespace sluice::sink {
namespace {

using ::testing::HasSubstr;

Message JsonRecord(const std::string& text) {
  Message m;
  m.json = std::make_shared<const nlohmann::json>(nlohmann::json::parse(text));
  return m;
}

TEST(FieldTemplate, DepotEscapesAndPlaceholders) {
  auto t = FieldTemplate::Parse("a/,/b_%s_100%%_%s, x , y.z", nullptr, "V");
  ASSERT_TRUE(t.ok()) << t.status();
  auto out = t->Render(JsonRecord(R"({"x":"X","y":{"z":2}})"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "a,b_X_100%_2");
  auto constant = FieldTemplate::Parse("plain", nullptr, "V");
  ASSERT_TRUE(constant.ok());
  EXPECT_EQ(*constant->Render(JsonRecord("{}")), "plain");
  auto missing = t->Render(JsonRecord(R"({"x":"X"})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("\"y.z\" is absent"));
}

TEST(RecordField, ProtoNamesAndNumbersResolveToTheSameField) {
  const auto* d = sluice::sink::testing::TestMessage::descriptor();
  auto by_name = RecordField::Parse("address.city", d, "V");
  auto by_number = RecordField::Parse("4.1", d, "V");
  ASSERT_TRUE(by_name.ok() && by_number.ok());
  auto pb = std::make_shared<sluice::sink::testing::TestMessage>();
  pb->mutable_address()->set_city("Pune");
  Message m;
  m.decoded = pb;
  EXPECT_EQ(**by_name->Read(m), "Pune");
  EXPECT_EQ(**by_number->Read(m), "Pune");
  EXPECT_THAT(RecordField::Parse("tags.x", d, "V").status().message(),
              HasSubstr("not a singular message"));
  EXPECT_THAT(RecordField::Parse("nope", d, "V").status().message(), HasSubstr("names no field"));
  EXPECT_FALSE(by_name->Read(JsonRecord("{}")).ok()) << "a protobuf field needs a decoded protobuf";
}

TEST(JsonColumnMapping, NestedNamesBecomePaths) {
  auto cols = ParseFieldMapping(
      R"({"order_number":"order_number","driver":{"name":"driver_name","id":"driver_id"}})", nullptr,
      "INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", /*non_empty=*/true);
  ASSERT_TRUE(cols.ok()) << cols.status();
  ASSERT_EQ(cols->size(), 3u);
  EXPECT_EQ((*cols)[0].field.spec(), "driver.id");
  EXPECT_EQ((*cols)[0].name, "driver_id");
  EXPECT_EQ((*cols)[1].field.spec(), "driver.name");
  EXPECT_EQ((*cols)[2].name, "order_number");
}

TEST(JsonColumnMapping, BadMappingsNameTheVariableAndTheMember) {
  for (const char* bad : {"", "[]", "{}", "{\"a\":1}", "{\"a\":{\"b\":\"\"}}", "{\"a\":"}) {
    auto cols = ParseFieldMapping(bad, nullptr, "INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", true);
    ASSERT_FALSE(cols.ok()) << bad;
    EXPECT_THAT(cols.status().message(), HasSubstr("INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING")) << bad;
  }
  EXPECT_THAT(ParseFieldMapping(R"({"a":{"b":false}})", nullptr, "INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING", true)
                  .status()
                  .message(),
              HasSubstr("\"a.b\""));
}

}  // namespace
}  // namespace sluice::sink
