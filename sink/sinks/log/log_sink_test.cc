#include "sink/sinks/log/log_sink.h"

#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testdata/test_message.pb.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

// Reads everything written to `f` so far.
std::string ReadAll(FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  return out;
}

std::shared_ptr<const google::protobuf::Message> SampleMessage() {
  auto m = std::make_shared<TestMessage>();
  m->set_order_number("A-1");
  m->set_amount(42);
  m->set_status(sluice::sink::testing::ACTIVE);
  m->mutable_address()->set_city("Pune");
  m->mutable_address()->set_zip(411001);
  m->mutable_event_timestamp()->set_seconds(1714557600);
  m->add_tags("a");
  m->add_tags("b\"c");
  m->set_price(1.5);
  m->add_past_addresses()->set_city("X");
  m->add_past_addresses()->set_city("Y");
  return m;
}

Message Record(int64_t offset, std::shared_ptr<const google::protobuf::Message> decoded) {
  Message m;
  m.topic = "orders";
  m.partition = 3;
  m.offset = offset;
  m.timestamp_ms = 1714557600123;
  m.value = "raw\x01value";
  m.decoded = std::move(decoded);
  return m;
}

TEST(LogSinkTest, PrintsMetadataNestedAndRepeatedFields) {
  FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  LogSink sink(f);
  auto failed = sink.Prepare({Record(7, SampleMessage())});
  EXPECT_TRUE(failed.empty());
  failed = sink.Execute();
  EXPECT_TRUE(failed.empty());
  std::string out = ReadAll(f);
  std::fclose(f);
  EXPECT_EQ(out,
            "topic=orders partition=3 offset=7 timestamp=2024-05-01T10:00:00.123Z "
            "message={order_number: \"A-1\" amount: 42 status: ACTIVE "
            "address { city: \"Pune\" zip: 411001 } "
            "event_timestamp { seconds: 1714557600 } "
            "tags: [\"a\", \"b\\\"c\"] price: 1.5 "
            "past_addresses: [{city: \"X\"}, {city: \"Y\"}]}\n");
}

TEST(LogSinkTest, PrintsMapAsRepeatedEntries) {
  auto m = std::make_shared<TestMessage>();
  (*m->mutable_counts())["k"] = 5;
  std::string text;
  AppendMessageText(*m, &text);
  EXPECT_EQ(text, "counts: [{key: \"k\" value: 5}]");
}

TEST(LogSinkTest, RawValueEscapedWhenNotDecoded) {
  FILE* f = std::tmpfile();
  LogSink sink(f);
  Message m = Record(1, nullptr);
  m.key = "k\n";
  EXPECT_TRUE(sink.Push({m}).empty());
  std::string out = ReadAll(f);
  std::fclose(f);
  EXPECT_THAT(out, HasSubstr(" key=\"k\\n\" message=\"raw\\001value\"\n"));
}

TEST(LogSinkTest, JsonInputIsPrintedAsCompactJson) {
  FILE* f = std::tmpfile();
  LogSink sink(f);
  Message m = Record(1, nullptr);
  m.json = std::make_shared<const nlohmann::json>(
      nlohmann::json::parse(R"({ "driver": {"name": "ana"},  "fare": 12.5 })"));
  EXPECT_TRUE(sink.Push({m}).empty());
  std::string out = ReadAll(f);
  std::fclose(f);
  EXPECT_THAT(out, HasSubstr(R"( message={"driver":{"name":"ana"},"fare":12.5})"));
}

TEST(LogSinkTest, OneLinePerMessageInOrder) {
  FILE* f = std::tmpfile();
  LogSink sink(f);
  std::vector<Message> batch;
  for (int i = 0; i < 100; ++i) batch.push_back(Record(i, SampleMessage()));
  EXPECT_TRUE(sink.Push(batch).empty());
  std::string out = ReadAll(f);
  std::fclose(f);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 100);
  EXPECT_LT(out.find("offset=9 "), out.find("offset=10 "));
  EXPECT_THAT(out, HasSubstr("offset=99 "));
}

TEST(LogSinkTest, FailedWriteFailsTheBatch) {
  // A read-only stream makes fwrite fail.
  FILE* f = std::fopen("/dev/null", "r");
  ASSERT_NE(f, nullptr);
  LogSink sink(f);
  sink.Prepare({Record(1, SampleMessage()), Record(2, SampleMessage())});
  auto failed = sink.Execute();
  std::fclose(f);
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kSinkUnknownError);
  EXPECT_EQ(failed[1].message.offset, 2);
}

TEST(LogSinkTest, EscapingMatchesUtf8SafeCEscape) {
  auto m = std::make_shared<TestMessage>();
  static const char kTricky[] = "q\"b\\s'\t\n\r\x01\x7f\0z caf\xc3\xa9";
  const std::string tricky(kTricky, sizeof(kTricky) - 1);  // keeps the embedded NUL
  m->set_order_number(tricky);
  std::string text;
  AppendMessageText(*m, &text);
  EXPECT_EQ(text, "order_number: \"" + absl::Utf8SafeCEscape(tricky) + "\"");
}

TEST(LogSinkTest, Rfc3339Millis) {
  std::string s;
  AppendRfc3339Millis(5, &s);
  EXPECT_EQ(s, "1970-01-01T00:00:00.005Z");
  s.clear();
  AppendRfc3339Millis(-1, &s);
  EXPECT_EQ(s, "1969-12-31T23:59:59.999Z");
}

}  // namespace
}  // namespace sluice::sink
