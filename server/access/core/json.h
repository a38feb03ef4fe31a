// Proto <-> JSON conversion with proto field names (snake_case), shared by
// the core (expression bindings such as $appeal, $resource) and the store
// (JSONB columns).
#ifndef SLUICE_SERVER_ACCESS_CORE_JSON_H_
#define SLUICE_SERVER_ACCESS_CORE_JSON_H_

#include <string>

#include <google/protobuf/message.h>
#include <google/protobuf/struct.pb.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace sluice::access {

// `message` as JSON text with proto field names; defaults omitted.
std::string ProtoToJsonString(const google::protobuf::Message& message);
// `message` as a JSON document (same rules).
nlohmann::json ProtoToJson(const google::protobuf::Message& message);
// Parses JSON text into `message` (unknown fields ignored). InvalidArgument on error.
absl::Status JsonStringToProto(absl::string_view json, google::protobuf::Message* message);
// A google.protobuf.Struct as JSON (an object) and back. Non-objects give an
// empty Struct.
nlohmann::json StructToJson(const google::protobuf::Struct& s);
google::protobuf::Struct JsonToStruct(const nlohmann::json& j);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_JSON_H_
