#include "sink/config.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/auth/tls.h"

namespace sluice::sink {
namespace {

#define ASSIGN_OR_RETURN_CFG(lhs, expr) \
  do {                                  \
    auto _v = (expr);                   \
    if (!_v.ok()) return _v.status();   \
    lhs = *std::move(_v);               \
  } while (0)

absl::StatusOr<int> GetPositiveInt(const Env& env, absl::string_view name, int def) {
  auto v = env.GetInt(name, def);
  if (!v.ok()) return v.status();
  if (*v <= 0 || *v > INT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a positive integer"));
  }
  return static_cast<int>(*v);
}

std::string Upper(absl::string_view s) {
  return absl::AsciiStrToUpper(absl::StripAsciiWhitespace(s));
}

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

std::map<std::string, std::string> KafkaPassThrough(
    const std::map<std::string, std::string>& suffixes) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : suffixes) {
    if (k == "MAX_POLL_RECORDS" || k == "AUTO_OFFSET_RESET" || v.empty()) continue;
    std::string name = absl::AsciiStrToLower(k);
    for (char& c : name) {
      if (c == '_') c = '.';
    }
    out[name] = v;
  }
  return out;
}

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

absl::StatusOr<SinkConfig> ParseSinkConfig(const Env& env) {
  SinkConfig c;
  ASSIGN_OR_RETURN_CFG(c.sink_type, env.Require("SINK_TYPE"));
  c.sink_type = absl::AsciiStrToLower(c.sink_type);

  // Source.
  SourceConfig& s = c.source;
  ASSIGN_OR_RETURN_CFG(s.brokers, env.Require("SOURCE_KAFKA_BROKERS"));
  ASSIGN_OR_RETURN_CFG(s.topic, env.Require("SOURCE_KAFKA_TOPIC"));
  ASSIGN_OR_RETURN_CFG(s.group_id, env.Require("SOURCE_KAFKA_CONSUMER_GROUP_ID"));
  ASSIGN_OR_RETURN_CFG(s.max_poll_records,
                       GetPositiveInt(env, "SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS", 500));
  ASSIGN_OR_RETURN_CFG(s.async_commit, env.GetBool("SOURCE_KAFKA_ASYNC_COMMIT_ENABLE", true));
  ASSIGN_OR_RETURN_CFG(s.poll_timeout_ms, env.GetInt("SOURCE_KAFKA_POLL_TIMEOUT_MS", INT64_MAX));
  if (s.poll_timeout_ms < 0) {
    return absl::InvalidArgumentError("SOURCE_KAFKA_POLL_TIMEOUT_MS must not be negative");
  }
  s.auto_offset_reset = absl::AsciiStrToLower(
      env.GetOr("SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET", "latest"));
  if (s.auto_offset_reset != "latest" && s.auto_offset_reset != "earliest" &&
      s.auto_offset_reset != "none") {
    return absl::InvalidArgumentError(
        "SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET must be latest, earliest or none");
  }
  s.kafka_properties = KafkaPassThrough(env.WithPrefix("SOURCE_KAFKA_CONSUMER_CONFIG_"));
  ASSIGN_OR_RETURN_CFG(s.thread_count, GetPositiveInt(env, "APPLICATION_THREAD_COUNT", 1));

  // Schema.
  SchemaConfig& sc = c.schema;
  std::string data_type = Upper(env.GetOr("INPUT_SCHEMA_DATA_TYPE", "protobuf"));
  if (data_type == "PROTOBUF") {
    sc.data_type = SchemaConfig::DataType::kProtobuf;
    ASSIGN_OR_RETURN_CFG(sc.proto_class, env.Require("INPUT_SCHEMA_PROTO_CLASS"));
  } else if (data_type == "JSON") {
    sc.data_type = SchemaConfig::DataType::kJson;
    sc.proto_class = env.GetOr("INPUT_SCHEMA_PROTO_CLASS", "");
  } else {
    return absl::InvalidArgumentError("INPUT_SCHEMA_DATA_TYPE must be protobuf or json");
  }
  std::string mode = Upper(env.GetOr("KAFKA_RECORD_PARSER_MODE", "message"));
  if (mode != "MESSAGE" && mode != "KEY") {
    return absl::InvalidArgumentError("KAFKA_RECORD_PARSER_MODE must be message or key");
  }
  sc.parse_key = mode == "KEY";
  ASSIGN_OR_RETURN_CFG(sc.allow_unknown_fields,
                       env.GetBool("INPUT_SCHEMA_PROTO_ALLOW_UNKNOWN_FIELDS_ENABLE", true));
  ASSIGN_OR_RETURN_CFG(sc.stencil_enable, env.GetBool("SCHEMA_REGISTRY_STENCIL_ENABLE", false));
  for (absl::string_view u : absl::StrSplit(env.GetOr("SCHEMA_REGISTRY_STENCIL_URLS", ""), ',',
                                            absl::SkipWhitespace())) {
    sc.urls.emplace_back(absl::StripAsciiWhitespace(u));
  }
  if (sc.data_type == SchemaConfig::DataType::kProtobuf && sc.urls.empty()) {
    return absl::InvalidArgumentError(
        "SCHEMA_REGISTRY_STENCIL_URLS is required for INPUT_SCHEMA_DATA_TYPE=protobuf");
  }
  ASSIGN_OR_RETURN_CFG(sc.fetch_timeout_ms,
                       env.GetInt("SCHEMA_REGISTRY_STENCIL_FETCH_TIMEOUT_MS", 10000));
  int64_t retries;
  ASSIGN_OR_RETURN_CFG(retries, env.GetInt("SCHEMA_REGISTRY_STENCIL_FETCH_RETRIES", 4));
  sc.fetch_retries = static_cast<int>(std::max<int64_t>(0, retries));
  ASSIGN_OR_RETURN_CFG(sc.fetch_backoff_min_ms,
                       env.GetInt("SCHEMA_REGISTRY_STENCIL_FETCH_BACKOFF_MIN_MS", 60000));
  ASSIGN_OR_RETURN_CFG(sc.fetch_headers,
                       ParsePairs("SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS",
                                  env.GetOr("SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS", ""), ':'));
  ASSIGN_OR_RETURN_CFG(sc.cache_auto_refresh,
                       env.GetBool("SCHEMA_REGISTRY_STENCIL_CACHE_AUTO_REFRESH", false));
  ASSIGN_OR_RETURN_CFG(sc.cache_ttl_ms,
                       env.GetInt("SCHEMA_REGISTRY_STENCIL_CACHE_TTL_MS", 86400000));
  if (sc.cache_ttl_ms <= 0) {
    return absl::InvalidArgumentError("SCHEMA_REGISTRY_STENCIL_CACHE_TTL_MS must be positive");
  }
  std::string strategy = Upper(env.GetOr("SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY", "LONG_POLLING"));
  if (strategy != "LONG_POLLING" && strategy != "VERSION_BASED_REFRESH") {
    return absl::InvalidArgumentError(
        "SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY must be LONG_POLLING or VERSION_BASED_REFRESH");
  }
  sc.version_based_refresh = strategy == "VERSION_BASED_REFRESH";

  // Filter.
  FilterConfig& f = c.filter;
  std::string engine = Upper(env.GetOr("FILTER_ENGINE", "NO_OP"));
  if (engine == "JEXL") {
    f.jexl = true;
    std::vector<std::string> missing;
    for (const char* name :
         {"FILTER_DATA_SOURCE", "FILTER_JEXL_EXPRESSION", "FILTER_SCHEMA_PROTO_CLASS"}) {
      if (!env.Get(name)) missing.push_back(name);
    }
    if (!missing.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FILTER_ENGINE=JEXL requires ", absl::StrJoin(missing, ", "),
          missing.size() == 1 ? " (missing)" : " (all missing)"));
    }
    std::string source = Upper(*env.Get("FILTER_DATA_SOURCE"));
    if (source != "KEY" && source != "MESSAGE") {
      return absl::InvalidArgumentError("FILTER_DATA_SOURCE must be KEY or MESSAGE");
    }
    f.data_source_key = source == "KEY";
    f.expression = *env.Get("FILTER_JEXL_EXPRESSION");
    f.proto_class = *env.Get("FILTER_SCHEMA_PROTO_CLASS");
    if (sc.data_type != SchemaConfig::DataType::kProtobuf) {
      return absl::InvalidArgumentError(
          "FILTER_ENGINE=JEXL needs INPUT_SCHEMA_DATA_TYPE=protobuf (the filter reads protobuf)");
    }
  } else if (engine != "NO_OP") {
    return absl::InvalidArgumentError("FILTER_ENGINE must be NO_OP or JEXL");
  }

  // Errors, retry, DLQ.
  ErrorConfig& e = c.errors;
  if (auto v = env.Get("ERROR_TYPES_FOR_RETRY")) {
    ASSIGN_OR_RETURN_CFG(e.retry, ParseErrorTypes("ERROR_TYPES_FOR_RETRY", *v));
  }
  if (auto v = env.Get("ERROR_TYPES_FOR_DLQ")) {
    ASSIGN_OR_RETURN_CFG(e.dlq, ParseErrorTypes("ERROR_TYPES_FOR_DLQ", *v));
  }
  if (auto v = env.Get("ERROR_TYPES_FOR_FAILING")) {
    ASSIGN_OR_RETURN_CFG(e.failing, ParseErrorTypes("ERROR_TYPES_FOR_FAILING", *v));
  }
  ASSIGN_OR_RETURN_CFG(e.retry_max_attempts, env.GetInt("RETRY_MAX_ATTEMPTS", INT32_MAX));
  ASSIGN_OR_RETURN_CFG(e.retry_fail_after_max_attempts,
                       env.GetBool("RETRY_FAIL_AFTER_MAX_ATTEMPTS_ENABLE", false));
  ASSIGN_OR_RETURN_CFG(e.backoff_initial_ms,
                       env.GetInt("RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS", 10));
  ASSIGN_OR_RETURN_CFG(e.backoff_rate, env.GetDouble("RETRY_EXPONENTIAL_BACKOFF_RATE", 2));
  ASSIGN_OR_RETURN_CFG(e.backoff_max_ms, env.GetInt("RETRY_EXPONENTIAL_BACKOFF_MAX_MS", 60000));
  if (e.backoff_initial_ms < 0 || e.backoff_max_ms < 0 || e.backoff_rate < 1) {
    return absl::InvalidArgumentError(
        "RETRY_EXPONENTIAL_BACKOFF_* must be non-negative and the rate at least 1");
  }
  ASSIGN_OR_RETURN_CFG(e.dlq_enable, env.GetBool("DLQ_SINK_ENABLE", false));
  e.dlq_writer = Upper(env.GetOr("DLQ_WRITER_TYPE", "LOG"));
  if (e.dlq_writer != "LOG" && e.dlq_writer != "KAFKA") {
    return absl::InvalidArgumentError("DLQ_WRITER_TYPE must be KAFKA or LOG");
  }
  if (e.dlq_enable && e.dlq_writer == "KAFKA") {
    ASSIGN_OR_RETURN_CFG(e.dlq_kafka_brokers, env.Require("DLQ_KAFKA_BROKERS"));
  }
  e.dlq_kafka_topic = env.GetOr("DLQ_KAFKA_TOPIC", "firehose-retry-topic");
  e.dlq_kafka_acks = env.GetOr("DLQ_KAFKA_ACKS", "all");
  ASSIGN_OR_RETURN_CFG(e.dlq_retry_max_attempts, env.GetInt("DLQ_RETRY_MAX_ATTEMPTS", INT32_MAX));
  ASSIGN_OR_RETURN_CFG(e.dlq_fail_after_max_attempts,
                       env.GetBool("DLQ_RETRY_FAIL_AFTER_MAX_ATTEMPT_ENABLE", false));
  for (const auto& [k, v] : env.WithPrefix("DLQ_KAFKA_")) {
    if (k == "BROKERS" || k == "TOPIC" || k == "ACKS" || v.empty()) continue;
    std::string name = absl::AsciiStrToLower(k);
    for (char& ch : name) {
      if (ch == '_') ch = '.';
    }
    e.dlq_kafka_properties[name] = v;
  }

  // Metrics and control.
  MetricConfig& m = c.metrics;
  m.statsd_host = env.GetOr("METRIC_STATSD_HOST", "localhost");
  int64_t port;
  ASSIGN_OR_RETURN_CFG(port, env.GetInt("METRIC_STATSD_PORT", 8125));
  if (port < 0 || port > 65535) return absl::InvalidArgumentError("METRIC_STATSD_PORT out of range");
  m.statsd_port = static_cast<int>(port);
  ASSIGN_OR_RETURN_CFG(m.statsd_tags,
                       ParsePairs("METRIC_STATSD_TAGS", env.GetOr("METRIC_STATSD_TAGS", ""), '='));
  ASSIGN_OR_RETURN_CFG(port, env.GetInt("METRIC_PROMETHEUS_PORT", 0));
  if (port < 0 || port > 65535) {
    return absl::InvalidArgumentError("METRIC_PROMETHEUS_PORT out of range");
  }
  m.prometheus_port = static_cast<int>(port);
  ASSIGN_OR_RETURN_CFG(port, env.GetInt("SINK_CONTROL_PORT", 8082));
  if (port < 0 || port > 65535) return absl::InvalidArgumentError("SINK_CONTROL_PORT out of range");
  c.control.port = static_cast<int>(port);
  if (auto s = ParseControlSecurity(env, &c.control); !s.ok()) return s;
  return c;
}

}  // namespace sluice::sink
