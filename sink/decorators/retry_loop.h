// The one retry loop of the sink chain, shared by the retry layer (Firehose's
// SinkWithRetry) and the DLQ layer (SinkWithDlq's writer retries): sleep
// min(max_ms, initial_ms × rate^n), keep the consumer alive, attempt again,
// until nothing is pending, the attempts run out or the worker is asked to
// stop. Modelled on google-cloud-cpp's RetryLoop: the sleeper is injected so
// that tests run without real time.
#ifndef SLUICE_SINK_DECORATORS_RETRY_LOOP_H_
#define SLUICE_SINK_DECORATORS_RETRY_LOOP_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "sink/message.h"
#include "sink/metrics.h"

namespace sluice::sink {

// Exponential backoff: Delay(n) = min(max_ms, initial_ms × rate^n), n from 0
// (RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS, _RATE, _MAX_MS).
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

// How often the default sleeper calls KeepAlive (and checks StopCheck)
// during a backoff. Far below any sane max.poll.interval.ms (default 300 s).
inline constexpr absl::Duration kBackoffSlice = absl::Milliseconds(100);

// The default sleeper: sleeps `d` in slices of kBackoffSlice, calling
// `keep_alive` (may be null) after each slice and returning early once
// `stop` (may be null) is true. So a backoff of any length (even above
// max.poll.interval.ms) never evicts the consumer from its group, and SIGTERM
// never waits out a backoff.
void BackoffSleep(absl::Duration d, const StopCheck& stop, const KeepAlive& keep_alive);

// What a retry loop needs from the worker; every member may be null.
struct RetryHooks {
  Sleeper sleep;         // null: BackoffSleep(d, stop, keep_alive)
  StopCheck stop;
  KeepAlive keep_alive;
};

class RetryLoop {
 public:
  // `attempts_metric` is counted once per attempt (e.g.
  // firehose_retry_attempts_total); every sleep is observed as
  // firehose_retry_backoff_sleep_milliseconds, as Firehose's
  // ExponentialBackOffProvider does. `metrics` is not owned.
  RetryLoop(int64_t max_attempts, Backoff backoff, std::string attempts_metric, Metrics* metrics,
            RetryHooks hooks);

  // One attempt: takes the pending failures, returns those still pending.
  using Attempt = std::function<std::vector<FailedMessage>(std::vector<FailedMessage>)>;

  // Runs `attempt` on `*pending` until it is empty, max_attempts attempts
  // were made, or a stop is requested (checked before every sleep and every
  // attempt). Returns the number of attempts made; `*pending` keeps what is
  // still failing.
  int64_t Run(std::vector<FailedMessage>* pending, const Attempt& attempt) const;

 private:
  bool Stopping() const { return hooks_.stop && hooks_.stop(); }

  int64_t max_attempts_;
  Backoff backoff_;
  std::string attempts_metric_;
  Metrics* metrics_;
  RetryHooks hooks_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_RETRY_LOOP_H_
