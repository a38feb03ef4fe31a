// Field-level conversions shared by the http and jdbc sinks: Firehose's
// INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING and the text/JSON form of one field.
#ifndef SLUICE_SINK_SINKS_COMMON_PROTO_VALUES_H_
#define SLUICE_SINK_SINKS_COMMON_PROTO_VALUES_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace sluice::sink {

// One mapped column: the field-number path from the root message to a field
// ({4, 1} is field 1 of the message in field 4) and the target column name.
struct ColumnMapping {
  std::vector<const google::protobuf::FieldDescriptor*> path;
  std::string column;
};

// Parses INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING, JSON such as
// `{"1": "order_number", "4": {"1": "city"}}`, against `descriptor`. Columns
// come back in field-number order (depth first). InvalidArgument naming
// `variable` on bad JSON, a non-numeric key, an unknown field number or a
// nested object under a non-message field.
absl::StatusOr<std::vector<ColumnMapping>> ParseColumnMapping(
    absl::string_view json, const google::protobuf::Descriptor* descriptor,
    absl::string_view variable = "INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING");

// How a mapped value is rendered.
enum class ValueKind {
  kText,  // scalars as text (enum name, bool true/false, bytes base64)
  kJson,  // message, repeated or map field rendered as JSON
};

// The value of the field at `path` in `root`, as text:
// - scalar: its text (string as is, enum name, bool "true"/"false", bytes base64,
//   numbers in shortest round-trip form);
// - google.protobuf.Timestamp: RFC 3339 UTC ("2024-05-01T10:00:00Z"), nullopt when unset;
// - other message: its JSON (proto field names), nullopt when unset;
// - repeated: a JSON array; map: a JSON object.
// Intermediate unset messages read as their default instance.
// InvalidArgument naming the field when a repeated or map value cannot be
// rendered as JSON (a string that is not valid UTF-8, possible in proto2);
// callers fail that record with INVALID_MESSAGE_ERROR.
absl::StatusOr<std::optional<std::string>> FieldValueText(
    const google::protobuf::Message& root,
    const std::vector<const google::protobuf::FieldDescriptor*>& path, ValueKind* kind = nullptr);

// JSON (proto field names, no defaults) of `message`; "{}" on failure.
std::string MessageJson(const google::protobuf::Message& message, bool with_defaults = false);

// The value at a field-number path ({4, 1}), resolved against the message's
// own descriptor, so that it works for messages of any pool (e.g. after a
// schema refresh). nullopt also when a number is missing or a non-final step
// is not a singular message. Same rendering and errors as FieldValueText.
absl::StatusOr<std::optional<std::string>> FieldValueTextByNumbers(
    const google::protobuf::Message& root, const std::vector<int>& numbers,
    ValueKind* kind = nullptr);

// A private copy of a message type: its file and every dependency rebuilt in a
// pool the holder owns. Sinks keep descriptors from the schema registry this
// way, because the registry frees an old pool after a refresh.
class OwnedDescriptor {
 public:
  // Internal error when the file set does not rebuild (should not happen).
  static absl::StatusOr<std::unique_ptr<OwnedDescriptor>> Copy(
      const google::protobuf::Descriptor* d);
  const google::protobuf::Descriptor* get() const { return descriptor_; }

 private:
  std::unique_ptr<google::protobuf::DescriptorPool> pool_;
  const google::protobuf::Descriptor* descriptor_ = nullptr;
};

// True when `d` is google.protobuf.Timestamp.
bool IsTimestamp(const google::protobuf::Descriptor* d);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_COMMON_PROTO_VALUES_H_
