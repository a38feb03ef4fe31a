// Configuration helpers shared by receiver types. They only use checked
// nlohmann accessors: configurations and overrides are user data, and an
// unexpected type must become an error, never an exception.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONFIG_UTIL_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONFIG_UTIL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/outbound.h"
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

// The first `max` bytes of UTF-8 text `s`, never cutting a character (a cut
// one would make a later json dump() throw).
inline std::string Utf8Prefix(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// config[key] as a string, or `fallback` (also for a non-string value).
inline std::string StringOr(const nlohmann::json& config, const std::string& key,
                            const std::string& fallback) {
  if (config.is_object() && config.contains(key) && config[key].is_string() &&
      !config[key].get<std::string>().empty()) {
    return config[key].get<std::string>();
  }
  return fallback;
}

// OK when config[key] is absent; otherwise it must be a non-empty string
// that is an http:// or https:// URL (InvalidArgument "configurations.<key>: ...").
inline absl::Status OptionalHttpUrl(const nlohmann::json& config, const std::string& key) {
  if (!config.is_object() || !config.contains(key)) return absl::OkStatus();
  if (auto st = RequireString(config, key); !st.ok()) return st;
  return ValidateHttpUrl(absl::StrCat("configurations.", key), config[key].get<std::string>());
}

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONFIG_UTIL_H_
