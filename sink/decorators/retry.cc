#include "sink/decorators/retry.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {

absl::Duration Backoff::Delay(int64_t attempt) const {
  double ms = static_cast<double>(initial_ms) * std::pow(rate, static_cast<double>(attempt));
  if (!(ms < static_cast<double>(max_ms))) ms = static_cast<double>(max_ms);  // also NaN/inf
  return absl::Milliseconds(ms);
}

void BackoffSleep(absl::Duration d, const StopCheck& stop, const KeepAlive& keep_alive) {
  // Sliced so that SIGTERM does not wait out a long backoff, and so that the
  // consumer is polled often enough to stay in its group however long the
  // backoff (RETRY_EXPONENTIAL_BACKOFF_MAX_MS may exceed max.poll.interval.ms).
  absl::Time until = absl::Now() + d;
  while (absl::Now() < until && !(stop && stop())) {
    absl::SleepFor(std::min(until - absl::Now(), kBackoffSlice));
    if (keep_alive) keep_alive();
  }
}

RetryingSink::RetryingSink(std::unique_ptr<Sink> inner, Options options, Metrics* metrics,
                           Sleeper sleep, StopCheck stop, KeepAlive keep_alive)
    : inner_(std::move(inner)),
      options_(std::move(options)),
      metrics_(metrics),
      sleep_(std::move(sleep)),
      stop_(std::move(stop)),
      keep_alive_(std::move(keep_alive)) {
  if (!sleep_) {
    sleep_ = [this](absl::Duration d) { BackoffSleep(d, stop_, keep_alive_); };
  }
}

absl::Status RetryingSink::TakeFatal() {
  absl::Status s = fatal_;
  fatal_ = absl::OkStatus();
  return s;
}

std::vector<FailedMessage> RetryingSink::Push(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  std::vector<FailedMessage> pending;  // retryable failures, with their last error
  for (FailedMessage& f : inner_->Push(batch)) {
    (options_.retryable(f.error_type) ? pending : failed).push_back(std::move(f));
  }
  if (pending.empty()) return failed;
  const int64_t first_count = static_cast<int64_t>(pending.size());
  int64_t attempt = 0;
  std::vector<Message> again;
  while (!pending.empty() && attempt < options_.max_attempts && !(stop_ && stop_())) {
    sleep_(options_.backoff.Delay(attempt));
    // Also with a zero backoff: each attempt may take up to the sink's own
    // timeout, and unlimited attempts (RETRY_MAX_ATTEMPTS) add up.
    if (keep_alive_) keep_alive_();
    ++attempt;
    metrics_->Increment("firehose_retry_attempts_total", {}, 1);
    again.clear();
    for (FailedMessage& f : pending) again.push_back(std::move(f.message));
    pending.clear();
    for (FailedMessage& f : inner_->Push(again)) {
      (options_.retryable(f.error_type) ? pending : failed).push_back(std::move(f));
    }
  }
  const int64_t remaining = static_cast<int64_t>(pending.size());
  metrics_->Increment("firehose_retry_messages_total", {{"type", "SUCCESS"}},
                      static_cast<double>(first_count - remaining));
  if (remaining > 0) {
    metrics_->Increment("firehose_retry_messages_total", {{"type", "FAILURE"}},
                        static_cast<double>(remaining));
    if (options_.fail_after_max_attempts && attempt >= options_.max_attempts) {
      const FailedMessage& f = pending.front();
      fatal_ = absl::ResourceExhaustedError(absl::StrCat(
          "retries exhausted after ", attempt,
          " attempt(s) (RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE): ", ErrorTypeName(f.error_type),
          " for ", f.message.topic, "/", f.message.partition, "@", f.message.offset, ": ",
          f.error));
    }
    for (FailedMessage& f : pending) failed.push_back(std::move(f));
  }
  return failed;
}

}  // namespace sluice::sink
