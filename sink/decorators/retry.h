// The retry layer (Firehose's SinkWithRetry around SinkWithFailHandler):
// pushes the batch to the sink, stops at once when a failure has an
// ERROR_TYPES_FOR_FAILING type (fail_handler.h), then re-pushes only the
// failed messages whose error type is retryable, through the shared
// RetryLoop, at most RETRY_MAX_ATTEMPTS times, checking the failing types
// after every push.
#ifndef SLUICE_SINK_DECORATORS_RETRY_H_
#define SLUICE_SINK_DECORATORS_RETRY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
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
    std::set<ErrorType> failing;               // ERROR_TYPES_FOR_FAILING
    int64_t max_attempts = INT32_MAX;          // RETRY_MAX_ATTEMPTS
    bool fail_after_max_attempts = false;      // RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE
    Backoff backoff;
  };
  // `sink` (owned) is the bottom of the chain; `metrics` is not owned.
  RetryLayer(std::unique_ptr<Sink> sink, Options options, Metrics* metrics, RetryHooks hooks);

  // Pushes `batch` and retries; `prefailed` (decode and filter failures) were
  // never pushed and are never retried. The outcome is fatal, with every
  // failure of the batch so far in `failed`:
  // - FailedPrecondition (CheckFailing) when a prefailed message or a
  //   failure of any push has a failing type; no retry follows;
  // - ResourceExhausted (naming the first message's topic/partition/offset)
  //   when retries ran out with fail_after_max_attempts.
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
