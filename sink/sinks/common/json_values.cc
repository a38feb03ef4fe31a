#include "sink/sinks/common/json_values.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::sink {
namespace {

absl::Status Walk(const nlohmann::json& node, std::vector<std::string>* prefix,
                  absl::string_view variable, std::vector<JsonColumn>* out) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    prefix->push_back(it.key());
    if (it.value().is_object()) {
      if (absl::Status s = Walk(it.value(), prefix, variable, out); !s.ok()) return s;
    } else if (it.value().is_string() && !it.value().get_ref<const std::string&>().empty()) {
      out->push_back({*prefix, it.value().get<std::string>()});
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(variable, ": \"", absl::StrJoin(*prefix, "."),
                       "\" must map to a column name or to an object of nested members"));
    }
    prefix->pop_back();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<JsonColumn>> ParseJsonColumnMapping(absl::string_view text,
                                                               absl::string_view variable) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || doc.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        variable, " must be a non-empty JSON object such as "
                  "{\"order_number\":\"order_number\",\"driver\":{\"name\":\"driver_name\"}}"));
  }
  std::vector<JsonColumn> out;
  std::vector<std::string> prefix;
  if (absl::Status s = Walk(doc, &prefix, variable, &out); !s.ok()) return s;
  return out;
}

const nlohmann::json* JsonMemberAt(const nlohmann::json& record, const std::vector<std::string>& path) {
  const nlohmann::json* node = &record;
  for (const std::string& name : path) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(name);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node->is_null() ? nullptr : node;
}

std::optional<std::string> JsonFieldText(const nlohmann::json& record,
                                         const std::vector<std::string>& path) {
  const nlohmann::json* node = JsonMemberAt(record, path);
  if (node == nullptr) return std::nullopt;
  if (node->is_string()) return node->get<std::string>();
  // Records come from the JSON decoder, so strings are valid UTF-8: no throw.
  return node->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sluice::sink
