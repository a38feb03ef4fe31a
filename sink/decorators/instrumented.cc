#include "sink/decorators/instrumented.h"

#include <algorithm>
#include <map>

#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {

std::vector<FailedMessage> MeteredSink::Push(const std::vector<Message>& batch) {
  if (batch.empty()) return {};
  // As Firehose's AbstractSink.pushMessage: batch size, the time since the
  // messages were polled, then the push itself. Firehose observes the
  // lifetime per message; one observation per push (its oldest message, the
  // worst case) keeps StatsD at one packet per push instead of one per record.
  metrics_->Observe("firehose_sink_push_batch_size_total", {}, static_cast<double>(batch.size()));
  int64_t oldest_ms = INT64_MAX;
  for (const Message& m : batch) {
    if (m.consume_timestamp_ms > 0) oldest_ms = std::min(oldest_ms, m.consume_timestamp_ms);
  }
  if (oldest_ms != INT64_MAX) {
    metrics_->Observe("firehose_pipeline_execution_lifetime_milliseconds", {},
                      static_cast<double>(absl::ToUnixMillis(absl::Now()) - oldest_ms));
  }
  const absl::Time start = absl::Now();
  std::vector<FailedMessage> failed = inner_->Push(batch);
  metrics_->Observe("firehose_sink_response_time_milliseconds", {},
                    absl::ToDoubleMilliseconds(absl::Now() - start));
  const double ok = static_cast<double>(batch.size() - std::min(batch.size(), failed.size()));
  if (ok > 0) {
    metrics_->Increment("firehose_sink_messages_total", {{"type", "SUCCESS"}}, ok);
    metrics_->Increment("firehose_global_messages_total", {{"scope", "SINK"}, {"type", "SUCCESS"}}, ok);
  }
  if (!failed.empty()) {
    std::map<ErrorType, int> by_type;
    for (const FailedMessage& f : failed) ++by_type[f.error_type];
    for (const auto& [type, n] : by_type) {
      const std::string name(ErrorTypeName(type));
      metrics_->Increment("firehose_sink_messages_total",
                          {{"type", "FAILURE"}, {"error_type", name}}, n);
      metrics_->Increment("firehose_error_messages_total", {{"error_type", name}}, n);
    }
    metrics_->Increment("firehose_global_messages_total", {{"scope", "SINK"}, {"type", "FAILURE"}},
                        static_cast<double>(failed.size()));
  }
  return failed;
}

std::vector<FailedMessage> LoggingSink::Push(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed = inner_->Push(batch);
  if (!failed.empty()) {
    const FailedMessage& f = failed.front();
    spdlog::warn("{} sink: {} of {} message(s) failed; first: {}/{}@{} {}: {}", std::string(Name()),
                 failed.size(), batch.size(), f.message.topic, f.message.partition,
                 f.message.offset, std::string(ErrorTypeName(f.error_type)), f.error);
  }
  return failed;
}

}  // namespace sluice::sink
