#include "sink/config.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/auth/tls.h"

namespace sluice::sink {
namespace {

#define RETURN_IF_ERROR_CFG(expr)    \
  do {                               \
    absl::Status _s = (expr);        \
    if (!_s.ok()) return _s;         \
  } while (0)

#define ASSIGN_OR_RETURN_CFG(lhs, expr) \
  do {                                  \
    auto _v = (expr);                   \
    if (!_v.ok()) return _v.status();   \
    lhs = *std::move(_v);               \
  } while (0)

// SINK_CONTROL_HOST, _TOKEN(_FILE) and _TLS_*. The API pauses the pipeline
// and reads topic data (TestFilter), so off loopback it needs a credential.
absl::Status ParseControlSecurity(const Env& env, ControlConfig* c) {
  c->host = std::string(absl::StripAsciiWhitespace(env.GetOr("SINK_CONTROL_HOST", "127.0.0.1")));
  c->token_file = env.GetOr("SINK_CONTROL_TOKEN_FILE", "");
  c->token_in_env = env.Get("SINK_CONTROL_TOKEN").has_value();
  if (!c->token_file.empty() && c->token_in_env) {
    return absl::InvalidArgumentError(
        "set either SINK_CONTROL_TOKEN_FILE or SINK_CONTROL_TOKEN, not both");
  }
  c->tls_cert_file = env.GetOr("SINK_CONTROL_TLS_CERT_FILE", "");
  c->tls_key_file = env.GetOr("SINK_CONTROL_TLS_KEY_FILE", "");
  c->tls_client_ca_file = env.GetOr("SINK_CONTROL_TLS_CLIENT_CA_FILE", "");
  if (c->tls_cert_file.empty() != c->tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "SINK_CONTROL_TLS_CERT_FILE and SINK_CONTROL_TLS_KEY_FILE go together");
  }
  if (!c->tls_client_ca_file.empty() && c->tls_cert_file.empty()) {
    return absl::InvalidArgumentError(
        "SINK_CONTROL_TLS_CLIENT_CA_FILE (mTLS) needs SINK_CONTROL_TLS_CERT_FILE and "
        "SINK_CONTROL_TLS_KEY_FILE");
  }
  if (c->port > 0 && !auth::IsLoopbackHost(c->host) && !c->has_token() && !c->mtls()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_CONTROL_HOST=", c->host,
        " is not a loopback address, and the control API (Pause, Resume, GetStatus, TestFilter, "
        "which reads topic data) must not be open to the network: set SINK_CONTROL_TOKEN_FILE "
        "(or SINK_CONTROL_TOKEN) and/or mTLS (SINK_CONTROL_TLS_CERT_FILE, "
        "SINK_CONTROL_TLS_KEY_FILE, SINK_CONTROL_TLS_CLIENT_CA_FILE), or bind "
        "SINK_CONTROL_HOST=127.0.0.1 (or SINK_CONTROL_PORT=0 to disable it)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::set<ErrorType>> ParseErrorTypes(absl::string_view variable,
                                                    absl::string_view value) {
  std::set<ErrorType> out;
  for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    auto t = ParseErrorType(absl::StripAsciiWhitespace(part));
    if (!t.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(variable, ": ", t.status().message()));
    }
    out.insert(*t);
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParsePairs(
    absl::string_view variable, absl::string_view value, char sep) {
  std::vector<std::pair<std::string, std::string>> out;
  for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    auto pos = part.find(sep);
    if (pos == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(variable, ": expected k", std::string(1, sep),
                                                     "v entries, got \"", part, "\""));
    }
    out.emplace_back(std::string(absl::StripAsciiWhitespace(part.substr(0, pos))),
                     std::string(absl::StripAsciiWhitespace(part.substr(pos + 1))));
  }
  return out;
}

