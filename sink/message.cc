#include "sink/message.h"

#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sluice::sink {
namespace {

constexpr std::array<std::pair<ErrorType, absl::string_view>, 9> kNames = {{
    {ErrorType::kDeserializationError, "DESERIALIZATION_ERROR"},
    {ErrorType::kInvalidMessageError, "INVALID_MESSAGE_ERROR"},
    {ErrorType::kUnknownFieldsError, "UNKNOWN_FIELDS_ERROR"},
    {ErrorType::kSink4xxError, "SINK_4XX_ERROR"},
    {ErrorType::kSink5xxError, "SINK_5XX_ERROR"},
    {ErrorType::kSinkRetryableError, "SINK_RETRYABLE_ERROR"},
    {ErrorType::kSinkNonRetryableError, "SINK_NON_RETRYABLE_ERROR"},
    {ErrorType::kSinkUnknownError, "SINK_UNKNOWN_ERROR"},
    {ErrorType::kDefaultError, "DEFAULT_ERROR"},
}};

}  // namespace

absl::string_view ErrorTypeName(ErrorType type) {
  for (const auto& [t, name] : kNames) {
    if (t == type) return name;
  }
  return "DEFAULT_ERROR";
}

absl::StatusOr<ErrorType> ParseErrorType(absl::string_view name) {
  for (const auto& [t, n] : kNames) {
    if (n == name) return t;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown error type \"", name, "\""));
}

std::vector<FailedMessage> TwoStageSink::Push(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed = Prepare(batch);
  std::vector<FailedMessage> exec_failed = Execute();
  failed.insert(failed.end(), std::make_move_iterator(exec_failed.begin()),
                std::make_move_iterator(exec_failed.end()));
  return failed;
}

}  // namespace sluice::sink
