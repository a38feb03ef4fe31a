#include "sink/sinks/common/proto_values.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sink/sinks/testdata/legacy_message.pb.h"
#include "sink/sinks/testdata/test_message.pb.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

TEST(ColumnMappingTest, ParsesFlatAndNested) {
  auto m = ParseColumnMapping(R"({"2": "amount", "1": "id", "4": {"1": "city"}})",
                              TestMessage::descriptor());
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ((*m)[0].column, "id");
  EXPECT_EQ((*m)[1].column, "amount");
  EXPECT_EQ((*m)[2].column, "city");
  ASSERT_EQ((*m)[2].path.size(), 2u);
  EXPECT_EQ((*m)[2].path[0]->name(), "address");
  EXPECT_EQ((*m)[2].path[1]->name(), "city");
}

TEST(ColumnMappingTest, ErrorsNameTheVariable) {
  for (const char* bad : {"not json", R"({"x": "a"})", R"({"99": "a"})", R"({"1": {"1": "a"}})",
                          R"({"1": 5})", "{}"}) {
    auto m = ParseColumnMapping(bad, TestMessage::descriptor());
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_THAT(m.status().message(), HasSubstr("INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING")) << bad;
  }
}

TEST(FieldValueTextTest, RendersEachKind) {
  TestMessage m;
  m.set_order_number("A1");
  m.set_amount(-5);
  m.set_status(sluice::sink::testing::INACTIVE);
  m.mutable_address()->set_city("Pune");
  m.mutable_event_timestamp()->set_seconds(1714557600);
  m.mutable_event_timestamp()->set_nanos(500000000);
  m.add_tags("x");
  m.add_tags("y");
  (*m.mutable_counts())["a"] = 1;
  m.set_price(2.25);
  m.set_paid(true);
  m.set_payload("\x01\x02");
  const auto* d = TestMessage::descriptor();
  auto text = [&](std::vector<int> path, ValueKind* kind = nullptr) {
    std::vector<const google::protobuf::FieldDescriptor*> p;
    const google::protobuf::Descriptor* cur = d;
    for (int n : path) {
      p.push_back(cur->FindFieldByNumber(n));
      cur = p.back()->message_type();
    }
    auto v = FieldValueText(m, p, kind);
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : std::nullopt;
  };
  EXPECT_EQ(text({1}), "A1");
  EXPECT_EQ(text({2}), "-5");
  EXPECT_EQ(text({3}), "INACTIVE");
  ValueKind kind;
  EXPECT_EQ(text({4}, &kind), R"({"city":"Pune"})");
  EXPECT_EQ(kind, ValueKind::kJson);
  EXPECT_EQ(text({4, 1}), "Pune");
  EXPECT_EQ(text({4, 2}), "0");
  EXPECT_EQ(text({5}, &kind), "2024-05-01T10:00:00.5Z");
  EXPECT_EQ(kind, ValueKind::kText);
  EXPECT_EQ(text({6}, &kind), R"(["x","y"])");
  EXPECT_EQ(kind, ValueKind::kJson);
  EXPECT_EQ(text({7}), R"({"a":1})");
  EXPECT_EQ(text({8}), "2.25");
  EXPECT_EQ(text({9}), "true");
  EXPECT_EQ(text({10}), "AQI=");
  EXPECT_EQ(text({11}), "[]");
  m.mutable_event_timestamp()->set_seconds(-1);
  m.mutable_event_timestamp()->set_nanos(123000);
  EXPECT_EQ(text({5}), "1969-12-31T23:59:59.000123Z");
  m.mutable_event_timestamp()->set_seconds(951782400);  // leap day 2000
  m.mutable_event_timestamp()->set_nanos(0);
  EXPECT_EQ(text({5}), "2000-02-29T00:00:00Z");
  m.clear_address();
  EXPECT_EQ(text({4}), std::nullopt);
}

TEST(FieldValueTextTest, InvalidUtf8InAProto2RepeatedOrMapStringIsAnErrorNotAThrow) {
  // The wire bytes of a proto2 record whose string fields hold "\xff\xfe":
  // proto2 parses them without a UTF-8 check (review H5).
  sluice::sink::testing::LegacyMessage in;
  in.set_id("ok");
  in.add_tags("\xff\xfe");
  (*in.mutable_labels())["k"] = "\xff";
  sluice::sink::testing::LegacyMessage m;
  ASSERT_TRUE(m.ParseFromString(in.SerializeAsString()));
  for (int number : {2, 3}) {
    auto v = FieldValueTextByNumbers(m, {number});
    ASSERT_FALSE(v.ok()) << number;
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(v.status().message(), HasSubstr("UTF-8")) << v.status();
  }
  // Other fields of the same record still render.
  auto id = FieldValueTextByNumbers(m, {1});
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(**id, "ok");
}

}  // namespace
}  // namespace sluice::sink