namespace {

// Firehose's consumer defaults (its KafkaConsumerConfig), where librdkafka's
// differ: a dead member leaves the group after 10 s, and partitions are
// assigned by the cooperative-sticky protocol (Java's
// CooperativeStickyAssignor has the same protocol name), so that sluice-sink
// and Firehose members can share a group during a rolling swap.
// Firehose's METADATA_MAX_AGE_MS=500 is a refresh interval in Java
// (librdkafka's topic.metadata.refresh.interval.ms; librdkafka's own
// metadata.max.age.ms is a cache lifetime, and 500 ms of it kept
// cooperative-sticky members rejoining forever). The default here is 5 s, not
// 0.5 s: with librdkafka 2.0.2's cooperative protocol a 0.5 s or 1 s refresh
// doubled the time a restarted member waits for its partitions after a
// kill -9 (18 s against 9 s on the dev broker). New partitions and topics
// matching SOURCE_KAFKA_TOPIC are seen within 5 s. SOURCE_KAFKA_CONSUMER_CONFIG_*
// still override.
const std::map<std::string, std::string>& FirehoseConsumerDefaults() {
  static const auto* d = new std::map<std::string, std::string>{
      {"session.timeout.ms", "10000"},
      {"topic.metadata.refresh.interval.ms", "5000"},
      {"partition.assignment.strategy", "cooperative-sticky"},
  };
  return *d;
}

// SOURCE_KAFKA_CONSUMER_CONFIG_* suffixes read here rather than translated.
constexpr const char* kSourceOwnSuffixes[] = {"MAX_POLL_RECORDS", "AUTO_OFFSET_RESET",
                                              "MANUAL_COMMIT_MIN_INTERVAL_MS"};

absl::Status ParseSourceKafkaProperties(const Env& env, SourceConfig* s,
                                        std::vector<KafkaPropertyNote>* notes) {
  constexpr char kPrefix[] = "SOURCE_KAFKA_CONSUMER_CONFIG_";
  auto suffixes = env.WithPrefix(kPrefix);
  for (const char* own : kSourceOwnSuffixes) suffixes.erase(own);
  auto translated = TranslateKafkaProperties(kPrefix, suffixes, KafkaClient::kConsumer);
  if (!translated.ok()) return translated.status();
  s->kafka_properties = FirehoseConsumerDefaults();
  for (auto& [k, v] : translated->properties) s->kafka_properties[k] = v;
  notes->insert(notes->end(), translated->notes.begin(), translated->notes.end());
  if (auto it = s->kafka_properties.find("group.instance.id"); it != s->kafka_properties.end()) {
    s->group_instance_id = it->second;  // made per worker by ConsumerProperties
    s->kafka_properties.erase(it);
  }
  return absl::OkStatus();
}

absl::Status ParseSource(const Env& env, SourceConfig* s, std::vector<KafkaPropertyNote>* notes) {
  ASSIGN_OR_RETURN_CFG(s->brokers, env.Require("SOURCE_KAFKA_BROKERS"));
  ASSIGN_OR_RETURN_CFG(s->topic, env.Require("SOURCE_KAFKA_TOPIC"));
  ASSIGN_OR_RETURN_CFG(s->subscription, TopicSubscription(s->topic));
  ASSIGN_OR_RETURN_CFG(s->group_id, env.Require("SOURCE_KAFKA_CONSUMER_GROUP_ID"));
  ASSIGN_OR_RETURN_CFG(s->max_poll_records,
                       env.GetPositiveInt("SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS", 500));
  ASSIGN_OR_RETURN_CFG(s->async_commit, env.GetBool("SOURCE_KAFKA_ASYNC_COMMIT_ENABLE", true));
  ASSIGN_OR_RETURN_CFG(s->poll_timeout_ms, env.GetInt("SOURCE_KAFKA_POLL_TIMEOUT_MS", INT64_MAX));
  if (s->poll_timeout_ms < 0) {
    return absl::InvalidArgumentError("SOURCE_KAFKA_POLL_TIMEOUT_MS must not be negative");
  }
  std::string reset;
  ASSIGN_OR_RETURN_CFG(reset, env.GetEnum("SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET",
                                          "latest", {"LATEST", "EARLIEST", "NONE"}));
  s->auto_offset_reset = absl::AsciiStrToLower(reset);
  ASSIGN_OR_RETURN_CFG(s->manual_commit_min_interval_ms,
                       env.GetInt("SOURCE_KAFKA_CONSUMER_CONFIG_MANUAL_COMMIT_MIN_INTERVAL_MS", -1));
  RETURN_IF_ERROR_CFG(ParseSourceKafkaProperties(env, s, notes));
  ASSIGN_OR_RETURN_CFG(s->thread_count, env.GetPositiveInt("APPLICATION_THREAD_COUNT", 1));
  return absl::OkStatus();
}

absl::Status ParseStencil(const Env& env, SchemaConfig* sc) {
  ASSIGN_OR_RETURN_CFG(sc->stencil_enable, env.GetBool("SCHEMA_REGISTRY_STENCIL_ENABLE", false));
  for (absl::string_view u : absl::StrSplit(env.GetOr("SCHEMA_REGISTRY_STENCIL_URLS", ""), ',',
                                            absl::SkipWhitespace())) {
    sc->urls.emplace_back(absl::StripAsciiWhitespace(u));
  }
  if (sc->data_type == SchemaConfig::DataType::kProtobuf && sc->urls.empty()) {
    return absl::InvalidArgumentError(
        "SCHEMA_REGISTRY_STENCIL_URLS is required for INPUT_SCHEMA_DATA_TYPE=protobuf");
  }
  ASSIGN_OR_RETURN_CFG(sc->fetch_timeout_ms,
                       env.GetPositiveInt("SCHEMA_REGISTRY_STENCIL_FETCH_TIMEOUT_MS", 10000));
  int64_t retries;
  ASSIGN_OR_RETURN_CFG(retries, env.GetInt("SCHEMA_REGISTRY_STENCIL_FETCH_RETRIES", 4));
  sc->fetch_retries = static_cast<int>(std::clamp<int64_t>(retries, 0, 100));
  ASSIGN_OR_RETURN_CFG(sc->fetch_backoff_min_ms,
                       env.GetInt("SCHEMA_REGISTRY_STENCIL_FETCH_BACKOFF_MIN_MS", 60000));
  ASSIGN_OR_RETURN_CFG(sc->fetch_headers,
                       ParsePairs("SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS",
                                  env.GetOr("SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS", ""), ':'));
  if (auto token = env.Get("SCHEMA_REGISTRY_STENCIL_FETCH_AUTH_BEARER_TOKEN")) {
    // As Stencil's client: "Authorization: Bearer <token>" on every fetch.
    sc->fetch_headers.emplace_back("Authorization", absl::StrCat("Bearer ", *token));
  }
  ASSIGN_OR_RETURN_CFG(sc->cache_auto_refresh,
                       env.GetBool("SCHEMA_REGISTRY_STENCIL_CACHE_AUTO_REFRESH", false));
  ASSIGN_OR_RETURN_CFG(sc->cache_ttl_ms,
                       env.GetInt("SCHEMA_REGISTRY_STENCIL_CACHE_TTL_MS", 900000));
  if (sc->cache_ttl_ms <= 0) {
    return absl::InvalidArgumentError("SCHEMA_REGISTRY_STENCIL_CACHE_TTL_MS must be positive");
  }
  std::string strategy;
  ASSIGN_OR_RETURN_CFG(strategy, env.GetEnum("SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY",
                                             "VERSION_BASED_REFRESH",
                                             {"LONG_POLLING", "VERSION_BASED_REFRESH"}));
  sc->version_based_refresh = strategy == "VERSION_BASED_REFRESH";
  return absl::OkStatus();
}

absl::Status ParseSchema(const Env& env, SchemaConfig* sc) {
  std::string data_type;
  ASSIGN_OR_RETURN_CFG(data_type,
                       env.GetEnum("INPUT_SCHEMA_DATA_TYPE", "protobuf", {"PROTOBUF", "JSON"}));
  if (data_type == "PROTOBUF") {
    sc->data_type = SchemaConfig::DataType::kProtobuf;
    ASSIGN_OR_RETURN_CFG(sc->proto_class, env.Require("INPUT_SCHEMA_PROTO_CLASS"));
  } else {
    sc->data_type = SchemaConfig::DataType::kJson;
    sc->proto_class = env.GetOr("INPUT_SCHEMA_PROTO_CLASS", "");
  }
  std::string mode;
  ASSIGN_OR_RETURN_CFG(mode, env.GetEnum("KAFKA_RECORD_PARSER_MODE", "message", {"MESSAGE", "KEY"}));
  sc->parse_key = mode == "KEY";
  ASSIGN_OR_RETURN_CFG(sc->allow_unknown_fields,
                       env.GetBool("INPUT_SCHEMA_PROTO_ALLOW_UNKNOWN_FIELDS_ENABLE", true));
  return ParseStencil(env, sc);
}

// Names the FILTER_* variables `engine` needs that are unset.
absl::Status RequireFilterVars(const Env& env, const std::string& engine,
                               std::initializer_list<const char*> names) {
  std::vector<std::string> missing;
  for (const char* name : names) {
    if (!env.Get(name)) missing.push_back(name);
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "FILTER_ENGINE=", engine, " requires ", absl::StrJoin(missing, ", "),
      missing.size() == 1 ? " (missing)" : " (all missing)"));
}

