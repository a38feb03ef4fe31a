// SINK_TYPE=HTTPV2: configuration of depot's http sink (goto/depot
// config/HttpSinkConfig.java and HttpClientConfig.java), which Firehose tells
// users to move to from SINK_TYPE=HTTP. All 21 SINK_HTTPV2_* variables, with
// depot's names and defaults.
#ifndef SLUICE_SINK_SINKS_HTTPV2_HTTPV2_CONFIG_H_
#define SLUICE_SINK_SINKS_HTTPV2_HTTPV2_CONFIG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "sink/env.h"
#include "sink/sinks/common/proto_values.h"
#include "sink/sinks/httpv2/value_template.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// SINK_HTTPV2_OAUTH2_* (depot HttpClientConfig): client-credentials grant.
struct Httpv2OAuth2Config {
  std::string token_url;      // SINK_HTTPV2_OAUTH2_ACCESS_TOKEN_URL (required when enabled)
  std::string client_name;    // SINK_HTTPV2_OAUTH2_CLIENT_NAME (required when enabled)
  std::string client_secret;  // SINK_HTTPV2_OAUTH2_CLIENT_SECRET (required when enabled)
  std::string scope;          // SINK_HTTPV2_OAUTH2_SCOPE (may be empty)
};

// Parsed SINK_HTTPV2_* configuration.
struct Httpv2SinkConfig {
  // depot HttpRequestBodyType.
  enum class BodyMode { kRaw, kTemplatizedJson, kJson, kMessage };

  // SINK_HTTPV2_SERVICE_URL (required): a template ("http://h/%s,id"); in
  // BATCH mode it must be constant.
  std::optional<ValueTemplate> url;
  // UrlOrigin of `url`'s pattern ("http://h:80"), set by FromEnv: every
  // request's URL must have this scheme, host and port.
  std::string url_origin;
  std::string method = "PUT";  // SINK_HTTPV2_REQUEST_METHOD: put (default), post, patch, delete
  // SINK_HTTPV2_HEADERS: "Name:value, Name2:value2" (sent on every request).
  std::vector<std::pair<std::string, std::string>> headers;
  // SINK_HTTPV2_HEADERS_TEMPLATE: JSON object {"<name template>": "<value
  // template>"}; SINGLE mode only (depot refuses it in BATCH mode).
  std::vector<std::pair<ValueTemplate, ValueTemplate>> header_templates;
  bool headers_from_key = false;  // SINK_HTTPV2_HEADERS_PARAMETER_SOURCE: MESSAGE (default) | KEY
  // SINK_HTTPV2_QUERY_TEMPLATE: JSON object {"<name>": "<value>"} of
  // templates; BATCH mode allows constant entries only.
  std::vector<std::pair<ValueTemplate, ValueTemplate>> query_templates;
  bool query_from_key = false;    // SINK_HTTPV2_QUERY_PARAMETER_SOURCE: MESSAGE (default) | KEY
  bool batch = false;             // SINK_HTTPV2_REQUEST_MODE: SINGLE (default) | BATCH
  BodyMode body_mode = BodyMode::kRaw;  // SINK_HTTPV2_REQUEST_BODY_MODE
  // SINK_HTTPV2_JSON_BODY_TEMPLATE (required for TEMPLATIZED_JSON): JSON
  // whose strings (values and keys) are templates. Members keep the
  // template's order, as depot's Jackson ObjectNode prints them.
  std::optional<nlohmann::ordered_json> body_template;
  std::vector<std::pair<int, int>> log_ranges = {{400, 600}};    // SINK_HTTPV2_REQUEST_LOG_STATUS_CODE_RANGES
  std::vector<std::pair<int, int>> retry_ranges = {{400, 600}};  // SINK_HTTPV2_RETRY_STATUS_CODE_RANGES
  // SINK_HTTPV2_DEFAULT_FIELD_VALUE_ENABLE (default true): JSON of a proto
  // message includes fields at their default values (depot's
  // ProtoJsonProvider includingDefaultValueFields).
  bool default_field_values = true;
  bool delete_body = true;      // SINK_HTTPV2_DELETE_BODY_ENABLE: DELETE carries a body
  int max_connections = 10;     // SINK_HTTPV2_MAX_CONNECTIONS (> 0)
  int64_t timeout_ms = 10000;   // SINK_HTTPV2_REQUEST_TIMEOUT_MS (connect and whole request)
  std::optional<Httpv2OAuth2Config> oauth2;  // SINK_HTTPV2_OAUTH2_ENABLE=true
  // INPUT_SCHEMA_PROTO_CLASS (protobuf input; null for JSON input), a
  // private copy. Keys are decoded with it too, as Firehose sets
  // SINK_CONNECTOR_SCHEMA_PROTO_KEY_CLASS to it (SinkFactoryUtils).
  std::shared_ptr<const OwnedDescriptor> descriptor;
  // KAFKA_RECORD_PARSER_MODE=key: Message::decoded/json hold the key.
  bool decoded_is_key = false;

  // Reads the variables. InvalidArgument naming the variable on a bad value:
  // an unknown enum, a bad range, a template that does not parse or names an
  // unknown field, a service or token URL that is not http(s)://, a %s
  // before the end of SINK_HTTPV2_SERVICE_URL's scheme://host:port, header
  // names or values not valid in HTTP, TEMPLATIZED_JSON without a template,
  // BATCH mode with a templated URL, header template or templated query
  // (depot's ConfigurationException), and OAuth2 without its URL and client.
  static absl::StatusOr<Httpv2SinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTPV2_HTTPV2_CONFIG_H_
