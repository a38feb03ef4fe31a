// SINK_TYPE=elasticsearch (Firehose's Elasticsearch sink, raystack/firehose
// docs/docs/sinks/elasticsearch-sink.md): each batch is one `_bulk` request
// (NDJSON) through common/http_client, one `update` action per message:
//   {"update":{"_index":<index>,"_id":<id>[,"_type":<type>][,"routing":<r>]}}
//   {"doc":<document>,"doc_as_upsert":true}     (upsert, the default)
//   {"doc":<document>}                          (SINK_ES_MODE_UPDATE_ONLY_ENABLE)
// The document is the JSON record as it is, or the protobuf message as JSON
// (proto field names or lowerCamelCase, defaults left out, as Firehose's
// MessageToJson). The per-item results of the bulk answer decide which
// messages failed.
#ifndef SLUICE_SINK_SINKS_ELASTICSEARCH_ES_SINK_H_
#define SLUICE_SINK_SINKS_ELASTICSEARCH_ES_SINK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http_client.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/record_fields.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Parsed SINK_ES_* configuration (names and defaults: Firehose's EsSinkConfig,
// except the blacklist's default, see below).
struct EsSinkConfig {
  // SINK_ES_CONNECTION_URLS: "host:port,..." (required); each becomes
  // "http://host:port" ("http(s)://host:port" is taken as it is). Requests go
  // to one host and fail over to the next on a transport error or a
  // 502/503/504 answer.
  std::vector<std::string> hosts;
  std::string index;      // SINK_ES_INDEX_NAME (required)
  // SINK_ES_TYPE_NAME (optional; Firehose requires it): sent as "_type"
  // only to a cluster older than 7 (GET / → version.number, read once),
  // because 7 made mapping types optional and 8 refuses them.
  std::string type_name;
  // SINK_ES_ID_FIELD (required): the field (a name, "a.b" for nested; for
  // protobuf also the lowerCamelCase JSON name) whose value is the document id.
  std::shared_ptr<const RecordField> id_field;
  std::shared_ptr<const RecordField> routing_field;  // SINK_ES_ROUTING_KEY_NAME (optional)
  bool update_only = false;  // SINK_ES_MODE_UPDATE_ONLY_ENABLE (false: upsert)
  // SINK_ES_INPUT_MESSAGE_TYPE JSON | PROTOBUF; when unset it follows
  // INPUT_SCHEMA_DATA_TYPE, and it must agree with it when set.
  bool protobuf = false;
  bool preserve_proto_field_names = true;  // SINK_ES_PRESERVE_PROTO_FIELD_NAMES_ENABLE
  // KAFKA_RECORD_PARSER_MODE=key: JSON input's record is the Kafka key.
  bool record_is_key = false;
  int64_t request_timeout_ms = 60000;      // SINK_ES_REQUEST_TIMEOUT_MS
  int64_t shards_active_wait_count = 1;    // SINK_ES_SHARDS_ACTIVE_WAIT_COUNT (>= 0)
  // SINK_ES_RETRY_STATUS_CODE_BLACKLIST ("404,400"): item statuses that are
  // not retried: the message is dropped, logged and counted in
  // firehose_sink_messages_drop_total{cause=<status>} (Firehose's EsSink).
  // Default 404, Firehose's (EsSinkConfig): in update-only mode a document
  // that does not exist is skipped, not an error. "none" empties the list, so
  // that every failure follows the ERROR_TYPES_FOR_* rules (an update-only
  // miss then reaches the DLQ as SINK_4XX_ERROR).
  std::set<int> retry_blacklist;

  // InvalidArgument naming the variable when one is missing or malformed, or
  // the id/routing field is not a field of the input class.
  static absl::StatusOr<EsSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

// The sink: one instance per worker, requests through `http` (no
// connection of its own); the host that answered last is kept for the next
// batch.
class EsSink : public TwoStageSink {
 public:
  using Config = EsSinkConfig;  // for CreateFromContext<EsSink>

  // `http` defaults to libcurl (http/https only, outbound rules); `metrics`
  // (not owned, may be null) counts dropped blacklisted items.
  static absl::StatusOr<std::unique_ptr<EsSink>> Create(EsSinkConfig config, Metrics* metrics,
                                                        std::shared_ptr<HttpClient> http = nullptr);

  // Builds the two NDJSON lines of each message. With SINK_ES_TYPE_NAME set
  // the cluster's version is read first (GET /, with fail-over); when no host
  // answers, every message fails as SINK_RETRYABLE_ERROR. A message whose id field is
  // absent or empty, whose routing field is absent, whose JSON record is not
  // an object, that was not decoded as the configured input type, or whose
  // protobuf has no JSON form (a proto2 string that is not UTF-8) fails
  // alone with INVALID_MESSAGE_ERROR (as does an id over kMaxIdBytes).
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // Sends one POST <host>/_bulk?timeout=<ms>ms&wait_for_active_shards=<n>.
  // Per item: 2xx delivered; a blacklisted status dropped and counted; 429
  // SINK_RETRYABLE_ERROR, other 4xx SINK_4XX_ERROR, 5xx SINK_5XX_ERROR, with
  // Elasticsearch's error type and reason. The whole request: every host
  // unreachable → SINK_RETRYABLE_ERROR; 429 → SINK_RETRYABLE_ERROR; other
  // 4xx/5xx → SINK_4XX_ERROR/SINK_5XX_ERROR; an answer without one item per
  // action → SINK_5XX_ERROR; for every message.
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "elasticsearch"; }
  // Elasticsearch's limit on a document id (bytes); a longer id fails its
  // record as INVALID_MESSAGE_ERROR instead of the whole bulk request.
  static constexpr size_t kMaxIdBytes = 512;

  // The host index requests currently go to (for tests of fail-over).
  size_t current_host() const { return current_; }

 private:
  EsSink(EsSinkConfig config, Metrics* metrics, std::shared_ptr<HttpClient> http);
  // The document JSON of `m` (one line), or InvalidArgument.
  absl::StatusOr<std::string> Document(const Message& m) const;
  // Appends m's action and source lines to body_.
  absl::Status AddAction(const Message& m);
  // The cluster's major version from GET / (fail-over as Send), or Unavailable.
  absl::StatusOr<int> MajorVersion();
  // Posts body_ to the current host, failing over; the last result.
  absl::StatusOr<HttpResult> Send();
  // Fills `failed` from the items of a 200 bulk answer.
  void ReadItems(const std::string& answer, std::vector<FailedMessage>* failed);

  EsSinkConfig config_;
  Metrics* metrics_;
  std::shared_ptr<HttpClient> http_;
  std::string query_;  // ?timeout=...&wait_for_active_shards=...
  size_t current_ = 0;
  std::optional<int> major_version_;  // read once when type_name is set
  std::string body_;
  std::vector<const Message*> messages_;  // the batch's (valid until Execute returns)
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_ELASTICSEARCH_ES_SINK_H_