absl::Status ParseDataSource(const Env& env, FilterConfig* f) {
  std::string source;
  ASSIGN_OR_RETURN_CFG(source, env.GetEnum("FILTER_DATA_SOURCE", "", {"KEY", "MESSAGE"}));
  f->data_source_key = source == "KEY";
  return absl::OkStatus();
}

absl::Status ParseJexlFilter(const Env& env, const SchemaConfig& sc, FilterConfig* f) {
  f->jexl = true;
  f->jexl_json = sc.data_type == SchemaConfig::DataType::kJson;
  if (f->jexl_json) {
    RETURN_IF_ERROR_CFG(RequireFilterVars(env, "JEXL", {"FILTER_DATA_SOURCE", "FILTER_JEXL_EXPRESSION"}));
  } else {
    RETURN_IF_ERROR_CFG(RequireFilterVars(
        env, "JEXL", {"FILTER_DATA_SOURCE", "FILTER_JEXL_EXPRESSION", "FILTER_SCHEMA_PROTO_CLASS"}));
    f->proto_class = *env.Get("FILTER_SCHEMA_PROTO_CLASS");
  }
  f->expression = *env.Get("FILTER_JEXL_EXPRESSION");
  return ParseDataSource(env, f);
}

absl::Status ParseJsonFilter(const Env& env, const SchemaConfig& sc, FilterConfig* f) {
  RETURN_IF_ERROR_CFG(RequireFilterVars(env, "JSON", {"FILTER_DATA_SOURCE", "FILTER_JSON_SCHEMA"}));
  f->json_schema = *env.Get("FILTER_JSON_SCHEMA");
  RETURN_IF_ERROR_CFG(ParseDataSource(env, f));
  std::string format;
  ASSIGN_OR_RETURN_CFG(
      format, env.GetEnum("FILTER_ESB_MESSAGE_FORMAT",
                          sc.data_type == SchemaConfig::DataType::kJson ? "JSON" : "PROTOBUF",
                          {"JSON", "PROTOBUF"}));
  f->esb_protobuf = format == "PROTOBUF";
  if (f->esb_protobuf) {
    if (sc.data_type != SchemaConfig::DataType::kProtobuf) {
      return absl::InvalidArgumentError(
          "FILTER_ESB_MESSAGE_FORMAT=PROTOBUF needs INPUT_SCHEMA_DATA_TYPE=protobuf (the schema "
          "registry decodes the records)");
    }
    RETURN_IF_ERROR_CFG(RequireFilterVars(env, "JSON", {"FILTER_SCHEMA_PROTO_CLASS"}));
    f->proto_class = *env.Get("FILTER_SCHEMA_PROTO_CLASS");
  }
  return absl::OkStatus();
}

