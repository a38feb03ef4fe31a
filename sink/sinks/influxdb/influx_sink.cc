#include "sink/sinks/influxdb/influx_sink.h"

#include "sink/sinks/common/http_options.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {
namespace {

// Escapes the characters of `special` with a backslash. A run of the input's
// own backslashes that ends right before such a character (or at the end of
// the text) and has odd length gets one more backslash: otherwise its last
// backslash would escape the backslash added here (or the separator after the
// text), and InfluxDB's scanner would end the key or value early. Other
// backslashes are written as they are (InfluxDB 1.x keeps them literally).
std::string Escape(absl::string_view s, absl::string_view special) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '\\') {
      size_t j = i;
      while (j < s.size() && s[j] == '\\') ++j;
      out.append(j - i, '\\');
      bool before_separator = j == s.size() || special.find(s[j]) != absl::string_view::npos;
      if ((j - i) % 2 == 1 && before_separator) out.push_back('\\');
      i = j;
      continue;
    }
    if (special.find(s[i]) != absl::string_view::npos) out.push_back('\\');
    out.push_back(s[i]);
    ++i;
  }
  return out;
}

// InvalidArgument when `s` has a line break: line protocol has no escape for
// one (a newline ends the point), so it is refused rather than written.
absl::Status NoLineBreak(absl::string_view what, absl::string_view s) {
  if (s.find_first_of("\n\r") == absl::string_view::npos) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, " contains a newline or carriage return, which InfluxDB line protocol cannot carry"));
}

}  // namespace

std::string EscapeMeasurement(absl::string_view s) { return Escape(s, ", "); }
std::string EscapeKey(absl::string_view s) { return Escape(s, ",= "); }
std::string QuoteFieldString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

absl::StatusOr<InfluxSinkConfig> InfluxSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  InfluxSinkConfig c;
  auto target = ReadHttpTarget(env, "SINK_INFLUX_URL", "SINK_INFLUX_REQUEST_TIMEOUT_MS", 10000);
  if (!target.ok()) return target.status();
  c.url = target->url;
  c.request_timeout_ms = target->timeout_ms;
  for (auto [name, field] : {std::pair{"SINK_INFLUX_DB_NAME", &c.database},
                             std::pair{"SINK_INFLUX_MEASUREMENT_NAME", &c.measurement}}) {
    auto v = env.Require(name);
    if (!v.ok()) return v.status();
    *field = *v;
  }
  c.username = env.GetOr("SINK_INFLUX_USERNAME", "");
  c.password = env.GetOr("SINK_INFLUX_PASSWORD", "");
  c.retention_policy = env.GetOr("SINK_INFLUX_RETENTION_POLICY", "autogen");
  // Fields keep field numbers, so the descriptor is needed only here.
  auto owned = ctx.InputDescriptor();
  if (!owned.ok()) return owned.status();
  const google::protobuf::Descriptor* d = *owned ? (*owned)->get() : nullptr;
  if (absl::Status s = ParseFieldMappingVariable(env, "SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", d, true, &c.fields);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseFieldMappingVariable(env, "SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", d, false, &c.tags);
      !s.ok()) {
    return s;
  }
  auto ts = env.Require("SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX");
  if (!ts.ok()) return ts.status();
  auto field = RecordField::Parse(*ts, d, "SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX");
  if (!field.ok()) return field.status();
  c.timestamp = std::make_shared<const RecordField>(*std::move(field));
  // Names come from the configuration: a line break there is refused at start.
  if (absl::Status s = NoLineBreak("SINK_INFLUX_MEASUREMENT_NAME", c.measurement); !s.ok()) return s;
  for (auto [variable, list] : {std::pair{"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", &c.fields},
                                std::pair{"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", &c.tags}}) {
    for (const NamedField& f : *list) {
      if (absl::Status s = NoLineBreak(absl::StrCat(variable, ": name \"", absl::CEscape(f.name), "\""), f.name);
          !s.ok()) {
        return s;
      }
    }
  }
  return c;
}

InfluxSink::InfluxSink(InfluxSinkConfig config, std::shared_ptr<HttpClient> http)
    : config_(std::move(config)), http_(std::move(http)) {}

absl::StatusOr<std::unique_ptr<InfluxSink>> InfluxSink::Create(InfluxSinkConfig config, Metrics*,
                                                               std::shared_ptr<HttpClient> http) {
  if (http == nullptr) http = NewCurlHttpClient();
  return std::unique_ptr<InfluxSink>(new InfluxSink(std::move(config), std::move(http)));
}

