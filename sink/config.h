// Parsed configuration of sluice-sink. Every field comes from a Firehose
// environment variable (names and defaults are Firehose's, see
// https://goto.github.io/firehose/ "Configurations"), so that a Firehose
// deployment switches by changing only the image. Parse errors name the
// variable.
#ifndef SLUICE_SINK_CONFIG_H_
#define SLUICE_SINK_CONFIG_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sink/env.h"
#include "sink/message.h"
#include "sink/source/kafka_properties.h"

namespace sluice::sink {

// SOURCE_KAFKA_* and APPLICATION_THREAD_COUNT.
struct SourceConfig {
  std::string brokers;   // SOURCE_KAFKA_BROKERS (required)
  // SOURCE_KAFKA_TOPIC (required): a Java regular expression matched against
  // whole topic names, as Firehose's Pattern.compile subscription.
  std::string topic;
  // What librdkafka subscribes to (TopicSubscription in
  // sink/source/kafka_properties.h): `topic` itself when it is a plain name,
  // else an anchored POSIX regex "^(...)$".
  std::string subscription;
  std::string group_id;  // SOURCE_KAFKA_CONSUMER_GROUP_ID (required)
  int max_poll_records = 500;  // SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS
  bool async_commit = true;    // SOURCE_KAFKA_ASYNC_COMMIT_ENABLE
  // SOURCE_KAFKA_POLL_TIMEOUT_MS: how long one poll waits for the first record
  // (Firehose's default is Long.MAX_VALUE: wait until records arrive).
  int64_t poll_timeout_ms = INT64_MAX;
  // SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET (Firehose default "latest").
  std::string auto_offset_reset = "latest";
  // SOURCE_KAFKA_CONSUMER_CONFIG_MANUAL_COMMIT_MIN_INTERVAL_MS (Firehose's
  // own, default -1): offsets are committed at most this often; -1 (any
  // negative) commits after every batch. As Firehose's
  // ConsumerAndOffsetManager.commit: a commit is due when more than this many
  // ms passed since the last one. Revokes and shutdown commit regardless.
  int64_t manual_commit_min_interval_ms = -1;
  // Firehose's consumer defaults (session.timeout.ms=10000,
  // topic.metadata.refresh.interval.ms=5000 (see FirehoseConsumerDefaults),
  // partition.assignment.strategy=cooperative-sticky),
  // then every other SOURCE_KAFKA_CONSUMER_CONFIG_<X> translated from its Java
  // client name (TranslateKafkaProperties), e.g. SASL/SSL and fetch tuning,
  // which override them.
  std::map<std::string, std::string> kafka_properties;
  // SOURCE_KAFKA_CONSUMER_CONFIG_GROUP_INSTANCE_ID (static membership): worker
  // N joins as "<id>-N", so that the workers of one process never fence each
  // other and a restarted process takes its partitions back at once.
  std::string group_instance_id;
  int thread_count = 1;  // APPLICATION_THREAD_COUNT
};

// INPUT_SCHEMA_*, KAFKA_RECORD_PARSER_MODE and SCHEMA_REGISTRY_STENCIL_*.
struct SchemaConfig {
  enum class DataType { kProtobuf, kJson };
  DataType data_type = DataType::kProtobuf;  // INPUT_SCHEMA_DATA_TYPE
  std::string proto_class;  // INPUT_SCHEMA_PROTO_CLASS (required for protobuf)
  bool parse_key = false;   // KAFKA_RECORD_PARSER_MODE=key
  // INPUT_SCHEMA_PROTO_ALLOW_UNKNOWN_FIELDS_ENABLE (Firehose default true):
  // when false, a record carrying fields the schema lacks fails with
  // UNKNOWN_FIELDS_ERROR.
  bool allow_unknown_fields = true;
  bool stencil_enable = false;            // SCHEMA_REGISTRY_STENCIL_ENABLE
  std::vector<std::string> urls;          // SCHEMA_REGISTRY_STENCIL_URLS (comma-separated)
  int64_t fetch_timeout_ms = 10000;       // SCHEMA_REGISTRY_STENCIL_FETCH_TIMEOUT_MS
  int fetch_retries = 4;                  // SCHEMA_REGISTRY_STENCIL_FETCH_RETRIES
  int64_t fetch_backoff_min_ms = 60000;   // SCHEMA_REGISTRY_STENCIL_FETCH_BACKOFF_MIN_MS
  // SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS: "k:v,k2:v2", plus
  // "Authorization: Bearer <SCHEMA_REGISTRY_STENCIL_FETCH_AUTH_BEARER_TOKEN>".
  std::vector<std::pair<std::string, std::string>> fetch_headers;
  bool cache_auto_refresh = false;        // SCHEMA_REGISTRY_STENCIL_CACHE_AUTO_REFRESH
  int64_t cache_ttl_ms = 900000;          // SCHEMA_REGISTRY_STENCIL_CACHE_TTL_MS
  // SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY (Firehose default VERSION_BASED_REFRESH).
  bool version_based_refresh = true;
};

// FILTER_*.
struct FilterConfig {
  enum class Engine { kNoOp, kJexl, kJson, kTimestamp };
  Engine engine = Engine::kNoOp;  // FILTER_ENGINE: NO_OP (default), JEXL, JSON, TIMESTAMP
  bool jexl = false;              // engine == kJexl
  bool data_source_key = false;   // FILTER_DATA_SOURCE=KEY (else MESSAGE)
  std::string expression;         // FILTER_JEXL_EXPRESSION
  // FILTER_SCHEMA_PROTO_CLASS: the class the filter decodes protobuf with
  // (JEXL over protobuf; JSON with FILTER_ESB_MESSAGE_FORMAT=PROTOBUF).
  std::string proto_class;
  std::string json_schema;        // FILTER_JSON_SCHEMA (JSON engine)
  // FILTER_ESB_MESSAGE_FORMAT (JSON engine; Firehose's FilterConfig key):
  // PROTOBUF records are printed as JSON with proto field names before
  // validation. Defaults to INPUT_SCHEMA_DATA_TYPE.
  bool esb_protobuf = false;
  // JEXL reads JSON records (INPUT_SCHEMA_DATA_TYPE=json): the record is bound
  // as `message` (or `key` for FILTER_DATA_SOURCE=KEY), no proto class.
  bool jexl_json = false;
  // FILTER_DROP_DESERIALIZATION_ERROR (Firehose's FilterConfig, default
  // false): a record the filter cannot decode as FILTER_SCHEMA_PROTO_CLASS is
  // dropped (counted and logged) instead of failing as DESERIALIZATION_ERROR.
  bool drop_deserialization_error = false;
  // FILTER_ENGINE=TIMESTAMP (goto Firehose's FilterConfig): the field of
  // FILTER_SCHEMA_PROTO_CLASS holding the event time, and the window around
  // now (seconds) a record must lie in to be kept.
  std::string timestamp_field = "event_timestamp";  // FILTER_TIMESTAMP_PROTO_FIELD_NAME
  int64_t timestamp_past_window_seconds = 604800;    // FILTER_TIMESTAMP_PAST_WINDOW_SECONDS
  int64_t timestamp_future_window_seconds = 604800;  // FILTER_TIMESTAMP_FUTURE_WINDOW_SECONDS
};

// ERROR_TYPES_FOR_*, RETRY_* and DLQ_*.
struct ErrorConfig {
  // ERROR_TYPES_FOR_RETRY: goto Firehose's default (ErrorConfig.java since
  // e021eebf), which also retries SINK_RETRYABLE_ERROR (e.g. HTTP 429).
  std::set<ErrorType> retry = {ErrorType::kDefaultError, ErrorType::kSinkRetryableError};
  std::set<ErrorType> dlq;                                 // ERROR_TYPES_FOR_DLQ
  std::set<ErrorType> failing = {ErrorType::kDeserializationError,
                                 ErrorType::kInvalidMessageError,
                                 ErrorType::kUnknownFieldsError};  // ERROR_TYPES_FOR_FAILING
  int64_t retry_max_attempts = INT32_MAX;          // RETRY_MAX_ATTEMPTS
  bool retry_fail_after_max_attempts = false;      // RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE
  int64_t backoff_initial_ms = 10;                 // RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS
  double backoff_rate = 2;                         // RETRY_EXPONENTIAL_BACKOFF_RATE
  int64_t backoff_max_ms = 60000;                  // RETRY_EXPONENTIAL_BACKOFF_MAX_MS
  bool dlq_enable = false;                         // DLQ_SINK_ENABLE
  std::string dlq_writer = "LOG";                  // DLQ_WRITER_TYPE: KAFKA | LOG | BLOB_STORAGE
  std::string dlq_kafka_brokers;                   // DLQ_KAFKA_BROKERS (required for KAFKA)
  std::string dlq_kafka_topic = "firehose-retry-topic";  // DLQ_KAFKA_TOPIC
  std::string dlq_kafka_acks = "all";              // DLQ_KAFKA_ACKS
  int64_t dlq_retry_max_attempts = INT32_MAX;      // DLQ_RETRY_MAX_ATTEMPTS
  bool dlq_fail_after_max_attempts = false;        // DLQ_RETRY_FAIL_AFTER_MAX_ATTEMPT_ENABLE
  // Other DLQ_KAFKA_<X> translated from Java producer names to librdkafka's
  // (e.g. linger.ms, BUFFER_MEMORY -> queue.buffering.max.kbytes); read only
  // with DLQ_SINK_ENABLE=true and DLQ_WRITER_TYPE=KAFKA.
  std::map<std::string, std::string> dlq_kafka_properties;
  // DLQ_BLOB_STORAGE_TYPE for DLQ_WRITER_TYPE=BLOB_STORAGE: GCS (Firehose's
  // default) or S3.
  std::string dlq_blob_type = "GCS";
  // DLQ_BLOB_STORAGE_TYPE=S3, Firehose's DLQ_S3_* names.
  struct S3 {
    std::string region;      // DLQ_S3_REGION (required)
    std::string bucket;      // DLQ_S3_BUCKET_NAME (required)
    std::string access_key;  // DLQ_S3_ACCESS_KEY (required)
    std::string secret_key;  // DLQ_S3_SECRET_KEY (required)
    // DLQ_S3_ENDPOINT_URL (sluice): default https://s3.<region>.amazonaws.com;
    // objects are addressed path-style, <endpoint>/<bucket>/<name>.
    std::string endpoint;
    int64_t api_timeout_ms = 40000;  // DLQ_S3_API_TIMEOUT_MS
    // DLQ_S3_DIRECTORY_PREFIX (unset: none): object names become
    // <prefix>/<topic>/<date>/<uuid>, as Firehose's S3.createPath. Normalised
    // by DirectoryPrefix in config.cc.
    std::string directory_prefix;
  } dlq_s3;
  // DLQ_BLOB_STORAGE_TYPE=GCS, Firehose's DLQ_GCS_* names (docs/advance/dlq.md)
  // and defaults, which are google-cloud-java's RetrySettings for one upload.
  struct Gcs {
    std::string project_id;       // DLQ_GCS_GOOGLE_CLOUD_PROJECT_ID (required)
    std::string bucket;           // DLQ_GCS_BUCKET_NAME (required)
    std::string credential_path;  // DLQ_GCS_CREDENTIAL_PATH (required): a service-account key JSON
    // DLQ_GCS_API_BASE_URL (sluice): default https://storage.googleapis.com,
    // for emulators and tests.
    std::string api_base_url = "https://storage.googleapis.com";
    int64_t retry_max_attempts = 10;          // DLQ_GCS_RETRY_MAX_ATTEMPTS
    int64_t retry_total_timeout_ms = 120000;  // DLQ_GCS_RETRY_TOTAL_TIMEOUT_MS
    int64_t retry_initial_delay_ms = 1000;    // DLQ_GCS_RETRY_INITIAL_DELAY_MS
    int64_t retry_max_delay_ms = 30000;       // DLQ_GCS_RETRY_MAX_DELAY_MS
    double retry_delay_multiplier = 2;        // DLQ_GCS_RETRY_DELAY_MULTIPLIER
    int64_t initial_rpc_timeout_ms = 5000;    // DLQ_GCS_RETRY_INITIAL_RPC_TIMEOUT_MS
    double rpc_timeout_multiplier = 1;        // DLQ_GCS_RETRY_RPC_TIMEOUT_MULTIPLIER
    int64_t rpc_max_timeout_ms = 5000;        // DLQ_GCS_RETRY_RPC_MAX_TIMEOUT_MS
    // DLQ_GCS_DIRECTORY_PREFIX (unset: none), as DLQ_S3_DIRECTORY_PREFIX
    // (Firehose's GoogleCloudStorage.createPath).
    std::string directory_prefix;
  } dlq_gcs;
};

// METRIC_*.
struct MetricConfig {
  std::string statsd_host = "localhost";  // METRIC_STATSD_HOST
  int statsd_port = 8125;                 // METRIC_STATSD_PORT
  std::vector<std::pair<std::string, std::string>> statsd_tags;  // METRIC_STATSD_TAGS k=v,...
  int prometheus_port = 0;                // METRIC_PROMETHEUS_PORT (0 disables)
};

// SINK_CONTROL_*: where the SinkControl gRPC API listens and who may call
// it (sluice's own variables; Firehose has no control API).
struct ControlConfig {
  int port = 8082;                 // SINK_CONTROL_PORT (0 disables the control API)
  std::string host = "127.0.0.1";  // SINK_CONTROL_HOST (IP or name to bind)
  // The shared token clients send as `authorization: Bearer <token>`: read
  // from the file SINK_CONTROL_TOKEN_FILE, or the value of SINK_CONTROL_TOKEN
  // (at most one of them; at least 16 bytes).
  std::string token_file;
  bool token_in_env = false;  // SINK_CONTROL_TOKEN is set
  // TLS (PEM files): SINK_CONTROL_TLS_CERT_FILE and _KEY_FILE serve TLS; with
  // SINK_CONTROL_TLS_CLIENT_CA_FILE every client must present a certificate
  // signed by that CA (mTLS).
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;

