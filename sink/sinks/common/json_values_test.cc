#include "sink/sinks/common/json_values.h"

#include <gtest/gtest.h>

namespace sluice::sink {
namespace {

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
