// Parsing of the SINK_HTTP_* variables (HttpSinkConfig::FromEnv).
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/outbound.h"
#include "sink/sinks/http/http_sink.h"

namespace sluice::sink {
namespace {

using google::protobuf::Descriptor;

// Resolves `name` and keeps a private copy in `c->owned`.
absl::StatusOr<const Descriptor*> Find(const SinkContext& ctx, absl::string_view variable,
                                       absl::string_view name, HttpSinkConfig* c) {
  auto owned = ctx.ResolveDescriptor(variable, name);
  if (!owned.ok()) return owned.status();
  c->owned.push_back(*std::move(owned));
  return c->owned.back()->get();
}

}  // namespace

absl::StatusOr<HttpSinkConfig> HttpSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  HttpSinkConfig c;
  auto url = env.Require("SINK_HTTP_SERVICE_URL");
  if (!url.ok()) return url.status();
  c.url = absl::StrReplaceAll(*url, {{"%%s", "%s"}});
  // Only http(s): libcurl would also read file:// or speak gopher://. The
  // check sees the format before field numbers are split off; a %s slot
  // cannot replace the scheme (values are percent-encoded).
  if (auto st = ValidateHttpUrl("SINK_HTTP_SERVICE_URL", c.url.substr(0, c.url.find(',')));
      !st.ok()) {
    return st;
  }

