#include "sink/decorators/final.h"

#include <string>

#include "spdlog/spdlog.h"

namespace sluice::sink {

DispatchResult FinalLayer::Dispatch(const std::vector<Message>& batch,
                                    std::vector<FailedMessage> prefailed) {
  DispatchResult out = inner_->Dispatch(batch, std::move(prefailed));
  if (out.failed.empty() || !out.fatal.ok() || (stop_ && stop_())) return out;
  for (const FailedMessage& f : out.failed) {
    spdlog::warn(
        "dropping {} topic={} partition={} offset={} after the retries: its type is in "
        "neither ERROR_TYPES_FOR_RETRY nor ERROR_TYPES_FOR_DLQ (or its retries or DLQ writes "
        "ran out), as Firehose's SinkFinal ignores it: {}",
        std::string(ErrorTypeName(f.error_type)), f.message.topic, f.message.partition,
        f.message.offset, f.error);
  }
  metrics_->Increment("firehose_global_messages_total", {{"scope", "IGNORED"}, {"type", "TOTAL"}},
                      static_cast<double>(out.failed.size()));
  out.ignored = std::move(out.failed);
  out.failed.clear();
  return out;
}

}  // namespace sluice::sink
