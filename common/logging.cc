#include "common/logging.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/trace/trace_context.h"
#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace sluice {
namespace {

// `%*` in the pattern: " trace_id=<32 hex> span_id=<16 hex>" while the
// logging thread serves a traced request (common/trace/trace_context.h),
// nothing otherwise. spdlog formats on the calling thread (the loggers here
// are synchronous), so the thread-local context is the line's own.
class TraceFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const trace::TraceContext* ctx = trace::Current();
    if (ctx == nullptr) return;
    std::string text = absl::StrCat(" trace_id=", ctx->TraceIdHex(), " span_id=", ctx->SpanIdHex());
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<TraceFlag>();
  }
};

}  // namespace

absl::Status InitLogging(absl::string_view app, absl::string_view level) {
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(absl::StrCat("log level \"", level,
                                                   "\" is not one of trace, debug, info, warn, "
                                                   "error, critical, off"));
  }
  auto logger = spdlog::stderr_logger_mt(absl::StrCat(app, "-", reinterpret_cast<uintptr_t>(&app)));
  logger->set_formatter(
      NewTraceLogFormatter(absl::StrCat("%Y-%m-%dT%H:%M:%S.%eZ level=%l app=", app, " %v%*")));
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return absl::OkStatus();
}

std::unique_ptr<spdlog::formatter> NewTraceLogFormatter(absl::string_view pattern) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<TraceFlag>('*').set_pattern(std::string(pattern));
  return formatter;
}

}  // namespace sluice