// FILTER_ENGINE=TIMESTAMP, as goto Firehose's TimestampFilter (protobuf only).
absl::Status ParseTimestampFilter(const Env& env, const SchemaConfig& sc, FilterConfig* f) {
  if (sc.data_type != SchemaConfig::DataType::kProtobuf) {
    return absl::InvalidArgumentError(
        "FILTER_ENGINE=TIMESTAMP needs INPUT_SCHEMA_DATA_TYPE=protobuf (Firehose's timestamp filter "
        "decodes FILTER_SCHEMA_PROTO_CLASS)");
  }
  RETURN_IF_ERROR_CFG(
      RequireFilterVars(env, "TIMESTAMP", {"FILTER_DATA_SOURCE", "FILTER_SCHEMA_PROTO_CLASS"}));
  f->proto_class = *env.Get("FILTER_SCHEMA_PROTO_CLASS");
  f->timestamp_field = env.GetOr("FILTER_TIMESTAMP_PROTO_FIELD_NAME", "event_timestamp");
  ASSIGN_OR_RETURN_CFG(f->timestamp_past_window_seconds,
                       env.GetInt("FILTER_TIMESTAMP_PAST_WINDOW_SECONDS", 604800));
  ASSIGN_OR_RETURN_CFG(f->timestamp_future_window_seconds,
                       env.GetInt("FILTER_TIMESTAMP_FUTURE_WINDOW_SECONDS", 604800));
  return ParseDataSource(env, f);
}

