#include "server/access/core/json.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"

namespace sluice::access {

std::string ProtoToJsonString(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string out;
  auto st = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!st.ok()) return "{}";
  return out;
}

nlohmann::json ProtoToJson(const google::protobuf::Message& message) {
  return nlohmann::json::parse(ProtoToJsonString(message), nullptr, /*allow_exceptions=*/false);
}

absl::Status JsonStringToProto(absl::string_view json, google::protobuf::Message* message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  auto st = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), message, options);
  if (!st.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid ", message->GetDescriptor()->name(), " JSON: ", st.ToString()));
  }
  return absl::OkStatus();
}

nlohmann::json StructToJson(const google::protobuf::Struct& s) {
  nlohmann::json j = ProtoToJson(s);
  return j.is_object() ? j : nlohmann::json::object();
}

google::protobuf::Struct JsonToStruct(const nlohmann::json& j) {
  google::protobuf::Struct s;
  if (j.is_object()) (void)JsonStringToProto(j.dump(), &s);
  return s;
}

}  // namespace sluice::access
