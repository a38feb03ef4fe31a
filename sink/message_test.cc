#include "sink/message.h"

#include <gtest/gtest.h>

namespace sluice::sink {
namespace {

TEST(ErrorType, RoundTripsEveryFirehoseName) {
  for (auto name : {"DESERIALIZATION_ERROR", "INVALID_MESSAGE_ERROR", "UNKNOWN_FIELDS_ERROR",
                    "SINK_4XX_ERROR", "SINK_5XX_ERROR", "SINK_RETRYABLE_ERROR", "SINK_NON_RETRYABLE_ERROR",
                    "SINK_UNKNOWN_ERROR", "DEFAULT_ERROR"}) {
    auto parsed = ParseErrorType(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(ErrorTypeName(*parsed), name);
  }
}

TEST(ErrorType, RejectsUnknownNameNamingIt) {
  auto parsed = ParseErrorType("SINK_5XX");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("SINK_5XX"), std::string::npos);
}

class CountingSink : public TwoStageSink {
 public:
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override {
    std::vector<FailedMessage> bad;
    for (const auto& m : batch) {
      if (m.value.empty()) {
        bad.push_back({m, ErrorType::kInvalidMessageError, "empty"});
      } else {
        prepared_.push_back(m);
      }
    }
    return bad;
  }
  std::vector<FailedMessage> Execute() override {
    std::vector<FailedMessage> bad;
    for (const auto& m : prepared_) {
      if (m.value == "fail") bad.push_back({m, ErrorType::kSink5xxError, "500"});
    }
    prepared_.clear();
    return bad;
  }
  absl::string_view Name() const override { return "counting"; }

 private:
  std::vector<Message> prepared_;
};

TEST(TwoStageSink, PushReturnsPrepareAndExecuteFailures) {
  CountingSink sink;
  std::vector<Message> batch(3);
  batch[0].value = "ok";
  batch[1].value = "";
  batch[2].value = "fail";
  auto failed = sink.Push(batch);
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].error_type, ErrorType::kInvalidMessageError);
  EXPECT_EQ(failed[1].error_type, ErrorType::kSink5xxError);
  EXPECT_TRUE(sink.Push({batch[0]}).empty());
}

}  // namespace
}  // namespace sluice::sink
