#include "server/access/store/row_json.h"

#include <google/protobuf/util/time_util.h>

namespace sluice::access {

namespace {

void FillStruct(const nlohmann::json& obj, google::protobuf::Struct* out) {
  auto* fields = out->mutable_fields();
  for (auto it = obj.begin(); it != obj.end(); ++it) (*fields)[it.key()] = ValueFromJson(it.value());
}

nlohmann::json Parse(absl::string_view text) {
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace

google::protobuf::Value ValueFromJson(const nlohmann::json& j) {
  google::protobuf::Value v;
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      v.set_null_value(google::protobuf::NULL_VALUE);
      break;
    case nlohmann::json::value_t::boolean:
      v.set_bool_value(j.get<bool>());
      break;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      v.set_number_value(j.get<double>());
      break;
    case nlohmann::json::value_t::string:
      v.set_string_value(j.get_ref<const std::string&>());
      break;
    case nlohmann::json::value_t::array: {
      auto* list = v.mutable_list_value();
      for (const auto& e : j) *list->add_values() = ValueFromJson(e);
      break;
    }
    case nlohmann::json::value_t::object:
      FillStruct(j, v.mutable_struct_value());
      break;
    default:  // binary and discarded do not come out of the parser
      v.set_null_value(google::protobuf::NULL_VALUE);
      break;
  }
  return v;
}

std::optional<google::protobuf::Struct> StructFromJsonText(absl::string_view text) {
  nlohmann::json j = Parse(text);
  if (!j.is_object()) return std::nullopt;
  google::protobuf::Struct s;
  FillStruct(j, &s);
  return s;
}

std::optional<pb::Appeal> AppealFromDataJson(absl::string_view text) {
  nlohmann::json j = Parse(text);
  if (!j.is_object()) return std::nullopt;
  pb::Appeal a;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& v = it.value();
    if (key == "permissions") {
      if (!v.is_array()) return std::nullopt;
      for (const auto& p : v) {
        if (!p.is_string()) return std::nullopt;
        a.add_permissions(p.get_ref<const std::string&>());
      }
    } else if (key == "description") {
      if (!v.is_string()) return std::nullopt;
      a.set_description(v.get_ref<const std::string&>());
    } else if (key == "labels") {
      if (!v.is_object()) return std::nullopt;
      for (auto l = v.begin(); l != v.end(); ++l) {
        if (!l.value().is_string()) return std::nullopt;
        (*a.mutable_labels())[l.key()] = l.value().get_ref<const std::string&>();
      }
    } else if (key == "details") {
      if (!v.is_object()) return std::nullopt;
      FillStruct(v, a.mutable_details());
    } else if (key == "creator") {
      *a.mutable_creator() = ValueFromJson(v);
    } else if (key == "options") {
      if (!v.is_object()) return std::nullopt;
      pb::AppealOptions* options = a.mutable_options();
      for (auto o = v.begin(); o != v.end(); ++o) {
        if (!o.value().is_string()) return std::nullopt;
        const std::string& s = o.value().get_ref<const std::string&>();
        if (o.key() == "duration") {
          options->set_duration(s);
        } else if (o.key() != "expiration_date" ||
                   !google::protobuf::util::TimeUtil::FromString(s, options->mutable_expiration_date())) {
          return std::nullopt;
        }
      }
    } else {
      return std::nullopt;  // any other field: the proto JSON parser reads it
    }
  }
  return a;
}

}  // namespace sluice::access