  bool has_token() const { return !token_file.empty() || token_in_env; }
  bool mtls() const { return !tls_cert_file.empty() && !tls_client_ca_file.empty(); }
};

// Everything sluice-sink reads at start-up, except the sink's own SINK_*
// variables, which the sink reads from the Env.
struct SinkConfig {
  std::string sink_type;  // SINK_TYPE, lower-cased (required)
  SourceConfig source;
  SchemaConfig schema;
  FilterConfig filter;
  ErrorConfig errors;
  MetricConfig metrics;
  ControlConfig control;
  // SINK_JDBC_EXACTLY_ONCE_ENABLE (sluice; default false): each batch's rows
  // and offsets commit in one transaction of the JDBC sink's database, and
  // assigned partitions start at the offsets stored there (OffsetStore).
  // Only with SINK_TYPE=jdbc (refused otherwise).
  bool jdbc_exactly_once = false;
  // What was done with Java-client Kafka properties (translated, ignored),
  // for one start-up log line each.
  std::vector<KafkaPropertyNote> kafka_notes;
};

// Parses `env`. InvalidArgument naming the variable when one is missing or
// malformed; every missing JEXL variable is named. The control API must not
// listen on a non-loopback SINK_CONTROL_HOST without a token or mTLS
// (InvalidArgument naming the variables to set).
absl::StatusOr<SinkConfig> ParseSinkConfig(const Env& env);

// Parses "A,B" into error types; InvalidArgument naming `variable`.
absl::StatusOr<std::set<ErrorType>> ParseErrorTypes(absl::string_view variable,
                                                    absl::string_view value);

// Parses "k:v,k2:v2" (sep ':') or "k=v,k2=v2" (sep '='); entries without the
// separator are InvalidArgument naming `variable`.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParsePairs(
    absl::string_view variable, absl::string_view value, char sep);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_CONFIG_H_
