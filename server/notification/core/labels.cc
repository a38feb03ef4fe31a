#include "server/notification/core/labels.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace sluice::notification {

bool LabelsContain(const Labels& labels, const Labels& subset) {
  for (const auto& [k, v] : subset) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

Labels EffectiveLabels(const Receiver& r) {
  Labels out = r.labels;
  out["id"] = std::to_string(r.id);
  out["type"] = r.type;
  return out;
}

absl::StatusOr<std::vector<Labels>> ParseSelectors(const std::vector<nlohmann::json>& selectors) {
  std::vector<Labels> out;
  for (size_t i = 0; i < selectors.size(); ++i) {
    const nlohmann::json& sel = selectors[i];
    if (!sel.is_object() || sel.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("receivers[", i, "]: a selector is a non-empty object"));
    }
    Labels labels;
    for (auto it = sel.begin(); it != sel.end(); ++it) {
      const nlohmann::json& v = it.value();
      if (v.is_string()) {
        labels[it.key()] = v.get<std::string>();
      } else if (it.key() == "id" && v.is_number() && v.get<double>() >= 0 &&
                 v.get<double>() == static_cast<double>(v.get<uint64_t>())) {
        labels["id"] = std::to_string(v.get<uint64_t>());
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "receivers[", i, "].", it.key(),
            ": must be a string (or an integer for \"id\")"));
      }
    }
    out.push_back(std::move(labels));
  }
  return out;
}

bool ValidName(absl::string_view s, absl::string_view extra) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        extra.find(c) == absl::string_view::npos) {
      return false;
    }
  }
  return true;
}

}  // namespace sluice::notification
