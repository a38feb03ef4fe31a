// Process-wide structured logging on spdlog: one line per event,
// `2026-11-22T10:00:00.123Z level=info app=sluice-server msg="..." k=v`,
// ending in ` trace_id=<32 hex> span_id=<16 hex>` when written while a
// traced request or delivery is served (common/trace/trace_context.h).
#ifndef SLUICE_COMMON_LOGGING_H_
#define SLUICE_COMMON_LOGGING_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace sluice {

// Configures the default spdlog logger for application `app` (writes to
// stderr). `level` is trace|debug|info|warn|error|critical|off;
// InvalidArgument for anything else. Safe to call more than once.
absl::Status InitLogging(absl::string_view app, absl::string_view level);

}  // namespace sluice

#endif  // SLUICE_COMMON_LOGGING_H_