absl::Status ParseFilter(const Env& env, const SchemaConfig& sc, FilterConfig* f) {
  std::string engine;
  ASSIGN_OR_RETURN_CFG(engine, env.GetEnum("FILTER_ENGINE", "NO_OP", {"NO_OP", "JEXL", "JSON", "TIMESTAMP"}));
  if (engine == "NO_OP") return absl::OkStatus();
  ASSIGN_OR_RETURN_CFG(f->drop_deserialization_error,
                       env.GetBool("FILTER_DROP_DESERIALIZATION_ERROR", false));
  if (engine == "JEXL") {
    f->engine = FilterConfig::Engine::kJexl;
    return ParseJexlFilter(env, sc, f);
  }
  if (engine == "TIMESTAMP") {
    f->engine = FilterConfig::Engine::kTimestamp;
    return ParseTimestampFilter(env, sc, f);
  }
  f->engine = FilterConfig::Engine::kJson;
  return ParseJsonFilter(env, sc, f);
}

absl::Status ParseRetry(const Env& env, ErrorConfig* e) {
  for (auto [name, field] : {std::pair{"ERROR_TYPES_FOR_RETRY", &e->retry},
                             std::pair{"ERROR_TYPES_FOR_DLQ", &e->dlq},
                             std::pair{"ERROR_TYPES_FOR_FAILING", &e->failing}}) {
    if (auto v = env.Get(name)) ASSIGN_OR_RETURN_CFG(*field, ParseErrorTypes(name, *v));
  }
  ASSIGN_OR_RETURN_CFG(e->retry_max_attempts, env.GetInt("RETRY_MAX_ATTEMPTS", INT32_MAX));
  ASSIGN_OR_RETURN_CFG(e->retry_fail_after_max_attempts,
                       env.GetBool("RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE", false));
  ASSIGN_OR_RETURN_CFG(e->backoff_initial_ms,
                       env.GetInt("RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS", 10));
  ASSIGN_OR_RETURN_CFG(e->backoff_rate, env.GetDouble("RETRY_EXPONENTIAL_BACKOFF_RATE", 2));
  ASSIGN_OR_RETURN_CFG(e->backoff_max_ms, env.GetInt("RETRY_EXPONENTIAL_BACKOFF_MAX_MS", 60000));
  if (e->backoff_initial_ms < 0 || e->backoff_max_ms < 0 || e->backoff_rate < 1) {
    return absl::InvalidArgumentError(
        "RETRY_EXPONENTIAL_BACKOFF_* must be non-negative and the rate at least 1");
  }
  return absl::OkStatus();
}

// An http(s) base URL without trailing slashes; the error names `name`.
absl::Status BaseUrl(absl::string_view name, std::string* url) {
  if (!absl::StartsWith(*url, "http://") && !absl::StartsWith(*url, "https://")) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be an http:// or https:// URL"));
  }
  while (absl::EndsWith(*url, "/")) url->pop_back();
  return absl::OkStatus();
}

// A DLQ_{S3,GCS}_DIRECTORY_PREFIX value made an object-name prefix: empty
// and repeated '/' collapse and a trailing '/' goes, as java.nio Paths.get
// does in Firehose's createPath. Refused (InvalidArgument naming `name`): a
// leading '/' (Firehose would write keys starting with '/') and '.' or '..'
// segments (object stores do not resolve them; the key would hold them).
absl::Status DirectoryPrefix(const Env& env, absl::string_view name, std::string* prefix) {
  std::string value = env.GetOr(name, "");
  if (absl::StartsWith(value, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be relative (no leading /): \"", value, "\""));
  }
  std::vector<std::string> parts;
  for (absl::string_view part : absl::StrSplit(value, '/', absl::SkipEmpty())) {
    if (part == "." || part == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " may not hold a '", part, "' segment: \"", value, "\""));
    }
    parts.emplace_back(part);
  }
  *prefix = absl::StrJoin(parts, "/");
  return absl::OkStatus();
}

