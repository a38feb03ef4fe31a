// SINK_TYPE=clickhouse (beyond Firehose; raystack/firehose#15): each batch is
// one `INSERT INTO <db>.<table> FORMAT JSONEachRow` over ClickHouse's HTTP
// interface through common/http_client (http/https only, outbound rules,
// HTTP Basic). Columns come from JDBC's mappings:
// INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING ({"1":"order_number","4":{"1":"city"}})
// for protobuf, INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING (member names) for JSON.
#ifndef SLUICE_SINK_SINKS_CLICKHOUSE_CLICKHOUSE_SINK_H_
#define SLUICE_SINK_SINKS_CLICKHOUSE_CLICKHOUSE_SINK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http_client.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/record_fields.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Parsed SINK_CLICKHOUSE_* configuration (sluice's names, in Firehose's style).
struct ClickHouseSinkConfig {
  std::string url;                   // SINK_CLICKHOUSE_URL, e.g. http://localhost:8123
  std::string database = "default";  // SINK_CLICKHOUSE_DATABASE
  std::string table;                 // SINK_CLICKHOUSE_TABLE_NAME (required)
  std::string username = "default";  // SINK_CLICKHOUSE_USERNAME
  std::string password;              // SINK_CLICKHOUSE_PASSWORD
  int64_t request_timeout_ms = 10000;  // SINK_CLICKHOUSE_REQUEST_TIMEOUT_MS
  std::vector<NamedField> columns;   // the column mapping (see above)

  // InvalidArgument naming the variable when one is missing or malformed.
  static absl::StatusOr<ClickHouseSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

class ClickHouseSink : public TwoStageSink {
 public:
  using Config = ClickHouseSinkConfig;  // for CreateFromContext<ClickHouseSink>
  // At most this many extra inserts per batch to leave out bad rows.
  static constexpr int kIsolationBudget = 16;

  static absl::StatusOr<std::unique_ptr<ClickHouseSink>> Create(
      ClickHouseSinkConfig config, Metrics* metrics, std::shared_ptr<HttpClient> http = nullptr);

  // Renders each message as one JSON row: numbers as numbers, booleans as
  // 1/0, Timestamps as unix seconds (DateTime), messages/lists as JSON text,
  // absent fields left out (the column's default). A message that was not
  // decoded fails alone (INVALID_MESSAGE_ERROR).
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // One insert (atomic in ClickHouse). When ClickHouse names a bad row
  // ("Cannot parse input ... (at row N)"), that row's message fails alone as
  // SINK_4XX_ERROR and the others are inserted again without it (at most
  // kIsolationBudget times). Otherwise every message fails: transport errors
  // SINK_RETRYABLE_ERROR, other 4xx SINK_4XX_ERROR, 5xx SINK_5XX_ERROR, with
  // ClickHouse's first error line.
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "clickhouse"; }

 private:
  ClickHouseSink(ClickHouseSinkConfig config, std::shared_ptr<HttpClient> http);
  absl::StatusOr<HttpResult> Insert(const std::vector<size_t>& rows) const;

  ClickHouseSinkConfig config_;
  std::shared_ptr<HttpClient> http_;
  std::vector<std::string> rows_;  // one JSON row per prepared message
  std::vector<const Message*> messages_;  // into the batch, which outlives Execute
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_CLICKHOUSE_CLICKHOUSE_SINK_H_
