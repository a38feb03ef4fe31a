// Configuration helpers shared by receiver types.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONFIG_UTIL_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONFIG_UTIL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace sluice::notification::receivers {

// InvalidArgument "configurations.<key>: is required (a non-empty string)"
// unless config[key] is a non-empty string.
inline absl::Status RequireString(const nlohmann::json& config, const std::string& key) {
  if (!config.is_object() || !config.contains(key) || !config[key].is_string() ||
      config[key].get<std::string>().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("configurations.", key, ": is required (a non-empty string)"));
  }
  return absl::OkStatus();
}

// config[key] as a string, or `fallback`.
inline std::string StringOr(const nlohmann::json& config, const std::string& key,
                            const std::string& fallback) {
  if (config.is_object() && config.contains(key) && config[key].is_string() &&
      !config[key].get<std::string>().empty()) {
    return config[key].get<std::string>();
  }
  return fallback;
}

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONFIG_UTIL_H_