absl::Status ParseDlqS3(const Env& env, ErrorConfig::S3* s3) {
  for (auto [name, field] : {std::pair{"DLQ_S3_REGION", &s3->region},
                             std::pair{"DLQ_S3_BUCKET_NAME", &s3->bucket},
                             std::pair{"DLQ_S3_ACCESS_KEY", &s3->access_key},
                             std::pair{"DLQ_S3_SECRET_KEY", &s3->secret_key}}) {
    ASSIGN_OR_RETURN_CFG(*field, env.Require(name));
  }
  s3->endpoint = env.GetOr("DLQ_S3_ENDPOINT_URL", absl::StrCat("https://s3.", s3->region, ".amazonaws.com"));
  RETURN_IF_ERROR_CFG(BaseUrl("DLQ_S3_ENDPOINT_URL", &s3->endpoint));
  int timeout = 0;
  ASSIGN_OR_RETURN_CFG(timeout, env.GetPositiveInt("DLQ_S3_API_TIMEOUT_MS", 40000));
  s3->api_timeout_ms = timeout;
  return DirectoryPrefix(env, "DLQ_S3_DIRECTORY_PREFIX", &s3->directory_prefix);
}

absl::Status ParseDlqGcs(const Env& env, ErrorConfig::Gcs* g) {
  for (auto [name, field] : {std::pair{"DLQ_GCS_GOOGLE_CLOUD_PROJECT_ID", &g->project_id},
                             std::pair{"DLQ_GCS_BUCKET_NAME", &g->bucket},
                             std::pair{"DLQ_GCS_CREDENTIAL_PATH", &g->credential_path}}) {
    ASSIGN_OR_RETURN_CFG(*field, env.Require(name));
  }
  g->api_base_url = env.GetOr("DLQ_GCS_API_BASE_URL", g->api_base_url);
  RETURN_IF_ERROR_CFG(BaseUrl("DLQ_GCS_API_BASE_URL", &g->api_base_url));
  for (auto [name, field] :
       {std::pair{"DLQ_GCS_RETRY_MAX_ATTEMPTS", &g->retry_max_attempts},
        std::pair{"DLQ_GCS_RETRY_TOTAL_TIMEOUT_MS", &g->retry_total_timeout_ms},
        std::pair{"DLQ_GCS_RETRY_INITIAL_DELAY_MS", &g->retry_initial_delay_ms},
        std::pair{"DLQ_GCS_RETRY_MAX_DELAY_MS", &g->retry_max_delay_ms},
        std::pair{"DLQ_GCS_RETRY_INITIAL_RPC_TIMEOUT_MS", &g->initial_rpc_timeout_ms},
        std::pair{"DLQ_GCS_RETRY_RPC_MAX_TIMEOUT_MS", &g->rpc_max_timeout_ms}}) {
    ASSIGN_OR_RETURN_CFG(*field, env.GetPositiveInt(name, static_cast<int>(*field)));
  }
  for (auto [name, field] :
       {std::pair{"DLQ_GCS_RETRY_DELAY_MULTIPLIER", &g->retry_delay_multiplier},
        std::pair{"DLQ_GCS_RETRY_RPC_TIMEOUT_MULTIPLIER", &g->rpc_timeout_multiplier}}) {
    ASSIGN_OR_RETURN_CFG(*field, env.GetDouble(name, *field));
    if (*field < 1) return absl::InvalidArgumentError(absl::StrCat(name, " must be at least 1"));
  }
  return DirectoryPrefix(env, "DLQ_GCS_DIRECTORY_PREFIX", &g->directory_prefix);
}

absl::Status ParseDlqBlob(const Env& env, ErrorConfig* e) {
  ASSIGN_OR_RETURN_CFG(e->dlq_blob_type, env.GetEnum("DLQ_BLOB_STORAGE_TYPE", "GCS", {"GCS", "S3"}));
  return e->dlq_blob_type == "S3" ? ParseDlqS3(env, &e->dlq_s3) : ParseDlqGcs(env, &e->dlq_gcs);
}

