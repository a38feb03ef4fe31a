#include "sink/decorators/fail_handler.h"

#include "absl/strings/str_cat.h"

namespace sluice::sink {

absl::Status CheckFailing(const std::vector<FailedMessage>& failed,
                          const std::set<ErrorType>& failing) {
  for (const FailedMessage& f : failed) {
    if (failing.count(f.error_type) == 0) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        ErrorTypeName(f.error_type), " (in ERROR_TYPES_FOR_FAILING) for topic ", f.message.topic,
        " partition ", f.message.partition, " offset ", f.message.offset, ": ", f.error));
  }
  return absl::OkStatus();
}

}  // namespace sluice::sink
