#include "sink/sinks/common/json_values.h"

namespace sluice::sink {

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
