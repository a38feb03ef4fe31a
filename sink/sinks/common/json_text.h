// JSON serialization that reports bad input as a Status instead of throwing.
// nlohmann::json::dump() throws type_error 316 when a string holds bytes that
// are not valid UTF-8 (a raw Kafka value, a proto2 string field); on a worker
// thread that exception would terminate the process and, since nothing was
// committed, crash-loop on the same record after every restart.
#ifndef SLUICE_SINK_SINKS_COMMON_JSON_TEXT_H_
#define SLUICE_SINK_SINKS_COMMON_JSON_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {

// The compact JSON text of `value`. InvalidArgument "<what>: ..." (with
// nlohmann's reason, e.g. "invalid UTF-8 byte at index 0: 0xFF") when it
// cannot be serialized. Sinks fail that one record with
// INVALID_MESSAGE_ERROR.
absl::StatusOr<std::string> DumpJson(const nlohmann::json& value, absl::string_view what);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_COMMON_JSON_TEXT_H_
