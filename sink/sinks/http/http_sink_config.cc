// Parsing of the SINK_HTTP_* variables (HttpSinkConfig::FromEnv), through
// Env's typed getters; every error names its variable.
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/outbound.h"
#include "sink/sinks/common/url_origin.h"
#include "sink/sinks/http/http_sink.h"

namespace sluice::sink {
namespace {

using google::protobuf::Descriptor;
using Config = HttpSinkConfig;

// Shorthand: return the status of a failed StatusOr / Status.
#define HTTP_ASSIGN_OR_RETURN(lhs, expr) \
  do {                                   \
    auto _v = (expr);                    \
    if (!_v.ok()) return _v.status();    \
    lhs = *std::move(_v);                \
  } while (0)

// Resolves `name` and keeps a private copy in `c->owned`.
absl::StatusOr<const Descriptor*> Find(const SinkContext& ctx, absl::string_view variable,
                                       absl::string_view name, Config* c) {
  auto owned = ctx.ResolveDescriptor(variable, name);
  if (!owned.ok()) return owned.status();
  c->owned.push_back(*std::move(owned));
  return c->owned.back()->get();
}

// SINK_HTTP_SERVICE_URL (http/https only), method, timeout, connections,
// headers, status ranges and SINK_HTTP_LOG_BODIES.
absl::Status ParseRequest(const Env& env, Config* c) {
  auto url = env.Require("SINK_HTTP_SERVICE_URL");
  if (!url.ok()) return url.status();
  c->url = absl::StrReplaceAll(*url, {{"%%s", "%s"}});
  // Only http(s): libcurl would also read file:// or speak gopher://. The
  // check sees the format before field numbers are split off. A %s slot may
  // only follow scheme://host:port, so that record values (percent-encoded)
  // never choose where requests go, as in HTTPV2 (review R3-M1).
  if (auto origin = TemplateOrigin(c->url.substr(0, c->url.find(',')), "SINK_HTTP_SERVICE_URL");
      !origin.ok()) {
    return origin.status();
  }
  HTTP_ASSIGN_OR_RETURN(c->method, env.GetEnum("SINK_HTTP_REQUEST_METHOD", "PUT",
                                               {"PUT", "POST", "PATCH", "DELETE"}));
  HTTP_ASSIGN_OR_RETURN(c->timeout_ms, env.GetPositiveInt("SINK_HTTP_REQUEST_TIMEOUT_MS", 10000));
  HTTP_ASSIGN_OR_RETURN(c->max_connections, env.GetPositiveInt("SINK_HTTP_MAX_CONNECTIONS", 10));
  HTTP_ASSIGN_OR_RETURN(c->headers,
                        ParseHeaderList(env.GetOr("SINK_HTTP_HEADERS", ""), "SINK_HTTP_HEADERS"));
  HTTP_ASSIGN_OR_RETURN(c->retry_ranges,
                        ParseStatusRanges(env.GetOr("SINK_HTTP_RETRY_STATUS_CODE_RANGES", "400-600"),
                                          "SINK_HTTP_RETRY_STATUS_CODE_RANGES"));
  HTTP_ASSIGN_OR_RETURN(
      c->log_ranges, ParseStatusRanges(env.GetOr("SINK_HTTP_REQUEST_LOG_STATUS_CODE_RANGES", "400-499"),
                                       "SINK_HTTP_REQUEST_LOG_STATUS_CODE_RANGES"));
  HTTP_ASSIGN_OR_RETURN(c->log_bodies, env.GetBool("SINK_HTTP_LOG_BODIES", false));
  HTTP_ASSIGN_OR_RETURN(c->delete_body, env.GetBool("SINK_HTTP_DELETE_BODY_ENABLE", true));
  return absl::OkStatus();
}

// The body: data format, template (+ parse option), Gson dates, typecasts.
absl::Status ParseBody(const Env& env, const SinkContext& ctx, Config* c) {
  if (auto cls = env.Get("INPUT_SCHEMA_PROTO_CLASS"); cls && ctx.find_message) {
    HTTP_ASSIGN_OR_RETURN(c->input_descriptor, Find(ctx, "INPUT_SCHEMA_PROTO_CLASS", *cls, c));
  }
  std::string format;
  HTTP_ASSIGN_OR_RETURN(format, env.GetEnum("SINK_HTTP_DATA_FORMAT", "PROTO", {"PROTO", "JSON"}));
  c->data_format = format == "JSON" ? Config::DataFormat::kJson : Config::DataFormat::kProto;
  JsonTemplate::ParseOption option;
  HTTP_ASSIGN_OR_RETURN(option, JsonTemplate::ParseOptionFromEnv(
                                    env.GetOr("SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION", "")));
  if (auto tmpl = env.Get("SINK_HTTP_JSON_BODY_TEMPLATE");
      tmpl && c->data_format == Config::DataFormat::kJson) {
    HTTP_ASSIGN_OR_RETURN(c->body_template, JsonTemplate::Parse(*tmpl, option));
  }
  HTTP_ASSIGN_OR_RETURN(c->simple_date_format,
                        env.GetBool("SINK_HTTP_SIMPLE_DATE_FORMAT_ENABLE", true));
  HTTP_ASSIGN_OR_RETURN(c->typecasts, ParseJsonTypecasts(
                                          env.GetOr("SINK_HTTP_SERIALIZER_JSON_TYPECAST", "[]")));
  return absl::OkStatus();
}

// SINK_HTTP_PARAMETER_* and the column mapping that fills them.
absl::Status ParseParameters(const Env& env, const SinkContext& ctx, Config* c) {
  std::string source;
  HTTP_ASSIGN_OR_RETURN(source, env.GetEnum("SINK_HTTP_PARAMETER_SOURCE", "DISABLED",
                                            {"KEY", "MESSAGE", "DISABLED", "NONE"}));
  c->parameter_source = source == "KEY"       ? Config::ParameterSource::kKey
                        : source == "MESSAGE" ? Config::ParameterSource::kMessage
                                              : Config::ParameterSource::kDisabled;
  if (c->parameter_source == Config::ParameterSource::kDisabled) return absl::OkStatus();
  std::string placement;
  HTTP_ASSIGN_OR_RETURN(placement,
                        env.GetEnum("SINK_HTTP_PARAMETER_PLACEMENT", "HEADER", {"HEADER", "QUERY"}));
  c->parameter_placement = placement == "QUERY" ? Config::ParameterPlacement::kQuery
                                                : Config::ParameterPlacement::kHeader;
  std::string cls;
  HTTP_ASSIGN_OR_RETURN(cls, env.Require("SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS"));
  HTTP_ASSIGN_OR_RETURN(c->parameter_descriptor,
                        Find(ctx, "SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS", cls, c));
  std::string mapping;
  HTTP_ASSIGN_OR_RETURN(mapping, env.Require("INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING"));
  HTTP_ASSIGN_OR_RETURN(c->parameter_mapping, ParseColumnMapping(mapping, c->parameter_descriptor));
  if (c->parameter_placement != Config::ParameterPlacement::kHeader) return absl::OkStatus();
  for (const ColumnMapping& m : c->parameter_mapping) {
    if (!IsHeaderName(m.column)) {
      return absl::InvalidArgumentError(
          absl::StrCat("INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING: \"", m.column,
                       "\" is not a valid header name (SINK_HTTP_PARAMETER_PLACEMENT=header)"));
    }
  }
  return absl::OkStatus();
}

// Firehose's dynamic URL: "<format with %s>,<field number>,...".
absl::Status ParseDynamicUrl(Config* c) {
  if (c->url.find(',') == std::string::npos) return absl::OkStatus();
  std::vector<std::string> parts = absl::StrSplit(c->url, ',');
  if (c->input_descriptor == nullptr) {
    return absl::InvalidArgumentError(
        "SINK_HTTP_SERVICE_URL with field numbers needs INPUT_SCHEMA_PROTO_CLASS");
  }
  c->url = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    int n;
    const google::protobuf::FieldDescriptor* f = nullptr;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(parts[i]), &n)) {
      f = c->input_descriptor->FindFieldByNumber(n);
    }
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("SINK_HTTP_SERVICE_URL: \"", parts[i], "\" is not a field number of ",
                       c->input_descriptor->full_name()));
    }
    c->url_fields.push_back(f);
  }
  return absl::OkStatus();
}

