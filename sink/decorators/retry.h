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
// Keeps the worker's consumer in its group while a batch is retried: the
// worker pauses fetching and polls the consumer, which resets librdkafka's
// max.poll.interval.ms timer and serves rebalances (review L7). Called on
// the worker thread.
using KeepAlive = std::function<void()>;

// How often the default sleepers call KeepAlive (and check StopCheck)
// during a backoff. Far below any sane max.poll.interval.ms (default 300 s).
inline constexpr absl::Duration kBackoffSlice = absl::Milliseconds(100);

// The default sleeper: sleeps `d` in slices of kBackoffSlice, calling
// `keep_alive` (may be null) after each slice and returning early once
// `stop` (may be null) is true. So a backoff of any length (even above
// max.poll.interval.ms) never evicts the consumer from its group.
void BackoffSleep(absl::Duration d, const StopCheck& stop, const KeepAlive& keep_alive);

class RetryingSink : public Sink {
 public:
  struct Options {
    std::function<bool(ErrorType)> retryable;  // which failures to retry
    int64_t max_attempts = INT32_MAX;          // RETRY_MAX_ATTEMPTS
    bool fail_after_max_attempts = false;      // RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE
    Backoff backoff;
  };
  // `metrics` is not owned; `sleep` defaults to BackoffSleep (sliced so that
  // `stop` is honoured and `keep_alive` runs during the backoff); `stop` and
  // `keep_alive` may be null. `keep_alive` also runs before each attempt.
  RetryingSink(std::unique_ptr<Sink> inner, Options options, Metrics* metrics,
               Sleeper sleep = nullptr, StopCheck stop = nullptr, KeepAlive keep_alive = nullptr);

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
  KeepAlive keep_alive_;
  absl::Status fatal_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_RETRY_H_