absl::StatusOr<std::string> InfluxSink::Line(const Message& m) const {
  std::string line = EscapeMeasurement(config_.measurement);
  for (const NamedField& t : config_.tags) {
    auto v = t.field.ReadTyped(m);
    if (!v.ok()) return v.status();
    if (!v->has_value() || (*v)->text.empty()) continue;
    if (absl::Status s = NoLineBreak(absl::StrCat("tag \"", t.name, "\" (", t.field.spec(), ")"), (*v)->text);
        !s.ok()) {
      return s;
    }
    absl::StrAppend(&line, ",", EscapeKey(t.name), "=", EscapeKey((*v)->text));
  }
  std::vector<std::string> fields;
  for (const NamedField& f : config_.fields) {
    auto v = f.field.ReadTyped(m);
    if (!v.ok()) return v.status();
    if (!v->has_value()) continue;
    using Kind = RecordField::Typed::Kind;
    const RecordField::Typed& t = **v;
    std::string value = t.kind == Kind::kInt      ? absl::StrCat(t.text, "i")
                        : t.kind == Kind::kString ? QuoteFieldString(t.text)
                                                  : t.text;
    fields.push_back(absl::StrCat(EscapeKey(f.name), "=", value));
  }
  if (fields.empty()) return absl::InvalidArgumentError("no mapped field has a value");
  auto ts = config_.timestamp->ReadTyped(m);
  if (!ts.ok()) return ts.status();
  if (!ts->has_value() || (*ts)->kind != RecordField::Typed::Kind::kInt) {
    return absl::InvalidArgumentError(absl::StrCat("the event timestamp \"", config_.timestamp->spec(),
                                                   "\" is absent or not a timestamp"));
  }
  absl::StrAppend(&line, " ", absl::StrJoin(fields, ","), " ", (*ts)->text);
  return line;
}

std::vector<FailedMessage> InfluxSink::Prepare(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  lines_.clear();
  messages_.clear();
  for (const Message& m : batch) {
    auto line = Line(m);
    if (!line.ok()) {
      failed.push_back({m, ErrorType::kInvalidMessageError, absl::StrCat("influxdb sink: ", line.status().message())});
      continue;
    }
    lines_.push_back(*std::move(line));
    messages_.push_back(&m);
  }
  return failed;
}

InfluxSink::WriteResult InfluxSink::Write(std::string body) const {
  HttpRequest req;
  req.url = absl::StrCat(config_.url, "/write?db=", UrlEscape(config_.database),
                         "&rp=", UrlEscape(config_.retention_policy), "&precision=ms");
  req.body = std::move(body);
  req.headers.push_back("Content-Type: text/plain; charset=utf-8");
  if (!config_.username.empty()) {
    req.headers.push_back(absl::StrCat(
        "Authorization: Basic ", absl::Base64Escape(absl::StrCat(config_.username, ":", config_.password))));
  }
  req.timeout = absl::Milliseconds(config_.request_timeout_ms);
  absl::StatusOr<HttpResult> res = http_->Do(req);
  WriteResult out;
  if (!res.ok()) {
    out.why = std::string(res.status().message());
    return out;
  }
  if (res->status >= 200 && res->status < 300) {
    out.ok = true;
    return out;
  }
  // InfluxDB answers {"error": "..."}; only that text is kept.
  nlohmann::json j = nlohmann::json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  std::string error = j.is_object() && j.contains("error") && j["error"].is_string()
                          ? j["error"].get<std::string>().substr(0, 300)
                          : "";
  out.why = absl::StrCat("HTTP ", res->status, error.empty() ? "" : ": ", error);
  out.partial = res->status == 400;
  return out;
}

std::vector<FailedMessage> InfluxSink::Execute() {
  std::vector<FailedMessage> failed;
  if (messages_.empty()) return failed;
  WriteResult all = Write(absl::StrJoin(lines_, "\n"));
  if (!all.ok && all.partial && lines_.size() > 1) {
    // Find the refused points: each line alone.
    for (size_t i = 0; i < lines_.size(); ++i) {
      WriteResult one = Write(lines_[i]);
      if (!one.ok) {
        failed.push_back({*messages_[i], one.type, absl::StrCat("influxdb sink: ", one.why)});
      }
    }
  } else if (!all.ok) {
    for (const Message* m : messages_) {
      failed.push_back({*m, all.type, absl::StrCat("influxdb sink: ", all.why)});
    }
  }
  lines_.clear();
  messages_.clear();
  return failed;
}

}  // namespace sluice::sink
