// Value: kinds, equality, zero values, JSON conversion and materialization.
#include "common/expr/value.h"

#include "gtest/gtest.h"

namespace sluice::expr {
namespace {

using J = nlohmann::json;

TEST(Value, KindsOfScalarsAndJsonViews) {
  EXPECT_EQ(Value().kind(), Value::Kind::kNull);
  EXPECT_EQ(Value::Bool(true).kind(), Value::Kind::kBool);
  EXPECT_EQ(Value::Int(1).kind(), Value::Kind::kInt);
  EXPECT_EQ(Value::Double(1).kind(), Value::Kind::kDouble);
  EXPECT_EQ(Value::String("s").kind(), Value::Kind::kString);
  EXPECT_EQ(Value::MakeList({}).kind(), Value::Kind::kList);
  EXPECT_EQ(Value::MakeMap({}).kind(), Value::Kind::kMap);
  J doc = J::parse(R"({"a": [1, 2], "u": 18446744073709551615, "s": "x", "n": null})");
  EXPECT_EQ(Value::Json(&doc).kind(), Value::Kind::kMap);
  EXPECT_EQ(Value::Json(&doc["a"]).kind(), Value::Kind::kList);
  EXPECT_EQ(Value::Json(&doc["u"]).kind(), Value::Kind::kDouble);
  EXPECT_EQ(Value::Json(&doc["s"]).string_value(), "x");
  EXPECT_TRUE(Value::Json(&doc["n"]).is_null());
  EXPECT_TRUE(Value::Json(nullptr).is_null());
  EXPECT_STREQ(Value::Int(1).kind_name(), "int");
}

TEST(Value, Equality) {
  EXPECT_EQ(Value::Int(1), Value::Double(1.0));
  EXPECT_NE(Value::Int(1), Value::String("1"));
  EXPECT_EQ(Value::String("a"), Value::StringView("a"));
  EXPECT_EQ(Value(), Value::Null());
  EXPECT_NE(Value(), Value::Bool(false));
  J doc = J::parse(R"({"k": [1, "a"]})");
  Value owned = Value::MakeMap({{"k", Value::MakeList({Value::Int(1), Value::String("a")})}});
  EXPECT_EQ(Value::Json(&doc), owned);
  EXPECT_NE(Value::Json(&doc["k"]), owned);
}

TEST(Value, ZeroValues) {
  EXPECT_TRUE(Value().IsZero());
  EXPECT_TRUE(Value::Bool(false).IsZero());
  EXPECT_TRUE(Value::Int(0).IsZero());
  EXPECT_TRUE(Value::Double(0).IsZero());
  EXPECT_TRUE(Value::String("").IsZero());
  EXPECT_TRUE(Value::MakeList({}).IsZero());
  EXPECT_TRUE(Value::MakeMap({}).IsZero());
  EXPECT_FALSE(Value::Int(-1).IsZero());
  EXPECT_FALSE(Value::String("0").IsZero());
  EXPECT_FALSE(Value::MakeList({Value()}).IsZero());
}

TEST(Value, ElementsFindAndKeys) {
  J doc = J::parse(R"({"b": 1, "a": {"c": "d"}, "l": ["x"]})");
  Value v = Value::Json(&doc);
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v.Keys(), (std::vector<std::string>{"a", "b", "l"}));
  auto a = v.Find("a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->Find("c")->string_value(), "d");
  EXPECT_TRUE(v.Find("zz")->is_null());
  auto l = v.Find("l");
  EXPECT_EQ(l->Element(0)->string_value(), "x");
  EXPECT_EQ(l->Element(1).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(v.Element(0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Value, MaterializeCopiesBorrowedData) {
  Value owned;
  {
    J doc = J::parse(R"({"s": "text", "l": [1, 2.5, null, {"k": true}]})");
    owned = Value::Json(&doc).Materialize();
  }  // doc is gone; `owned` must not refer to it
  EXPECT_EQ(owned.message(), nullptr);
  EXPECT_EQ(owned.json(), nullptr);
  EXPECT_EQ(owned.ToJson(), J::parse(R"({"s": "text", "l": [1, 2.5, null, {"k": true}]})"));
  EXPECT_EQ(owned.DebugString(), R"({"l":[1,2.5,null,{"k":true}],"s":"text"})");
}

TEST(Value, DebugStringSurvivesInvalidUtf8) {
  EXPECT_EQ(Value::String("a\xff").DebugString(), "\"a\xef\xbf\xbd\"");
}

}  // namespace
}  // namespace sluice::expr