absl::Status ParseDlq(const Env& env, ErrorConfig* e, std::vector<KafkaPropertyNote>* notes) {
  ASSIGN_OR_RETURN_CFG(e->dlq_enable, env.GetBool("DLQ_SINK_ENABLE", false));
  ASSIGN_OR_RETURN_CFG(e->dlq_writer,
                       env.GetEnum("DLQ_WRITER_TYPE", "LOG", {"KAFKA", "LOG", "BLOB_STORAGE"}));
  if (e->dlq_enable && e->dlq_writer == "KAFKA") {
    ASSIGN_OR_RETURN_CFG(e->dlq_kafka_brokers, env.Require("DLQ_KAFKA_BROKERS"));
  }
  if (e->dlq_enable && e->dlq_writer == "BLOB_STORAGE") RETURN_IF_ERROR_CFG(ParseDlqBlob(env, e));
  e->dlq_kafka_topic = env.GetOr("DLQ_KAFKA_TOPIC", "firehose-retry-topic");
  e->dlq_kafka_acks = env.GetOr("DLQ_KAFKA_ACKS", "all");
  ASSIGN_OR_RETURN_CFG(e->dlq_retry_max_attempts, env.GetInt("DLQ_RETRY_MAX_ATTEMPTS", INT32_MAX));
  ASSIGN_OR_RETURN_CFG(e->dlq_fail_after_max_attempts,
                       env.GetBool("DLQ_RETRY_FAIL_AFTER_MAX_ATTEMPT_ENABLE", false));
  if (!e->dlq_enable || e->dlq_writer != "KAFKA") return absl::OkStatus();
  auto suffixes = env.WithPrefix("DLQ_KAFKA_");
  for (const char* own : {"BROKERS", "TOPIC", "ACKS"}) suffixes.erase(own);
  auto translated = TranslateKafkaProperties("DLQ_KAFKA_", suffixes, KafkaClient::kProducer);
  if (!translated.ok()) return translated.status();
  e->dlq_kafka_properties = std::move(translated->properties);
  notes->insert(notes->end(), translated->notes.begin(), translated->notes.end());
  return absl::OkStatus();
}

absl::Status ParseMetrics(const Env& env, MetricConfig* m) {
  m->statsd_host = env.GetOr("METRIC_STATSD_HOST", "localhost");
  ASSIGN_OR_RETURN_CFG(m->statsd_port, env.GetPort("METRIC_STATSD_PORT", 8125));
  ASSIGN_OR_RETURN_CFG(m->statsd_tags,
                       ParsePairs("METRIC_STATSD_TAGS", env.GetOr("METRIC_STATSD_TAGS", ""), '='));
  ASSIGN_OR_RETURN_CFG(m->prometheus_port, env.GetPort("METRIC_PROMETHEUS_PORT", 0));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SinkConfig> ParseSinkConfig(const Env& env) {
  SinkConfig c;
  ASSIGN_OR_RETURN_CFG(c.sink_type, env.Require("SINK_TYPE"));
  c.sink_type = absl::AsciiStrToLower(c.sink_type);
  // Sections in order; the first error is reported.
  absl::Status s = ParseSource(env, &c.source, &c.kafka_notes);
  if (s.ok()) s = ParseSchema(env, &c.schema);
  if (s.ok()) s = ParseFilter(env, c.schema, &c.filter);
  if (s.ok()) s = ParseRetry(env, &c.errors);
  if (s.ok()) s = ParseDlq(env, &c.errors, &c.kafka_notes);
  if (s.ok()) s = ParseMetrics(env, &c.metrics);
  if (!s.ok()) return s;
  ASSIGN_OR_RETURN_CFG(c.control.port, env.GetPort("SINK_CONTROL_PORT", 8082));
  if (s = ParseControlSecurity(env, &c.control); !s.ok()) return s;
  ASSIGN_OR_RETURN_CFG(c.jdbc_exactly_once, env.GetBool("SINK_JDBC_EXACTLY_ONCE_ENABLE", false));
  if (c.jdbc_exactly_once && c.sink_type != "jdbc") {
    // Only the JDBC sink can store offsets in the transaction of its writes;
    // ignoring the variable would silently deliver at-least-once.
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_JDBC_EXACTLY_ONCE_ENABLE=true needs SINK_TYPE=jdbc (SINK_TYPE=", c.sink_type,
        " cannot commit offsets with its writes); unset it, or set it to false"));
  }
  return c;
}

}  // namespace sluice::sink
