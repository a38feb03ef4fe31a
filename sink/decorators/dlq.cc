#include "sink/decorators/dlq.h"

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {

DlqLayer::DlqLayer(std::unique_ptr<Dispatcher> inner, std::unique_ptr<DlqWriter> writer,
                   Options options, Metrics* metrics, RetryHooks hooks)
    : inner_(std::move(inner)),
      writer_(std::move(writer)),
      options_(std::move(options)),
      metrics_(metrics),
      loop_(options_.max_attempts, options_.backoff, "firehose_dlq_retry_attempts_total", metrics,
            std::move(hooks)) {}

DispatchResult DlqLayer::Dispatch(const std::vector<Message>& batch,
                                  std::vector<FailedMessage> prefailed) {
  DispatchResult out = inner_->Dispatch(batch, std::move(prefailed));
  if (!out.fatal.ok()) return out;
  std::vector<FailedMessage> rest, pending;
  for (FailedMessage& f : out.failed) {
    (options_.to_dlq(f.error_type) ? pending : rest).push_back(std::move(f));
  }
  out.failed = std::move(rest);
  if (pending.empty()) return out;
  const int64_t total = static_cast<int64_t>(pending.size());
  for (const FailedMessage& f : pending) {
    metrics_->Increment("firehose_dlq_messages_total",
                        {{"type", "TOTAL"}, {"error_type", std::string(ErrorTypeName(f.error_type))}});
  }
  pending = writer_->Write(pending);
  const int64_t attempts = loop_.Run(&pending, [this](std::vector<FailedMessage> p) {
    return writer_->Write(p);
  });
  const int64_t left = static_cast<int64_t>(pending.size());
  metrics_->Increment("firehose_dlq_messages_total", {{"type", "SUCCESS"}},
                      static_cast<double>(total - left));
  metrics_->Increment("firehose_global_messages_total", {{"scope", "DLQ"}, {"type", "SUCCESS"}},
                      static_cast<double>(total - left));
  if (left > 0) {
    metrics_->Increment("firehose_dlq_messages_total", {{"type", "FAILURE"}},
                        static_cast<double>(left));
    if (options_.fail_after_max_attempts) {
      const FailedMessage& f = pending.front();
      out.fatal = absl::UnavailableError(absl::StrCat(
          "DLQ write failed after ", attempts,
          " retr(ies) (DLQ_RETRY_FAIL_AFTER_MAX_ATTEMPT_ENABLE) for ", f.message.topic, "/",
          f.message.partition, "@", f.message.offset, ": ", f.error));
    }
    for (FailedMessage& f : pending) out.failed.push_back(std::move(f));
  }
  return out;
}

}  // namespace sluice::sink
