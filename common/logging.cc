#include "common/logging.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace sluice {

absl::Status InitLogging(absl::string_view app, absl::string_view level) {
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(absl::StrCat("log level \"", level,
                                                   "\" is not one of trace, debug, info, warn, "
                                                   "error, critical, off"));
  }
  auto logger = spdlog::stderr_logger_mt(absl::StrCat(app, "-", reinterpret_cast<uintptr_t>(&app)));
  logger->set_pattern(absl::StrCat("%Y-%m-%dT%H:%M:%S.%eZ level=%l app=", app, " %v"),
                      spdlog::pattern_time_type::utc);
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return absl::OkStatus();
}

}  // namespace sluice
