// The unit of work of sluice-sink: one Kafka record, its decoded form, and the
// error types a sink reports for it. Names follow Firehose so that existing
// ERROR_TYPES_FOR_* settings and dashboards keep working.
#ifndef SLUICE_SINK_MESSAGE_H_
#define SLUICE_SINK_MESSAGE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "nlohmann/json_fwd.hpp"

namespace sluice::sink {

// Why a message failed. The set and spelling are Firehose's `ErrorType` enum
// (depot: com.gotocompany.depot.error.ErrorType, all nine constants). Which
// type each sink outcome gets is pinned, row by row, by each sink's
// *_error_types_test.cc against the upstream file and line.
enum class ErrorType {
  kDeserializationError,  // DESERIALIZATION_ERROR: bytes do not decode as the schema.
  kInvalidMessageError,   // INVALID_MESSAGE_ERROR: decoded but unusable (e.g. filter error).
  kUnknownFieldsError,    // UNKNOWN_FIELDS_ERROR: decoded with fields the schema lacks.
  kSink4xxError,          // SINK_4XX_ERROR: the sink rejected the request (client side).
  kSink5xxError,          // SINK_5XX_ERROR: the sink failed (server side).
  kSinkRetryableError,    // SINK_RETRYABLE_ERROR: transient, worth retrying.
  kSinkNonRetryableError,  // SINK_NON_RETRYABLE_ERROR: retrying would fail the same way
                           // (depot: gRPC rule false, Redis connection lost).
  kSinkUnknownError,      // SINK_UNKNOWN_ERROR: the sink failed in an unclassified way.
  kDefaultError,          // DEFAULT_ERROR: anything else.
};

// Returns the Firehose spelling, e.g. "SINK_5XX_ERROR".
absl::string_view ErrorTypeName(ErrorType type);

// Parses a Firehose spelling (case-sensitive). InvalidArgument names the value.
absl::StatusOr<ErrorType> ParseErrorType(absl::string_view name);

// One Kafka record as consumed, plus its decoded protobuf when a schema is set.
// Copying is cheap: the decoded message is shared and immutable.
struct Message {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<std::string> key;  // raw key bytes; nullopt when the record has none
  std::string value;               // raw value bytes
  std::vector<std::pair<std::string, std::string>> headers;
  int64_t timestamp_ms = 0;          // the record's Kafka timestamp (ms since epoch)
  int64_t consume_timestamp_ms = 0;  // when this worker polled it (ms since epoch)
  // The decoded record (key or message per KAFKA_RECORD_PARSER_MODE), or null
  // for INPUT_SCHEMA_DATA_TYPE=json or before decoding.
  std::shared_ptr<const google::protobuf::Message> decoded;
  // `decoded` was parsed from `key` (KAFKA_RECORD_PARSER_MODE=key), not `value`.
  bool decoded_from_key = false;
  // INPUT_SCHEMA_DATA_TYPE=json: the record (key or message per
  // KAFKA_RECORD_PARSER_MODE) parsed once by the decode stage; null otherwise.
  std::shared_ptr<const nlohmann::json> json;
};

// A message a sink could not deliver, with the reason.
struct FailedMessage {
  Message message;
  ErrorType error_type = ErrorType::kDefaultError;
  std::string error;  // human-readable cause, logged and sent as a DLQ header
};

// The sink contract. Every sink, and every decorator (retry, DLQ, metrics),
// implements Push. Sinks are used by one worker thread at a time.
class Sink {
 public:
  virtual ~Sink() = default;

  // Delivers `batch` and returns the messages that failed, each with its error
  // type; an empty result means every message was delivered. Never throws.
  virtual std::vector<FailedMessage> Push(const std::vector<Message>& batch) = 0;

  // Short name for logs and metrics, e.g. "log", "http".
  virtual absl::string_view Name() const = 0;
};

// Base for concrete sinks: Firehose's two-stage contract. Push() runs
// Prepare() then Execute().
class TwoStageSink : public Sink {
 public:
  // Turns `batch` into sink-specific requests held by the sink. Messages that
  // cannot be converted are returned as failed and are not executed. `batch`
  // stays valid until the following Execute() returns (Push guarantees it),
  // so a sink may keep pointers to its messages instead of copies.
  virtual std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) = 0;

  // Runs the prepared requests and returns the failed messages. Clears the
  // prepared state, so the next Prepare starts fresh.
  virtual std::vector<FailedMessage> Execute() = 0;

  std::vector<FailedMessage> Push(const std::vector<Message>& batch) override;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_MESSAGE_H_
