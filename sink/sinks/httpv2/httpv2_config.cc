#include "sink/sinks/httpv2/httpv2_config.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/outbound.h"
#include "sink/sinks/common/http_options.h"
#include "sink/sinks/common/url_origin.h"

namespace sluice::sink {
namespace {

#define HTTPV2_ASSIGN(lhs, expr)            \
  do {                                      \
    auto _v = (expr);                       \
    if (!_v.ok()) return _v.status();       \
    lhs = *std::move(_v);                   \
  } while (0)

using TemplatePairs = std::vector<std::pair<ValueTemplate, ValueTemplate>>;

// depot's TemplateMapConverter: a JSON object whose keys and values are
// templates ("" or unset: none).
absl::StatusOr<TemplatePairs> ParseTemplateMap(const Env& env, const char* variable,
                                               const google::protobuf::Descriptor* d) {
  TemplatePairs out;
  std::string text = env.GetOr(variable, "");
  if (absl::StripAsciiWhitespace(text).empty()) return out;
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(variable, " must be a JSON object of templates"));
  }
  for (const auto& [k, v] : json.items()) {
    std::string value = v.is_string() ? v.get<std::string>() : v.dump();
    auto key_t = ValueTemplate::Parse(k, d, variable);
    if (!key_t.ok()) return key_t.status();
    auto value_t = ValueTemplate::Parse(value, d, variable);
    if (!value_t.ok()) return value_t.status();
    out.emplace_back(*std::move(key_t), *std::move(value_t));
  }
  return out;
}

