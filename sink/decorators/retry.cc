#include "sink/decorators/retry.h"

#include "absl/strings/str_cat.h"
#include "sink/decorators/fail_handler.h"

namespace sluice::sink {

RetryLayer::RetryLayer(std::unique_ptr<Sink> sink, Options options, Metrics* metrics,
                       RetryHooks hooks)
    : sink_(std::move(sink)),
      options_(std::move(options)),
      metrics_(metrics),
      loop_(options_.max_attempts, options_.backoff, "firehose_retry_attempts_total", metrics,
            std::move(hooks)) {}

DispatchResult RetryLayer::Dispatch(const std::vector<Message>& batch,
                                    std::vector<FailedMessage> prefailed) {
  DispatchResult out;
  std::vector<FailedMessage> pending;  // retryable failures, with their last error
  auto split = [&](std::vector<FailedMessage> failed) {
    std::vector<FailedMessage> retry;
    for (FailedMessage& f : failed) {
      (options_.retryable(f.error_type) ? retry : out.failed).push_back(std::move(f));
    }
    return retry;
  };
  // Firehose's SinkWithFailHandler sits inside SinkWithRetry
  // (FirehoseConsumerFactory.java:167-168), so a failing type throws on the
  // push that returned it, before any (further) retry.
  auto fail = [&](std::vector<FailedMessage> rest, absl::Status fatal) {
    for (FailedMessage& f : rest) out.failed.push_back(std::move(f));
    for (FailedMessage& f : prefailed) out.failed.push_back(std::move(f));
    out.fatal = std::move(fatal);
    return std::move(out);
  };
  if (!batch.empty()) {
    std::vector<FailedMessage> first = sink_->Push(batch);
    absl::Status st = CheckFailing(first, options_.failing);
    if (st.ok()) st = CheckFailing(prefailed, options_.failing);
    if (!st.ok()) return fail(std::move(first), std::move(st));
    pending = split(std::move(first));
  } else if (absl::Status st = CheckFailing(prefailed, options_.failing); !st.ok()) {
    return fail({}, std::move(st));
  }
  if (!pending.empty()) {
    const int64_t first_count = static_cast<int64_t>(pending.size());
    std::vector<Message> again;
    absl::Status failing;
    std::vector<FailedMessage> failed_hard;  // the push that returned a failing type
    const int64_t attempts = loop_.Run(&pending, [&](std::vector<FailedMessage> p) {
      again.clear();
      for (FailedMessage& f : p) again.push_back(std::move(f.message));
      std::vector<FailedMessage> r = sink_->Push(again);
      failing = CheckFailing(r, options_.failing);
      if (!failing.ok()) {
        failed_hard = std::move(r);
        return std::vector<FailedMessage>{};  // ends the loop
      }
      return split(std::move(r));
    });
    if (!failing.ok()) return fail(std::move(failed_hard), std::move(failing));
    const int64_t remaining = static_cast<int64_t>(pending.size());
    metrics_->Increment("firehose_retry_messages_total", {{"type", "SUCCESS"}},
                        static_cast<double>(first_count - remaining));
    if (remaining > 0) {
      metrics_->Increment("firehose_retry_messages_total", {{"type", "FAILURE"}},
                          static_cast<double>(remaining));
      if (options_.fail_after_max_attempts && attempts >= options_.max_attempts) {
        const FailedMessage& f = pending.front();
        out.fatal = absl::ResourceExhaustedError(absl::StrCat(
            "retries exhausted after ", attempts,
            " attempt(s) (RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE): ", ErrorTypeName(f.error_type),
            " for ", f.message.topic, "/", f.message.partition, "@", f.message.offset, ": ",
            f.error));
      }
      for (FailedMessage& f : pending) out.failed.push_back(std::move(f));
    }
  }
  for (FailedMessage& f : prefailed) out.failed.push_back(std::move(f));
  return out;
}

}  // namespace sluice::sink
