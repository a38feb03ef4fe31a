// The retry layer (Firehose's SinkWithRetry): pushes the batch to the sink,
// then re-pushes only the failed messages whose error type is retryable,
// through the shared RetryLoop, at most RETRY_MAX_ATTEMPTS times.
#ifndef SLUICE_SINK_DECORATORS_RETRY_H_
#define SLUICE_SINK_DECORATORS_RETRY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sink/decorators/retry_loop.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/stages.h"

namespace sluice::sink {

class RetryLayer : public Dispatcher {
 public:
  struct Options {
    std::function<bool(ErrorType)> retryable;  // which failures to retry
    int64_t max_attempts = INT32_MAX;          // RETRY_MAX_ATTEMPTS
    bool fail_after_max_attempts = false;      // RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE
    Backoff backoff;
  };
  // `sink` (owned) is the bottom of the chain; `metrics` is not owned.
  RetryLayer(std::unique_ptr<Sink> sink, Options options, Metrics* metrics, RetryHooks hooks);

  // Pushes `batch` and retries; `prefailed` (decode and filter failures) were
  // never pushed and pass through untouched. The outcome is fatal
  // (ResourceExhausted naming the first message's topic/partition/offset)
  // when retries ran out with fail_after_max_attempts.
  DispatchResult Dispatch(const std::vector<Message>& batch,
                          std::vector<FailedMessage> prefailed) override;

 private:
  std::unique_ptr<Sink> sink_;
  Options options_;
  Metrics* metrics_;
  RetryLoop loop_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_RETRY_H_