// SINK_HTTP_OAUTH2_*: with _ENABLE=true the token URL, client and secret.
absl::Status ParseOAuth2(const Env& env, Config* c) {
  bool enabled;
  HTTP_ASSIGN_OR_RETURN(enabled, env.GetBool("SINK_HTTP_OAUTH2_ENABLE", false));
  if (!enabled) return absl::OkStatus();
  OAuth2Config o;
  for (auto [name, field] : {std::pair{"SINK_HTTP_OAUTH2_ACCESS_TOKEN_URL", &o.token_url},
                             std::pair{"SINK_HTTP_OAUTH2_CLIENT_NAME", &o.client_name},
                             std::pair{"SINK_HTTP_OAUTH2_CLIENT_SECRET", &o.client_secret}}) {
    auto v = env.Require(name);
    if (!v.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(v.status().message(), " (SINK_HTTP_OAUTH2_ENABLE=true)"));
    }
    *field = *v;
  }
  if (auto st = ValidateHttpUrl("SINK_HTTP_OAUTH2_ACCESS_TOKEN_URL", o.token_url); !st.ok()) {
    return st;
  }
  o.scope = env.GetOr("SINK_HTTP_OAUTH2_SCOPE", "");
  c->oauth2 = std::move(o);
  return absl::OkStatus();
}

#undef HTTP_ASSIGN_OR_RETURN

}  // namespace

absl::StatusOr<HttpSinkConfig> HttpSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  HttpSinkConfig c;
  if (absl::Status st = ParseRequest(env, &c); !st.ok()) return st;
  if (absl::Status st = ParseBody(env, ctx, &c); !st.ok()) return st;
  if (absl::Status st = ParseParameters(env, ctx, &c); !st.ok()) return st;
  if (absl::Status st = ParseDynamicUrl(&c); !st.ok()) return st;
  if (absl::Status st = ParseOAuth2(env, &c); !st.ok()) return st;
  return c;
}

}  // namespace sluice::sink