  c.method = absl::AsciiStrToUpper(env.GetOr("SINK_HTTP_REQUEST_METHOD", "put"));
  if (c.method != "PUT" && c.method != "POST" && c.method != "PATCH" && c.method != "DELETE") {
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_HTTP_REQUEST_METHOD must be put, post, patch or delete, got \"", c.method, "\""));
  }
  auto timeout = env.GetInt("SINK_HTTP_REQUEST_TIMEOUT_MS", 10000);
  if (!timeout.ok()) return timeout.status();
  if (*timeout <= 0) return absl::InvalidArgumentError("SINK_HTTP_REQUEST_TIMEOUT_MS must be > 0");
  c.timeout_ms = *timeout;
  auto conns = env.GetInt("SINK_HTTP_MAX_CONNECTIONS", 10);
  if (!conns.ok()) return conns.status();
  if (*conns <= 0) return absl::InvalidArgumentError("SINK_HTTP_MAX_CONNECTIONS must be > 0");
  c.max_connections = static_cast<int>(*conns);

  auto headers = ParseHeaderList(env.GetOr("SINK_HTTP_HEADERS", ""), "SINK_HTTP_HEADERS");
  if (!headers.ok()) return headers.status();
  c.headers = *std::move(headers);
  auto retry = ParseStatusRanges(env.GetOr("SINK_HTTP_RETRY_STATUS_CODE_RANGES", "400-600"),
                                 "SINK_HTTP_RETRY_STATUS_CODE_RANGES");
  if (!retry.ok()) return retry.status();
  c.retry_ranges = *retry;
  auto log = ParseStatusRanges(env.GetOr("SINK_HTTP_REQUEST_LOG_STATUS_CODE_RANGES", "400-499"),
                               "SINK_HTTP_REQUEST_LOG_STATUS_CODE_RANGES");
  if (!log.ok()) return log.status();
  c.log_ranges = *log;
  auto log_bodies = env.GetBool("SINK_HTTP_LOG_BODIES", false);
  if (!log_bodies.ok()) return log_bodies.status();
  c.log_bodies = *log_bodies;

  if (auto cls = env.Get("INPUT_SCHEMA_PROTO_CLASS"); cls && ctx.find_message) {
    auto d = Find(ctx, "INPUT_SCHEMA_PROTO_CLASS", *cls, &c);
    if (!d.ok()) return d.status();
    c.input_descriptor = *d;
  }

  std::string format = absl::AsciiStrToLower(env.GetOr("SINK_HTTP_DATA_FORMAT", "proto"));
  if (format == "json") {
    c.data_format = DataFormat::kJson;
  } else if (format != "proto") {
    return absl::InvalidArgumentError(
        absl::StrCat("SINK_HTTP_DATA_FORMAT must be proto or json, got \"", format, "\""));
  }
  auto option =
      JsonTemplate::ParseOptionFromEnv(env.GetOr("SINK_HTTP_JSON_BODY_TEMPLATE_PARSE_OPTION", ""));
  if (!option.ok()) return option.status();
  if (auto tmpl = env.Get("SINK_HTTP_JSON_BODY_TEMPLATE"); tmpl && c.data_format == DataFormat::kJson) {
    auto t = JsonTemplate::Parse(*tmpl, *option);
    if (!t.ok()) return t.status();
    c.body_template = *std::move(t);
  }

  auto simple_date = env.GetBool("SINK_HTTP_SIMPLE_DATE_FORMAT_ENABLE", true);
  if (!simple_date.ok()) return simple_date.status();
  c.simple_date_format = *simple_date;
  auto casts = ParseJsonTypecasts(env.GetOr("SINK_HTTP_SERIALIZER_JSON_TYPECAST", "[]"));
  if (!casts.ok()) return casts.status();
  c.typecasts = *std::move(casts);
  auto delete_body = env.GetBool("SINK_HTTP_DELETE_BODY_ENABLE", true);
  if (!delete_body.ok()) return delete_body.status();
  c.delete_body = *delete_body;

  std::string source = absl::AsciiStrToLower(env.GetOr("SINK_HTTP_PARAMETER_SOURCE", "disabled"));
  if (source == "key") {
    c.parameter_source = ParameterSource::kKey;
  } else if (source == "message") {
    c.parameter_source = ParameterSource::kMessage;
  } else if (source != "disabled" && source != "none") {
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_HTTP_PARAMETER_SOURCE must be key, message or disabled, got \"", source, "\""));
  }
  if (c.parameter_source != ParameterSource::kDisabled) {
    std::string placement =
        absl::AsciiStrToLower(env.GetOr("SINK_HTTP_PARAMETER_PLACEMENT", "header"));
    if (placement == "query") {
      c.parameter_placement = ParameterPlacement::kQuery;
    } else if (placement != "header") {
      return absl::InvalidArgumentError(absl::StrCat(
          "SINK_HTTP_PARAMETER_PLACEMENT must be header or query, got \"", placement, "\""));
    }
    auto cls = env.Require("SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS");
    if (!cls.ok()) return cls.status();
    auto d = Find(ctx, "SINK_HTTP_PARAMETER_SCHEMA_PROTO_CLASS", *cls, &c);
    if (!d.ok()) return d.status();
    c.parameter_descriptor = *d;
    auto mapping = env.Require("INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING");
    if (!mapping.ok()) return mapping.status();
    auto parsed = ParseColumnMapping(*mapping, c.parameter_descriptor);
    if (!parsed.ok()) return parsed.status();
    c.parameter_mapping = *std::move(parsed);
    if (c.parameter_placement == ParameterPlacement::kHeader) {
      for (const ColumnMapping& m : c.parameter_mapping) {
        if (!IsHeaderName(m.column)) {
          return absl::InvalidArgumentError(
              absl::StrCat("INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING: \"", m.column,
                           "\" is not a valid header name (SINK_HTTP_PARAMETER_PLACEMENT=header)"));
        }
      }
    }
  }

  // Firehose's dynamic URL: "<format with %s>,<field number>,...".
  if (c.url.find(',') != std::string::npos) {
    std::vector<std::string> parts = absl::StrSplit(c.url, ',');
    if (c.input_descriptor == nullptr) {
      return absl::InvalidArgumentError(
          "SINK_HTTP_SERVICE_URL with field numbers needs INPUT_SCHEMA_PROTO_CLASS");
    }
    c.url = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) {
      int n;
      const google::protobuf::FieldDescriptor* f = nullptr;
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(parts[i]), &n)) {
        f = c.input_descriptor->FindFieldByNumber(n);
      }
      if (f == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SINK_HTTP_SERVICE_URL: \"", parts[i], "\" is not a field number of ",
            c.input_descriptor->full_name()));
      }
      c.url_fields.push_back(f);
    }
  }
  auto oauth = env.GetBool("SINK_HTTP_OAUTH2_ENABLE", false);
  if (!oauth.ok()) return oauth.status();
  if (*oauth) {
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
    c.oauth2 = std::move(o);
  }
  return c;
}

}  // namespace sluice::sink
