// SINK_TYPE=prometheus (Firehose's Prometheus/Cortex sink, firehose:
// sink/prometheus): each message becomes one time series per mapped metric
// (labels __name__, kafka_partition and the mapped labels; one sample), and
// each batch one remote-write request: a snappy-compressed
// prometheus.WriteRequest POSTed through common/http_client (remote-write
// spec 1.0 headers).
#ifndef SLUICE_SINK_SINKS_PROMETHEUS_PROM_SINK_H_
#define SLUICE_SINK_SINKS_PROMETHEUS_PROM_SINK_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http_client.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/record_fields.h"
#include "sink/sinks/prometheus/remote.pb.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Parsed SINK_PROM_* configuration (Firehose's PromSinkConfig names and
// defaults).
struct PromSinkConfig {
  std::string url;                       // SINK_PROM_SERVICE_URL (http/https)
  int64_t request_timeout_ms = 10000;    // SINK_PROM_REQUEST_TIMEOUT_MS
  // SINK_PROM_RETRY_STATUS_CODE_RANGES (400-600): answers that fail the batch
  // (SINK_4XX_ERROR / SINK_5XX_ERROR); other non-2xx answers are dropped and
  // counted, as Firehose does.
  std::vector<std::pair<int, int>> retry_ranges = {{400, 600}};
  // SINK_PROM_REQUEST_LOG_STATUS_CODE_RANGES (400-499): answers logged
  // (status and sizes only).
  std::vector<std::pair<int, int>> log_ranges = {{400, 499}};
  std::vector<std::pair<std::string, std::string>> headers;  // SINK_PROM_HEADERS
  // SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING (required) and
  // SINK_PROM_LABEL_NAME_PROTO_INDEX_MAPPING: {"<index or name>": "<name>"},
  // nested objects for nested messages; names work for JSON input too.
  std::vector<NamedField> metrics;
  std::vector<NamedField> labels;
  bool with_event_timestamp = false;  // SINK_PROM_WITH_EVENT_TIMESTAMP
  // SINK_PROM_PROTO_EVENT_TIMESTAMP_INDEX (required with the above): a
  // Timestamp field (JSON: epoch milliseconds).
  std::shared_ptr<const RecordField> timestamp;

  // InvalidArgument naming the variable when one is missing or malformed.
  static absl::StatusOr<PromSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

class PromSink : public TwoStageSink {
 public:
  using Config = PromSinkConfig;  // for CreateFromContext<PromSink>
  // `http` defaults to the shared libcurl client; `metrics` must outlive it.
  static absl::StatusOr<std::unique_ptr<PromSink>> Create(PromSinkConfig config, Metrics* metrics,
                                                          std::shared_ptr<HttpClient> http = nullptr);

  // Builds each message's series. A metric value that is absent or not a
  // number, or a missing event timestamp, fails that message alone with
  // INVALID_MESSAGE_ERROR.
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // Sends the batch. 2xx delivers. As the remote-write spec says, samples
  // Prometheus refuses as out of order, duplicate or too old are not retried:
  // such a 400 is logged, counted in firehose_sink_messages_drop_total
  // {cause="rejected_samples"} and the batch is done (Prometheus stored the
  // rest). A transport error or timeout fails the batch as
  // SINK_RETRYABLE_ERROR; other answers follow the status ranges above.
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "prometheus"; }

 private:
  PromSink(PromSinkConfig config, Metrics* metrics, std::shared_ptr<HttpClient> http);
  // Appends `m`'s series to `request_`; InvalidArgument when it cannot.
  absl::Status AddSeries(const Message& m, int64_t now_ms);

  PromSinkConfig config_;
  Metrics* metrics_;
  std::shared_ptr<HttpClient> http_;
  prometheus::WriteRequest request_;
  std::vector<const Message*> messages_;  // into the batch, which outlives Execute
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_PROMETHEUS_PROM_SINK_H_
