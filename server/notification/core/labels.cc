#include "server/notification/core/labels.h"

#include <cmath>
#include <cstdint>

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

namespace {

// A selector's "id" as a number: a non-negative integer that fits uint64.
// Struct numbers arrive as doubles, and converting one outside uint64's
// range (1e30, 2^64) is undefined behaviour, so the range is checked first
// (found by scripts/fuzz-requests.sh).
bool ReceiverId(const nlohmann::json& v, uint64_t* id) {
  if (v.is_number_unsigned()) {
    *id = v.get<uint64_t>();
    return true;
  }
  if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    if (i < 0) return false;
    *id = static_cast<uint64_t>(i);
    return true;
  }
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  // 2^64 as a double; NaN fails the comparisons.
  if (!(d >= 0 && d < 18446744073709551616.0) || d != std::floor(d)) return false;
  *id = static_cast<uint64_t>(d);
  return true;
}

}  // namespace

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
      } else if (uint64_t id = 0; it.key() == "id" && ReceiverId(v, &id)) {
        labels["id"] = std::to_string(id);
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
