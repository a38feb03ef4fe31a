// Metrics and logging decorators around the concrete sink (Firehose's
// SinkWithMetrics / instrumentation): what the sink itself did, before retry
// and DLQ.
#ifndef SLUICE_SINK_DECORATORS_INSTRUMENTED_H_
#define SLUICE_SINK_DECORATORS_INSTRUMENTED_H_

#include <memory>
#include <vector>

#include "sink/message.h"
#include "sink/metrics.h"

namespace sluice::sink {

// Per push, as Firehose's AbstractSink: observes
// firehose_sink_push_batch_size_total (messages in the push),
// firehose_pipeline_execution_lifetime_milliseconds (since the push's oldest
// message was polled; Firehose observes every message) and firehose_sink_response_time_milliseconds; counts
// firehose_sink_messages_total{type=SUCCESS|FAILURE, error_type},
// firehose_error_messages_total{error_type} (per failed message) and
// firehose_global_messages_total{scope=SINK}.
class MeteredSink : public Sink {
 public:
  MeteredSink(std::unique_ptr<Sink> inner, Metrics* metrics)
      : inner_(std::move(inner)), metrics_(metrics) {}
  std::vector<FailedMessage> Push(const std::vector<Message>& batch) override;
  absl::string_view Name() const override { return inner_->Name(); }

 private:
  std::unique_ptr<Sink> inner_;
  Metrics* metrics_;
};

// Logs a warning per push that had failures: how many, and the first one's
// topic/partition/offset, error type and error.
class LoggingSink : public Sink {
 public:
  explicit LoggingSink(std::unique_ptr<Sink> inner) : inner_(std::move(inner)) {}
  std::vector<FailedMessage> Push(const std::vector<Message>& batch) override;
  absl::string_view Name() const override { return inner_->Name(); }

 private:
  std::unique_ptr<Sink> inner_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_DECORATORS_INSTRUMENTED_H_
