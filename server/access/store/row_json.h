// Decoders for the JSON columns that access lists read on every row, built on
// nlohmann::json instead of protobuf's JsonStringToMessage. Protobuf 3.21's
// JSON parser resolves the message's type afresh on each call (a
// google.protobuf.Type built from the descriptor, per nested type), which
// cost tens of microseconds per row of an admin page (issue 28 item 4). These
// read only the shapes our own writers produce (ProtoToJsonString with
// preserve_proto_field_names) and say when they meet anything else, so that
// the caller falls back to JsonStringToProto with identical results.
#ifndef SLUICE_SERVER_ACCESS_STORE_ROW_JSON_H_
#define SLUICE_SERVER_ACCESS_STORE_ROW_JSON_H_

#include <optional>

#include <google/protobuf/struct.pb.h>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "proto/sluice/access/v1beta1/appeal.pb.h"

namespace sluice::access {

namespace pb = ::sluice::access::v1beta1;

// `j` as a google.protobuf.Value, as the proto JSON parser reads it: numbers
// as doubles, null as NULL_VALUE, arrays and objects recursively.
google::protobuf::Value ValueFromJson(const nlohmann::json& j);

// The JSON object `text` as a Struct; nullopt when `text` is not a JSON
// object (the caller then uses JsonStringToProto).
std::optional<google::protobuf::Struct> StructFromJsonText(absl::string_view text);

// An appeal's data column (AppealData's JSON, the column-backed keys
// possibly removed) as an Appeal holding permissions, options, details,
// labels, description and creator. nullopt when `text` holds any other key
// or a value of another shape (the caller then uses JsonStringToProto).
std::optional<pb::Appeal> AppealFromDataJson(absl::string_view text);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_ROW_JSON_H_