// Every string (member names included) of the body template must parse as a
// template, so that a bad one fails at start rather than per record.
absl::Status CheckBodyTemplate(const nlohmann::ordered_json& node, const google::protobuf::Descriptor* d) {
  constexpr const char* kVar = "SINK_HTTPV2_JSON_BODY_TEMPLATE";
  if (node.is_string()) {
    const std::string& s = node.get_ref<const std::string&>();
    if (s.empty()) return absl::OkStatus();
    return ValueTemplate::Parse(s, d, kVar).status();
  }
  if (node.is_object()) {
    for (const auto& [k, v] : node.items()) {
      if (!k.empty()) {
        if (auto t = ValueTemplate::Parse(k, d, kVar); !t.ok()) return t.status();
      }
      if (auto s = CheckBodyTemplate(v, d); !s.ok()) return s;
    }
  }
  if (node.is_array()) {
    for (const auto& v : node) {
      if (auto s = CheckBodyTemplate(v, d); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status ParseRequest(const Env& env, const google::protobuf::Descriptor* d,
                          Httpv2SinkConfig* c) {
  std::string url;
  HTTPV2_ASSIGN(url, env.Require("SINK_HTTPV2_SERVICE_URL"));
  HTTPV2_ASSIGN(c->url, ValueTemplate::Parse(url, d, "SINK_HTTPV2_SERVICE_URL"));
  // The scheme, host and port come from the pattern alone; a templated part
  // can only follow them (review R3-M1; checked again per request).
  HTTPV2_ASSIGN(c->url_origin, TemplateOrigin(c->url->pattern(), "SINK_HTTPV2_SERVICE_URL"));
  HTTPV2_ASSIGN(c->method, env.GetEnum("SINK_HTTPV2_REQUEST_METHOD", "PUT",
                                       {"PUT", "POST", "PATCH", "DELETE"}));
  HTTPV2_ASSIGN(c->headers, ParseHeaderList(env.GetOr("SINK_HTTPV2_HEADERS", ""), "SINK_HTTPV2_HEADERS"));
  HTTPV2_ASSIGN(c->header_templates, ParseTemplateMap(env, "SINK_HTTPV2_HEADERS_TEMPLATE", d));
  HTTPV2_ASSIGN(c->query_templates, ParseTemplateMap(env, "SINK_HTTPV2_QUERY_TEMPLATE", d));
  std::string source;
  HTTPV2_ASSIGN(source, env.GetEnum("SINK_HTTPV2_HEADERS_PARAMETER_SOURCE", "MESSAGE", {"MESSAGE", "KEY"}));
  c->headers_from_key = source == "KEY";
  HTTPV2_ASSIGN(source, env.GetEnum("SINK_HTTPV2_QUERY_PARAMETER_SOURCE", "MESSAGE", {"MESSAGE", "KEY"}));
  c->query_from_key = source == "KEY";
  std::string mode;
  HTTPV2_ASSIGN(mode, env.GetEnum("SINK_HTTPV2_REQUEST_MODE", "SINGLE", {"SINGLE", "BATCH"}));
  c->batch = mode == "BATCH";
  if (!c->batch) return absl::OkStatus();
  // depot's BatchRequest builds one URL and header set for the whole batch.
  if (!c->url->constant()) {
    return absl::InvalidArgumentError(
        "SINK_HTTPV2_SERVICE_URL: a templated URL is not allowed with SINK_HTTPV2_REQUEST_MODE=BATCH");
  }
  if (!c->header_templates.empty()) {
    return absl::InvalidArgumentError(
        "SINK_HTTPV2_HEADERS_TEMPLATE is not allowed with SINK_HTTPV2_REQUEST_MODE=BATCH");
  }
  for (const auto& [k, v] : c->query_templates) {
    if (!k.constant() || !v.constant()) {
      return absl::InvalidArgumentError(
          "SINK_HTTPV2_QUERY_TEMPLATE: templated parameters are not allowed with "
          "SINK_HTTPV2_REQUEST_MODE=BATCH");
    }
  }
  return absl::OkStatus();
}

absl::Status ParseBody(const Env& env, const google::protobuf::Descriptor* d, Httpv2SinkConfig* c) {
  std::string mode;
  HTTPV2_ASSIGN(mode, env.GetEnum("SINK_HTTPV2_REQUEST_BODY_MODE", "RAW",
                                  {"RAW", "TEMPLATIZED_JSON", "JSON", "MESSAGE"}));
  c->body_mode = mode == "RAW"                ? Httpv2SinkConfig::BodyMode::kRaw
                 : mode == "TEMPLATIZED_JSON" ? Httpv2SinkConfig::BodyMode::kTemplatizedJson
                 : mode == "JSON"             ? Httpv2SinkConfig::BodyMode::kJson
                                              : Httpv2SinkConfig::BodyMode::kMessage;
  if (c->body_mode == Httpv2SinkConfig::BodyMode::kTemplatizedJson) {
    std::string text = env.GetOr("SINK_HTTPV2_JSON_BODY_TEMPLATE", "");
    if (text.empty()) {
      return absl::InvalidArgumentError(
          "SINK_HTTPV2_JSON_BODY_TEMPLATE is required with SINK_HTTPV2_REQUEST_BODY_MODE=TEMPLATIZED_JSON");
    }
    auto json = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      return absl::InvalidArgumentError("SINK_HTTPV2_JSON_BODY_TEMPLATE is not valid JSON");
    }
    if (auto s = CheckBodyTemplate(json, d); !s.ok()) return s;
    c->body_template = std::move(json);
  }
  HTTPV2_ASSIGN(c->default_field_values, env.GetBool("SINK_HTTPV2_DEFAULT_FIELD_VALUE_ENABLE", true));
  HTTPV2_ASSIGN(c->delete_body, env.GetBool("SINK_HTTPV2_DELETE_BODY_ENABLE", true));
  return absl::OkStatus();
}

absl::Status ParseClient(const Env& env, Httpv2SinkConfig* c) {
  HTTPV2_ASSIGN(c->log_ranges, ParseStatusRanges(env.GetOr("SINK_HTTPV2_REQUEST_LOG_STATUS_CODE_RANGES", "400-600"),
                                                 "SINK_HTTPV2_REQUEST_LOG_STATUS_CODE_RANGES"));
  HTTPV2_ASSIGN(c->retry_ranges, ParseStatusRanges(env.GetOr("SINK_HTTPV2_RETRY_STATUS_CODE_RANGES", "400-600"),
                                                   "SINK_HTTPV2_RETRY_STATUS_CODE_RANGES"));
  HTTPV2_ASSIGN(c->max_connections, env.GetPositiveInt("SINK_HTTPV2_MAX_CONNECTIONS", 10));
  HTTPV2_ASSIGN(c->timeout_ms, env.GetPositiveInt("SINK_HTTPV2_REQUEST_TIMEOUT_MS", 10000));
  bool oauth2 = false;
  HTTPV2_ASSIGN(oauth2, env.GetBool("SINK_HTTPV2_OAUTH2_ENABLE", false));
  if (!oauth2) return absl::OkStatus();
  Httpv2OAuth2Config o;
  HTTPV2_ASSIGN(o.token_url, env.Require("SINK_HTTPV2_OAUTH2_ACCESS_TOKEN_URL"));
  if (auto s = ValidateHttpUrl("SINK_HTTPV2_OAUTH2_ACCESS_TOKEN_URL", o.token_url); !s.ok()) return s;
  HTTPV2_ASSIGN(o.client_name, env.Require("SINK_HTTPV2_OAUTH2_CLIENT_NAME"));
  HTTPV2_ASSIGN(o.client_secret, env.Require("SINK_HTTPV2_OAUTH2_CLIENT_SECRET"));
  o.scope = env.GetOr("SINK_HTTPV2_OAUTH2_SCOPE", "");
  c->oauth2 = std::move(o);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Httpv2SinkConfig> Httpv2SinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  Httpv2SinkConfig c;
  auto owned = ctx.InputDescriptor();
  if (!owned.ok()) return owned.status();
  c.descriptor = *std::move(owned);
  const google::protobuf::Descriptor* d = c.descriptor ? c.descriptor->get() : nullptr;
  std::string parser_mode;
  HTTPV2_ASSIGN(parser_mode, env.GetEnum("KAFKA_RECORD_PARSER_MODE", "MESSAGE", {"MESSAGE", "KEY"}));
  c.decoded_is_key = parser_mode == "KEY";
  if (auto s = ParseRequest(env, d, &c); !s.ok()) return s;
  if (auto s = ParseBody(env, d, &c); !s.ok()) return s;
  if (auto s = ParseClient(env, &c); !s.ok()) return s;
  return c;
}

}  // namespace sluice::sink
