#include "sink/sinks/httpv2/value_template.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sink/sinks/testdata/test_message.pb.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

TEST(ValueTemplateTest, FillsPlaceholdersFromProtoFields) {
  TestMessage m;
  m.set_order_number("A-1");
  m.set_amount(42);
  m.mutable_address()->set_city("Pune");
  auto t = ValueTemplate::Parse("http://h/%s/x/%s,order_number, address.city", m.GetDescriptor(), "V");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->constant());
  EXPECT_EQ(*t->Render(RecordView{&m, nullptr}), "http://h/A-1/x/Pune");
}

TEST(ValueTemplateTest, EscapedCommaIsLiteral) {
  auto t = ValueTemplate::Parse("a/,/b", TestMessage::descriptor(), "V");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->constant());
  EXPECT_EQ(t->pattern(), "a,b");
}

TEST(ValueTemplateTest, CountMismatchAndUnknownFieldNameTheVariable) {
  auto t = ValueTemplate::Parse("%s-%s,order_number", TestMessage::descriptor(), "SINK_HTTPV2_X");
  EXPECT_THAT(t.status().message(), HasSubstr("SINK_HTTPV2_X"));
  t = ValueTemplate::Parse("%s,nope", TestMessage::descriptor(), "SINK_HTTPV2_X");
  EXPECT_THAT(t.status().message(), HasSubstr("nope"));
  t = ValueTemplate::Parse("%d,amount", TestMessage::descriptor(), "SINK_HTTPV2_X");
  EXPECT_FALSE(t.ok());
}

TEST(ValueTemplateTest, RenderJsonKeepsTypesForALonePlaceholder) {
  TestMessage m;
  m.set_amount(7);
  m.set_paid(true);
  m.mutable_address()->set_city("Pune");
  m.add_tags("x");
  const auto* d = m.GetDescriptor();
  RecordView r{&m, nullptr};
  EXPECT_EQ(*ValueTemplate::Parse("%s,amount", d, "V")->RenderJson(r), nlohmann::json(7));
  EXPECT_EQ(*ValueTemplate::Parse("%s,paid", d, "V")->RenderJson(r), nlohmann::json(true));
  EXPECT_EQ(*ValueTemplate::Parse("%s,address", d, "V")->RenderJson(r),
            nlohmann::json::parse(R"({"city":"Pune"})"));
  EXPECT_EQ(*ValueTemplate::Parse("%s,tags", d, "V")->RenderJson(r), nlohmann::json::parse(R"(["x"])"));
  EXPECT_EQ(*ValueTemplate::Parse("n-%s,amount", d, "V")->RenderJson(r), nlohmann::json("n-7"));
}

TEST(ValueTemplateTest, JsonInputReadsMembers) {
  nlohmann::json j = {{"id", 5}, {"who", {{"name", "x"}}}};
  auto t = ValueTemplate::Parse("%s,who.name", nullptr, "V");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->Render(RecordView{nullptr, &j}), "x");
  EXPECT_EQ(*ValueTemplate::Parse("%s,id", nullptr, "V")->RenderJson(RecordView{nullptr, &j}),
            nlohmann::json(5));
  EXPECT_FALSE(ValueTemplate::Parse("%s,missing", nullptr, "V")->Render(RecordView{nullptr, &j}).ok());
}

}  // namespace
}  // namespace sluice::sink

namespace sluice::sink {
namespace {

// Security review R3-M1: a record's value fills its slot of the URL and
// nothing more.
TEST(ValueTemplateTest, RenderUrlPercentEncodesValuesNotThePattern) {
  nlohmann::json j = {{"user_id", "../../admin/x?y#"}, {"name", "Zoë a+b@c:d"}, {"ok", "A-z_0.9~"}};
  RecordView r{nullptr, &j};
  auto t = ValueTemplate::Parse("/api/users/%s,user_id", nullptr, "V");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t->RenderUrl(r), "/api/users/..%2F..%2Fadmin%2Fx%3Fy%23");
  EXPECT_EQ(*t->Render(r), "/api/users/../../admin/x?y#") << "Render (headers, body) stays raw";
  t = ValueTemplate::Parse("http://h/a?b=1&n=%s#%s,name,ok", nullptr, "V");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(*t->RenderUrl(r), "http://h/a?b=1&n=Zo%C3%AB%20a%2Bb%40c%3Ad#A-z_0.9~");
  EXPECT_FALSE(ValueTemplate::Parse("/%s,missing", nullptr, "V")->RenderUrl(r).ok());
}

}  // namespace
}  // namespace sluice::sink
