// Process-wide structured logging on spdlog: one line per event,
// `2026-11-22T10:00:00.123Z level=info app=sluice-server msg="..." k=v`,
// ending in ` trace_id=<32 hex> span_id=<16 hex>` when written while a
// traced request or delivery is served (common/trace/trace_context.h).
#ifndef SLUICE_COMMON_LOGGING_H_
#define SLUICE_COMMON_LOGGING_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "spdlog/formatter.h"

namespace sluice {

// Configures the default spdlog logger for application `app` (writes to
// stderr). `level` is trace|debug|info|warn|error|critical|off;
// InvalidArgument for anything else. Safe to call more than once.
absl::Status InitLogging(absl::string_view app, absl::string_view level);

// An spdlog formatter for `pattern` (spdlog's pattern flags, UTC times) that
// also knows `%*`: " trace_id=<32 hex> span_id=<16 hex>" while the logging
// thread has a trace context (common/trace/trace_context.h), else nothing.
// For programs with a log format of their own (sluice-sink).
std::unique_ptr<spdlog::formatter> NewTraceLogFormatter(absl::string_view pattern);

}  // namespace sluice

#endif  // SLUICE_COMMON_LOGGING_H_
