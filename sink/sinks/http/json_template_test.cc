#include "sink/sinks/http/json_template.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::sink {
namespace {

TEST(JsonTemplateTest, ReplacesPathsAndAll) {
  auto t = JsonTemplate::Parse(
      R"({"id":"$.order_number","first_tag":"$.tags[0]","city":"$.address.city","all":"$._all_","k":"v"})");
  ASSERT_TRUE(t.ok()) << t.status();
  auto out = t->Render(R"({"order_number":"A1","tags":["x","y"],"address":{"city":"Pune"}})");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out,
            R"({"id":"A1","first_tag":"x","city":"Pune","all":{"order_number":"A1","tags":["x","y"],"address":{"city":"Pune"}},"k":"v"})");
}

TEST(JsonTemplateTest, PathAsKeyAndNonStringValues) {
  auto t = JsonTemplate::Parse(R"({"$.order_number":"$.amount"})");
  ASSERT_TRUE(t.ok());
  auto out = t->Render(R"({"order_number":"A1","amount":"5"})");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, R"({"A1":"5"})");
  auto out2 = t->Render(R"({"order_number":"A1","amount":7})");
  EXPECT_EQ(*out2, R"({"A1":7})");
}

TEST(JsonTemplateTest, MissingPathIsAnError) {
  auto t = JsonTemplate::Parse(R"({"x":"$.nope"})");
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->Render(R"({"a":1})").ok());
}

TEST(JsonTemplateTest, InvalidTemplateNamesVariable) {
  auto t = JsonTemplate::Parse("{not json");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), ::testing::HasSubstr("SINK_HTTP_JSON_BODY_TEMPLATE"));
}

}  // namespace
}  // namespace sluice::sink
