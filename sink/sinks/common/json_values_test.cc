#include "sink/sinks/common/json_values.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sluice::sink {
namespace {

using ::testing::HasSubstr;

TEST(JsonColumnMapping, NestedNamesBecomePaths) {
  auto cols = ParseJsonColumnMapping(
      R"({"order_number":"order_number","driver":{"name":"driver_name","id":"driver_id"}})");
  ASSERT_TRUE(cols.ok()) << cols.status();
  ASSERT_EQ(cols->size(), 3u);
  EXPECT_EQ((*cols)[0].path, (std::vector<std::string>{"driver", "id"}));
  EXPECT_EQ((*cols)[0].column, "driver_id");
  EXPECT_EQ((*cols)[1].path, (std::vector<std::string>{"driver", "name"}));
  EXPECT_EQ((*cols)[2].column, "order_number");
}

TEST(JsonColumnMapping, BadMappingsNameTheVariableAndTheMember) {
  for (const char* bad : {"", "[]", "{}", "{\"a\":1}", "{\"a\":{\"b\":\"\"}}", "{\"a\":"}) {
    auto cols = ParseJsonColumnMapping(bad);
    ASSERT_FALSE(cols.ok()) << bad;
    EXPECT_THAT(cols.status().message(), HasSubstr("INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING")) << bad;
  }
  EXPECT_THAT(ParseJsonColumnMapping(R"({"a":{"b":false}})").status().message(), HasSubstr("\"a.b\""));
}

TEST(JsonFieldText, RendersEachKindForAColumn) {
  nlohmann::json r = nlohmann::json::parse(
      R"({"s":"tab\there","n":12.5,"i":-3,"b":true,"z":null,"o":{"k":[1,"x"]},"a":[1,2]})");
  EXPECT_EQ(JsonFieldText(r, {"s"}), "tab\there");
  EXPECT_EQ(JsonFieldText(r, {"n"}), "12.5");
  EXPECT_EQ(JsonFieldText(r, {"i"}), "-3");
  EXPECT_EQ(JsonFieldText(r, {"b"}), "true");
  EXPECT_EQ(JsonFieldText(r, {"z"}), std::nullopt);
  EXPECT_EQ(JsonFieldText(r, {"missing"}), std::nullopt);
  EXPECT_EQ(JsonFieldText(r, {"s", "deeper"}), std::nullopt) << "a path through a string";
  EXPECT_EQ(JsonFieldText(r, {"o"}), R"({"k":[1,"x"]})");
  EXPECT_EQ(JsonFieldText(r, {"o", "k"}), R"([1,"x"])");
  EXPECT_EQ(JsonFieldText(r, {"a"}), "[1,2]");
}

}  // namespace
}  // namespace sluice::sink
