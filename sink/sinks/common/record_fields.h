// Fields of a record named in a sink's configuration, read from either input
// type: a decoded protobuf (by field name path, depot's style, or by field
// number, older Firehose's `*_PROTO_INDEX` style) or a JSON record (by member
// name path). Plus depot's value templates ("Service_%s,order_number").
#ifndef SLUICE_SINK_SINKS_COMMON_RECORD_FIELDS_H_
#define SLUICE_SINK_SINKS_COMMON_RECORD_FIELDS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "sink/env.h"
#include "sink/message.h"

namespace sluice::sink {

// One configured field.
class RecordField {
 public:
  // Parses `spec`: "order_number" or "pickup.city" (names), or "1" / "4.1"
  // (proto field numbers). With `descriptor` (protobuf input) names are
  // resolved to field numbers now, so that a bad name fails at start-up;
  // with null (JSON input) the spec is a member path and numbers are refused.
  // InvalidArgument naming `variable` and the spec.
  static absl::StatusOr<RecordField> Parse(absl::string_view spec,
                                           const google::protobuf::Descriptor* descriptor,
                                           absl::string_view variable);

  // The field's text as proto_values.h / json_values.h render it (strings as
  // they are, enums by name, messages/arrays/objects as JSON); nullopt when
  // the field is absent (unset message, missing or null JSON member; unset
  // proto3 scalars read as their defaults). InvalidArgument when the record
  // was not decoded as this field's input type or the value cannot be
  // rendered.
  absl::StatusOr<std::optional<std::string>> Read(const Message& m) const;

  // The field's value with its type, for sinks whose protocol is typed
  // (InfluxDB line protocol). Integers (proto int/uint/enum number, JSON
  // integers) are kInt, floating point kDouble, bool kBool; strings and enum
  // names kString; google.protobuf.Timestamp and Duration kInt milliseconds
  // (as Firehose's InfluxDB sink writes them); other messages, repeated
  // fields, JSON objects and arrays kString holding their JSON. nullopt and
  // errors as Read.
  struct Typed {
    enum class Kind { kInt, kDouble, kBool, kString };
    Kind kind = Kind::kString;
    std::string text;  // "12", "1.5", "true", or the string itself
    bool time_ms = false;  // kInt milliseconds of a Timestamp/Duration
  };
  absl::StatusOr<std::optional<Typed>> ReadTyped(const Message& m) const;

  const std::string& spec() const { return spec_; }

 private:
  std::string spec_;
  std::vector<int> numbers_;       // protobuf input
  std::vector<std::string> names_;  // JSON input
  bool json_ = false;
};

// A configured field and the name a sink gives it (a tag, field or metric).
struct NamedField {
  RecordField field;
  std::string name;
};

// Parses Firehose's `*_PROTO_INDEX_MAPPING` JSON: {"<index or name>":
// "<name>"}, with nested objects for nested messages ({"4": {"1": "city"}}
// reads field 1 of field 4). Entries come back in key order, depth first.
// InvalidArgument naming `variable` on bad JSON, an empty mapping when
// `non_empty`, a value that is neither a name nor an object, or a bad field.
absl::StatusOr<std::vector<NamedField>> ParseFieldMapping(
    absl::string_view text, const google::protobuf::Descriptor* descriptor,
    absl::string_view variable, bool non_empty);

// ParseFieldMapping of variable `variable` of `env` into `*out`; when it is
// unset: InvalidArgument "<variable> is required" if `required`, else OK
// with `*out` untouched.
absl::Status ParseFieldMappingVariable(const Env& env, absl::string_view variable,
                                       const google::protobuf::Descriptor* descriptor, bool required,
                                       std::vector<NamedField>* out);

// depot's Template: a pattern with `%s` placeholders, then comma-separated
// fields filling them ("Service_%s,order_number"); "%%" is a literal percent
// and "/,/" a literal comma in the pattern, as in depot.
class FieldTemplate {
 public:
  // InvalidArgument naming `variable` when the template is empty, a field is
  // bad, or the number of `%s` differs from the number of fields.
  static absl::StatusOr<FieldTemplate> Parse(absl::string_view text,
                                             const google::protobuf::Descriptor* descriptor,
                                             absl::string_view variable);

  // The filled pattern. InvalidArgument naming the field when a field is
  // absent or unreadable (the record fails alone).
  absl::StatusOr<std::string> Render(const Message& m) const;

 private:
  std::vector<std::string> pieces_;  // literal text around the placeholders
  std::vector<RecordField> fields_;  // pieces_.size() == fields_.size() + 1
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_COMMON_RECORD_FIELDS_H_
