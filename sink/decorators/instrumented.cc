#include "sink/decorators/instrumented.h"

#include <map>

#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {

std::vector<FailedMessage> MeteredSink::Push(const std::vector<Message>& batch) {
  if (batch.empty()) return {};
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
      metrics_->Increment("firehose_sink_messages_total",
                          {{"type", "FAILURE"}, {"error_type", std::string(ErrorTypeName(type))}}, n);
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
