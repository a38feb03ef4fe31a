#include "sink/decorators/factory.h"

#include "sink/decorators/final.h"
#include "sink/decorators/instrumented.h"

namespace sluice::sink {
absl::StatusOr<std::unique_ptr<Dispatcher>> BuildDispatcher(const ErrorConfig& errors,
                                                            std::unique_ptr<Sink> sink,
                                                            Metrics* metrics,
                                                            DispatcherHooks hooks) {
  const std::set<ErrorType> failing = errors.failing;
  const std::set<ErrorType> retry_types = errors.retry;
  const bool dlq_enabled = errors.dlq_enable;
  const Backoff backoff{errors.backoff_initial_ms, errors.backoff_rate, errors.backoff_max_ms};
  const RetryHooks retry_hooks{hooks.sleep, hooks.stop, hooks.keep_alive};

  RetryLayer::Options ro;
  // Only ERROR_TYPES_FOR_RETRY, DLQ or not (ErrorHandler.java:38-39).
  ro.retryable = [=](ErrorType t) { return retry_types.count(t) > 0; };
  ro.failing = failing;
  ro.max_attempts = errors.retry_max_attempts;
  ro.fail_after_max_attempts = errors.retry_fail_after_max_attempts;
  ro.backoff = backoff;
  std::unique_ptr<Dispatcher> chain = std::make_unique<RetryLayer>(
      std::make_unique<LoggingSink>(std::make_unique<MeteredSink>(std::move(sink), metrics)), ro,
      metrics, retry_hooks);

  if (dlq_enabled) {
    std::unique_ptr<DlqWriter> writer = std::move(hooks.dlq_writer);
    if (writer == nullptr) {
      if (!hooks.make_dlq_writer) {
        return absl::FailedPreconditionError(
            "DLQ_SINK_ENABLE=true but no DLQ writer factory was supplied");
      }
      auto w = hooks.make_dlq_writer(errors, retry_hooks);
      if (!w.ok()) return w.status();
      writer = *std::move(w);
    }
    const std::set<ErrorType> dlq_types = errors.dlq;
    DlqLayer::Options dopt;
    // Only ERROR_TYPES_FOR_DLQ; empty (the default) routes nothing
    // (ErrorHandler.java:34-35).
    dopt.to_dlq = [=](ErrorType t) { return dlq_types.count(t) > 0; };
    dopt.max_attempts = errors.dlq_retry_max_attempts;
    dopt.fail_after_max_attempts = errors.dlq_fail_after_max_attempts;
    dopt.backoff = backoff;
    chain = std::make_unique<DlqLayer>(std::move(chain), std::move(writer), dopt, metrics,
                                       retry_hooks);
  }
  return std::unique_ptr<Dispatcher>(new FinalLayer(std::move(chain), metrics, hooks.stop));
}

}  // namespace sluice::sink
