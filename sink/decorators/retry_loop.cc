#include "sink/decorators/retry_loop.h"

#include <algorithm>
#include <cmath>

#include "absl/time/clock.h"

namespace sluice::sink {

absl::Duration Backoff::Delay(int64_t attempt) const {
  double ms = static_cast<double>(initial_ms) * std::pow(rate, static_cast<double>(attempt));
  if (!(ms < static_cast<double>(max_ms))) ms = static_cast<double>(max_ms);  // also NaN/inf
  return absl::Milliseconds(ms);
}

void BackoffSleep(absl::Duration d, const StopCheck& stop, const KeepAlive& keep_alive) {
  const absl::Time until = absl::Now() + d;
  while (absl::Now() < until && !(stop && stop())) {
    absl::SleepFor(std::min(until - absl::Now(), kBackoffSlice));
    if (keep_alive) keep_alive();
  }
}

RetryLoop::RetryLoop(int64_t max_attempts, Backoff backoff, std::string attempts_metric,
                     Metrics* metrics, RetryHooks hooks)
    : max_attempts_(max_attempts),
      backoff_(backoff),
      attempts_metric_(std::move(attempts_metric)),
      metrics_(metrics),
      hooks_(std::move(hooks)) {
  if (!hooks_.sleep) {
    hooks_.sleep = [stop = hooks_.stop, keep_alive = hooks_.keep_alive](absl::Duration d) {
      BackoffSleep(d, stop, keep_alive);
    };
  }
}

int64_t RetryLoop::Run(std::vector<FailedMessage>* pending, const Attempt& attempt) const {
  int64_t n = 0;
  while (!pending->empty() && n < max_attempts_ && !Stopping()) {
    const absl::Duration delay = backoff_.Delay(n);
    metrics_->Observe("firehose_retry_backoff_sleep_milliseconds", {},
                      absl::ToDoubleMilliseconds(delay));
    hooks_.sleep(delay);
    if (Stopping()) break;
    // Also with a zero backoff: each attempt may take up to the sink's own
    // timeout, and unlimited attempts add up.
    if (hooks_.keep_alive) hooks_.keep_alive();
    ++n;
    metrics_->Increment(attempts_metric_, {}, 1);
    *pending = attempt(std::move(*pending));
  }
  return n;
}

}  // namespace sluice::sink
