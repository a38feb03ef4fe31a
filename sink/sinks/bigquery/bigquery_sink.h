// SINK_TYPE=bigquery (Firehose's BigQuery sink; variables and behaviour from
// goto/depot docs/reference/configuration/bigquery-sink.md): rows go through
// tabledata.insertAll, one request per batch, and the answer's insertErrors
// decide per row what failed. Before the first insert the table (and its
// dataset) is created, or its schema extended, from the proto descriptor or
// from the JSON records' members, plus the metadata columns; a message with a
// newer descriptor (a schema registry refresh) or a JSON member the table
// lacks extends it again. Auth: service-account key → JWT → token
// (common/google_auth.h).
#ifndef SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_SINK_H_
#define SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_SINK_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http_client.h"
#include "nlohmann/json.hpp"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/bigquery/bigquery_api.h"
#include "sink/sinks/bigquery/bigquery_schema.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Parsed SINK_BIGQUERY_* configuration (depot's names and defaults).
struct BigQuerySinkConfig {
  bigquery::ApiTarget target;    // _GOOGLE_CLOUD_PROJECT_ID, _DATASET_NAME, _TABLE_NAME (required),
                                 // SINK_BIGQUERY_API_BASE_URL (sluice), _CLIENT_{READ,CONNECT}_TIMEOUT_MS
  std::string credential_path;   // SINK_BIGQUERY_CREDENTIAL_PATH (required)
  bool row_insert_id = true;     // SINK_BIGQUERY_ROW_INSERT_ID_ENABLE
  bool add_metadata = true;      // SINK_BIGQUERY_ADD_METADATA_ENABLED
  std::string metadata_namespace;  // SINK_BIGQUERY_METADATA_NAMESPACE
  std::vector<bigquery::MetadataColumn> metadata_columns;  // SINK_BIGQUERY_METADATA_COLUMNS_TYPES
  bool partitioning = false;     // SINK_BIGQUERY_TABLE_PARTITIONING_ENABLE
  std::string partition_key;     // SINK_BIGQUERY_TABLE_PARTITION_KEY (required with partitioning)
  int64_t partition_expiry_ms = -1;  // SINK_BIGQUERY_TABLE_PARTITION_EXPIRY_MS (-1: none)
  bool clustering = false;       // SINK_BIGQUERY_TABLE_CLUSTERING_ENABLE
  std::vector<std::string> clustering_keys;  // SINK_BIGQUERY_TABLE_CLUSTERING_KEYS (≤ 4)
  std::string dataset_location = "asia-southeast1";  // SINK_BIGQUERY_DATASET_LOCATION
  nlohmann::json table_labels = nlohmann::json::object();    // SINK_BIGQUERY_TABLE_LABELS k=v,...
  nlohmann::json dataset_labels = nlohmann::json::object();  // SINK_BIGQUERY_DATASET_LABELS k=v,...
  // JSON input (depot): SINK_BIGQUERY_DEFAULT_COLUMNS, _DYNAMIC_SCHEMA_ENABLE,
  // _DEFAULT_DATATYPE_STRING_ENABLE, _ADD_EVENT_TIMESTAMP_ENABLE.
  nlohmann::json default_columns = nlohmann::json::array();
  bool dynamic_schema = true;
  bool all_strings = true;
  bool add_event_timestamp = false;  // an event_timestamp TIMESTAMP column = load time
  bool json_input = false;       // INPUT_SCHEMA_DATA_TYPE=json
  // The input descriptor's schema at start (protobuf input), empty for JSON.
  nlohmann::json proto_fields = nlohmann::json::array();

  // InvalidArgument naming the variable when one is missing or malformed.
  static absl::StatusOr<BigQuerySinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

class BigQuerySink : public TwoStageSink {
 public:
  using Config = BigQuerySinkConfig;  // for CreateFromContext<BigQuerySink>
  // Extra insertAll requests per batch that resend the rows BigQuery
  // "stopped" because another row of the request was invalid.
  static constexpr int kResendBudget = 3;

  // Reads the key at config.credential_path (InvalidArgument naming
  // SINK_BIGQUERY_CREDENTIAL_PATH). Makes no call yet: the table is ensured
  // on the first batch, so a start during an outage is not fatal.
  static absl::StatusOr<std::unique_ptr<BigQuerySink>> Create(BigQuerySinkConfig config, Metrics* metrics,
                                                              std::shared_ptr<HttpClient> http = nullptr);

  // Renders each message as an insertAll row (bigquery_schema.h) plus its
  // metadata and insertId "<topic>_<partition>_<offset>"; notes schema
  // changes (a new descriptor, new JSON members). A message that cannot be
  // rendered fails alone (INVALID_MESSAGE_ERROR).
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // Ensures the dataset and table schema when needed (a dataset in another
  // location than SINK_BIGQUERY_DATASET_LOCATION fails the batch as
  // SINK_4XX_ERROR, as depot refuses it), then one insertAll. insertErrors:
  // "invalid" (unknown field, wrong type, out of range) → SINK_4XX_ERROR for
  // that row; rows "stopped" because of another row are sent again (at most
  // kResendBudget times), then SINK_5XX_ERROR; other reasons →
  // SINK_UNKNOWN_ERROR (depot). A failed request fails every row:
  // Unavailable/DeadlineExceeded (429, 5xx, transport) → SINK_RETRYABLE_ERROR,
  // other 5xx → SINK_5XX_ERROR, 4xx and a refused key → SINK_4XX_ERROR.
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "bigquery"; }

  // The table's fields as last read or written (for tests).
  const nlohmann::json& table_fields() const { return table_fields_; }

 private:
  BigQuerySink(BigQuerySinkConfig config, std::unique_ptr<bigquery::BigQueryApi> api);
  // The row's JSON text (its "json" member), or why it cannot be sent.
  absl::StatusOr<std::string> Render(const Message& m, const std::string& load_time);
  // A JSON record's row; notes members the table lacks (dynamic schema).
  absl::StatusOr<nlohmann::json> JsonInputRow(const Message& m, const std::string& load_time);
  void NoteDescriptor(const google::protobuf::Descriptor* d);
  absl::Status EnsureTable();
  absl::Status EnsureTableOnce();
  absl::Status EnsureDataset();
  absl::Status CreateTable();
  std::string InsertBody(const std::vector<size_t>& rows) const;
  void FailAll(const std::vector<size_t>& rows, const absl::Status& s, std::vector<FailedMessage>* out) const;

  BigQuerySinkConfig config_;
  std::unique_ptr<bigquery::BigQueryApi> api_;
  nlohmann::json wanted_;                    // every field the rows need
  nlohmann::json table_fields_;              // the table's schema as last seen
  bool table_ready_ = false;                 // table_fields_ holds wanted_
  std::set<std::string> known_columns_;      // top-level names in wanted_ (JSON input)
  const google::protobuf::Descriptor* last_descriptor_ = nullptr;
  std::string last_descriptor_text_;         // DebugString of the last descriptor seen
  std::vector<std::string> rows_;            // one {"insertId","json"} object per message
  std::vector<const Message*> messages_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_BIGQUERY_BIGQUERY_SINK_H_
