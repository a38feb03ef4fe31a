// Small conversions shared by the notification repositories.
#ifndef SLUICE_SERVER_NOTIFICATION_STORE_SQL_UTIL_H_
#define SLUICE_SERVER_NOTIFICATION_STORE_SQL_UTIL_H_

#include <string>

#include <soci/soci.h>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "server/notification/core/model.h"

namespace sluice::notification::sqlutil {

// SQL selecting a timestamptz column as microseconds since the epoch (bigint).
inline std::string Micros(const std::string& col) {
  return "(EXTRACT(EPOCH FROM " + col + ") * 1000000)::bigint";
}

inline absl::Time TimeFromMicros(long long us) { return absl::FromUnixMicros(us); }

inline std::string LabelsText(const Labels& l) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : l) j[k] = v;
  return j.dump();
}

inline Labels LabelsFromText(const std::string& s) {
  Labels out;
  auto j = nlohmann::json::parse(s, nullptr, false);
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
  }
  return out;
}

inline nlohmann::json JsonFromText(const std::string& s) {
  auto j = nlohmann::json::parse(s, nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

// Rows changed by the last execute of `st`.
inline long long Affected(soci::statement& st) { return st.get_affected_rows(); }

}  // namespace sluice::notification::sqlutil

#endif  // SLUICE_SERVER_NOTIFICATION_STORE_SQL_UTIL_H_
