#include "sink/decorators/fail_handler.h"

#include "absl/strings/str_cat.h"

namespace sluice::sink {

DispatchResult FailHandler::Dispatch(const std::vector<Message>& batch,
                                     std::vector<FailedMessage> prefailed) {
  DispatchResult out = inner_->Dispatch(batch, std::move(prefailed));
  if (!out.fatal.ok()) return out;
  for (const FailedMessage& f : out.failed) {
    if (failing_.count(f.error_type) == 0) continue;
    out.fatal = absl::FailedPreconditionError(absl::StrCat(
        ErrorTypeName(f.error_type), " (in ERROR_TYPES_FOR_FAILING) for topic ", f.message.topic,
        " partition ", f.message.partition, " offset ", f.message.offset, ": ", f.error));
    break;
  }
  return out;
}

}  // namespace sluice::sink
