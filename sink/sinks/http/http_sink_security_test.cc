// The HTTP sink against hostile records and answers (security review
// 2026-11: H5, M7, M8, L6, C4).
#include <atomic>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/http/http_sink.h"
#include "sink/sinks/testdata/test_message.pb.h"
#include "sink/sinks/testing/http_test_server.h"
#include "sink/sinks/testing/recording_metrics.h"

namespace sluice::sink {
namespace {

using ::sluice::sink::testing::HttpRequest;
using ::sluice::sink::testing::HttpTestServer;
using ::sluice::sink::testing::RecordingMetrics;
using ::sluice::sink::testing::TestMessage;
using ::testing::HasSubstr;

absl::StatusOr<const google::protobuf::Descriptor*> FindGenerated(absl::string_view name) {
  const auto* d =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(name));
  if (d == nullptr) return absl::NotFoundError(absl::StrCat("no message ", name));
  return d;
}

Message Raw(int64_t offset, std::string value) {
  Message m;
  m.topic = "orders";
  m.partition = 0;
  m.offset = offset;
  m.value = std::move(value);
  return m;
}

Message Decoded(int64_t offset, const std::string& order) {
  auto pb = std::make_shared<TestMessage>();
  pb->set_order_number(order);
  Message m = Raw(offset, pb->SerializeAsString());
  m.decoded = pb;
  return m;
}

class HttpSinkSecurityTest : public ::testing::Test {
 protected:
  std::unique_ptr<Sink> MakeSink(std::map<std::string, std::string> vars) {
    env_ = Env(std::move(vars));
    auto sink = HttpSink::CreateFromContext(SinkContext{&env_, &metrics_, &FindGenerated});
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }
  Env env_;
  RecordingMetrics metrics_;
};

// H5: INPUT_SCHEMA_DATA_TYPE=json, SINK_HTTP_DATA_FORMAT=json, no template:
// the raw value goes into a JSON string and nlohmann's dump() threw
// type_error 316 on the worker thread.
TEST_F(HttpSinkSecurityTest, InvalidUtf8ValueFailsThatRecordAsInvalidMessage) {
  auto server = HttpTestServer::Start();
  ASSERT_TRUE(server.ok());
  auto sink = MakeSink({{"SINK_HTTP_SERVICE_URL", (*server)->url()},
                        {"SINK_HTTP_DATA_FORMAT", "json"}});
  std::vector<FailedMessage> failed;
  ASSERT_NO_THROW(failed = sink->Push({Raw(1, R"({"a":1})"), Raw(2, "\xff\xfe"), Raw(3, "{}")}));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 2);
  EXPECT_EQ(failed[0].error_type, ErrorType::kInvalidMessageError);
  EXPECT_THAT(failed[0].error, HasSubstr("UTF-8"));
  auto reqs = (*server)->requests();
  ASSERT_EQ(reqs.size(), 1u);
  auto body = nlohmann::json::parse(reqs[0].body);
  ASSERT_EQ(body.size(), 2u) << "the other records are sent";
  EXPECT_EQ(body[1]["logMessage"], "{}");
}

}  // namespace
}  // namespace sluice::sink
