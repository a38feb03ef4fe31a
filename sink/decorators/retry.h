// The retry decorator (Firehose's SinkWithRetry): re-pushes only the failed
// messages whose error type is retryable, sleeping
// min(RETRY_EXPONENTIAL_BACKOFF_MAX_MS, INITIAL_MS × RATE^attempt) before each
// attempt, at most RETRY_MAX_ATTEMPTS times.
#ifndef SLUICE_SINK_DECORATORS_RETRY_H_
#define SLUICE_SINK_DECORATORS_RETRY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "sink/message.h"
#include "sink/metrics.h"

namespace sluice::sink {

// Exponential backoff: Delay(n) = min(max_ms, initial_ms × rate^n), n from 0.
struct Backoff {
  int64_t initial_ms = 10;
  double rate = 2;
  int64_t max_ms = 60000;
  absl::Duration Delay(int64_t attempt) const;
};

// Sleeps for a duration; tests substitute a recorder.
using Sleeper = std::function<void(absl::Duration)>;
// True when the worker is asked to stop: retries end early, the messages stay
// failed (and uncommitted).
using StopCheck = std::function<bool()>;

class RetryingSink : public Sink {
 public:
  struct Options {
    std::function<bool(ErrorType)> retryable;  // which failures to retry
    int64_t max_attempts = INT32_MAX;          // RETRY_MAX_ATTEMPTS
    bool fail_after_max_attempts = false;      // RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE
    Backoff backoff;
  };
  // `metrics` is not owned; `sleep` defaults to absl::SleepFor (sliced so that
  // `stop` is honoured); `stop` may be null.
  RetryingSink(std::unique_ptr<Sink> inner, Options options, Metrics* metrics,
               Sleeper sleep = nullptr, StopCheck stop = nullptr);

  std::vector<FailedMessage> Push(const std::vector<Message>& batch) override;
  absl::string_view Name() const override { return inner_->Name(); }

  // Not OK once retries were exhausted with fail_after_max_attempts; the
  // message names the first message's topic/partition/offset. Clears it.
  absl::Status TakeFatal();

 private:
  std::unique_ptr<Sink> inner_;
  Options options_;
  Metrics* metrics_;
  Sleeper sleep_;
  StopCheck stop_;
  absl::Status fatal_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_RETRY_H_
