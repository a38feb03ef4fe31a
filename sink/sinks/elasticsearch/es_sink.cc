#include "sink/sinks/elasticsearch/es_sink.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/common/http_options.h"
#include "sink/sinks/common/json_text.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

// "host:port,..." → base URLs. InvalidArgument naming SINK_ES_CONNECTION_URLS.
absl::Status ParseHosts(absl::string_view text, std::vector<std::string>* hosts) {
  for (absl::string_view h : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    h = absl::StripAsciiWhitespace(h);
    std::string url(h);
    if (absl::StrContains(h, "://")) {
      if (!absl::StartsWith(h, "http://") && !absl::StartsWith(h, "https://")) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SINK_ES_CONNECTION_URLS: \"", h, "\" must be host:port or an http(s):// URL"));
      }
    } else {
      if (!IsHostPort(h)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SINK_ES_CONNECTION_URLS: \"", h, "\" is not host:port (e.g. localhost:9200)"));
      }
      url = absl::StrCat("http://", h);
    }
    while (absl::EndsWith(url, "/")) url.pop_back();
    hosts->push_back(std::move(url));
  }
  if (hosts->empty()) return absl::InvalidArgumentError("SINK_ES_CONNECTION_URLS is empty");
  return absl::OkStatus();
}

// A field spec of `variable`; for protobuf a top-level lowerCamelCase JSON
// name ("orderNumber", Firehose's form with preserved names off) is accepted too.
absl::StatusOr<std::shared_ptr<const RecordField>> ParseField(
    const std::string& spec, const google::protobuf::Descriptor* d, absl::string_view variable) {
  std::string resolved = spec;
  if (d != nullptr && d->FindFieldByName(spec) == nullptr && !absl::StrContains(spec, '.')) {
    for (int i = 0; i < d->field_count(); ++i) {
      if (d->field(i)->json_name() == spec) resolved = d->field(i)->name();
    }
  }
  auto f = RecordField::Parse(resolved, d, variable);
  if (!f.ok()) return f.status();
  return std::make_shared<const RecordField>(*std::move(f));
}

absl::Status ParseBlacklist(absl::string_view text, std::set<int>* out) {
  if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(text), "none")) return absl::OkStatus();
  for (absl::string_view s : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int code = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(s), &code) || code < 100 || code > 599) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SINK_ES_RETRY_STATUS_CODE_BLACKLIST: \"", s, "\" is not an HTTP status (e.g. 404,400)"));
    }
    out->insert(code);
  }
  return absl::OkStatus();
}

// The input type: SINK_ES_INPUT_MESSAGE_TYPE must agree with INPUT_SCHEMA_DATA_TYPE.
absl::Status ParseInputType(const Env& env, bool have_descriptor, EsSinkConfig* c) {
  auto type = env.GetEnum("SINK_ES_INPUT_MESSAGE_TYPE", have_descriptor ? "PROTOBUF" : "JSON",
                          {"JSON", "PROTOBUF"});
  if (!type.ok()) return type.status();
  c->protobuf = *type == "PROTOBUF";
  if (c->protobuf != have_descriptor) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_ES_INPUT_MESSAGE_TYPE=", *type, " needs INPUT_SCHEMA_DATA_TYPE=",
        c->protobuf ? "protobuf (and INPUT_SCHEMA_PROTO_CLASS)" : "json"));
  }
  return absl::OkStatus();
}

// Members of an answer read without nlohmann's type_error exceptions (a
// server may send anything): the default when absent or of another type.
std::string StringMember(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
int IntMember(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}
// "<type>: <reason>" of an Elasticsearch error object, the reason cut at 300 bytes.
std::string ErrorText(const nlohmann::json& error) {
  return absl::StrCat(StringMember(error, "type"), ": ", StringMember(error, "reason").substr(0, 300));
}

// proto2 does not check UTF-8 on parse, and libprotobuf's JSON printer
// silently writes such a string as "" (the document would lose data), so
// every string of a proto2 message is checked (nlohmann's serializer refuses
// bytes that are not UTF-8). proto3 strings were checked by the parser.
absl::Status CheckUtf8(const google::protobuf::Message& m) {
  using FD = google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* r = m.GetReflection();
  const bool proto2 = m.GetDescriptor()->file()->syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO2;
  std::vector<const FD*> fields;
  r->ListFields(m, &fields);
  for (const FD* f : fields) {
    if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
      const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
      for (int i = 0; i < n; ++i) {
        const auto& sub = f->is_repeated() ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f);
        if (absl::Status s = CheckUtf8(sub); !s.ok()) return s;
      }
    } else if (proto2 && f->type() == FD::TYPE_STRING) {
      const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
      for (int i = 0; i < n; ++i) {
        std::string scratch;
        const std::string& v = f->is_repeated() ? r->GetRepeatedStringReference(m, f, i, &scratch)
                                                : r->GetStringReference(m, f, &scratch);
        if (!DumpJson(nlohmann::json(v), f->full_name()).ok()) {
          return absl::InvalidArgumentError(absl::StrCat(f->full_name(), " is not valid UTF-8"));
        }
      }
    }
  }
  return absl::OkStatus();
}

// Firehose's EsSink types no failure: an item outside the blacklist throws
// NeedToRetry (EsSink.java:90), a failed bulk call throws from client.bulk
// (EsSink.java:76), and AbstractSink.java:48-53 fails the push, which
// Message.java:33-36 types DEFAULT_ERROR. Sluice fails only the items that
// failed (Firehose: the whole batch), all as DEFAULT_ERROR.
constexpr ErrorType kEsFailure = ErrorType::kDefaultError;

}  // namespace

absl::StatusOr<EsSinkConfig> EsSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  EsSinkConfig c;
  auto urls = env.Require("SINK_ES_CONNECTION_URLS");
  if (!urls.ok()) return urls.status();
  if (absl::Status s = ParseHosts(*urls, &c.hosts); !s.ok()) return s;
  auto index = env.Require("SINK_ES_INDEX_NAME");
  if (!index.ok()) return index.status();
  c.index = *index;
  c.type_name = std::string(absl::StripAsciiWhitespace(env.GetOr("SINK_ES_TYPE_NAME", "")));
  auto owned = ctx.InputDescriptor();
  if (!owned.ok()) return owned.status();
  const google::protobuf::Descriptor* d = *owned ? (*owned)->get() : nullptr;
  if (absl::Status s = ParseInputType(env, d != nullptr, &c); !s.ok()) return s;
  auto id = env.Require("SINK_ES_ID_FIELD");
  if (!id.ok()) return id.status();
  auto id_field = ParseField(*id, d, "SINK_ES_ID_FIELD");
  if (!id_field.ok()) return id_field.status();
  c.id_field = *id_field;
  if (auto routing = env.Get("SINK_ES_ROUTING_KEY_NAME"); routing && !routing->empty()) {
    auto f = ParseField(*routing, d, "SINK_ES_ROUTING_KEY_NAME");
    if (!f.ok()) return f.status();
    c.routing_field = *f;
  }
  auto mode = env.GetEnum("KAFKA_RECORD_PARSER_MODE", "MESSAGE", {"MESSAGE", "KEY"});
  if (!mode.ok()) return mode.status();
  c.record_is_key = *mode == "KEY";
  auto update_only = env.GetBool("SINK_ES_MODE_UPDATE_ONLY_ENABLE", false);
  if (!update_only.ok()) return update_only.status();
  c.update_only = *update_only;
  auto preserve = env.GetBool("SINK_ES_PRESERVE_PROTO_FIELD_NAMES_ENABLE", true);
  if (!preserve.ok()) return preserve.status();
  c.preserve_proto_field_names = *preserve;
  auto timeout = env.GetPositiveInt("SINK_ES_REQUEST_TIMEOUT_MS", 60000);
  if (!timeout.ok()) return timeout.status();
  c.request_timeout_ms = *timeout;
  auto shards = env.GetInt("SINK_ES_SHARDS_ACTIVE_WAIT_COUNT", 1);
  if (!shards.ok()) return shards.status();
  if (*shards < 0) {
    return absl::InvalidArgumentError("SINK_ES_SHARDS_ACTIVE_WAIT_COUNT must be >= 0");
  }
  c.shards_active_wait_count = *shards;
  if (absl::Status s = ParseBlacklist(env.GetOr("SINK_ES_RETRY_STATUS_CODE_BLACKLIST", "404"),
                                      &c.retry_blacklist);
      !s.ok()) {
    return s;
  }
  return c;
}

EsSink::EsSink(EsSinkConfig config, Metrics* metrics, std::shared_ptr<HttpClient> http)
    : config_(std::move(config)), metrics_(metrics), http_(std::move(http)) {
  query_ = absl::StrCat("?timeout=", config_.request_timeout_ms,
                        "ms&wait_for_active_shards=", config_.shards_active_wait_count);
}

absl::StatusOr<std::unique_ptr<EsSink>> EsSink::Create(EsSinkConfig config, Metrics* metrics,
                                                       std::shared_ptr<HttpClient> http) {
  if (http == nullptr) http = NewCurlHttpClient();
  return std::unique_ptr<EsSink>(new EsSink(std::move(config), metrics, std::move(http)));
}

absl::StatusOr<std::string> EsSink::Document(const Message& m) const {
  if (config_.protobuf) {
    if (m.decoded == nullptr) return absl::InvalidArgumentError("the record was not decoded as protobuf");
    google::protobuf::util::JsonPrintOptions opts;
    opts.preserve_proto_field_names = config_.preserve_proto_field_names;
    if (absl::Status utf8 = CheckUtf8(*m.decoded); !utf8.ok()) return utf8;
    std::string out;
    auto st = google::protobuf::util::MessageToJsonString(*m.decoded, &out, opts);
    if (!st.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("not representable as JSON: ", std::string(st.message())));
    }
    return out;
  }
  if (m.json == nullptr) return absl::InvalidArgumentError("the record was not decoded as JSON");
  if (!m.json->is_object()) return absl::InvalidArgumentError("the JSON record is not an object");
  // The record's own text when it is one line already (no re-serialization;
  // JSON strings cannot hold raw line breaks), else compact JSON.
  // A byte-order mark, which the JSON parser skipped, is re-serialized away.
  const std::string* text = config_.record_is_key ? (m.key.has_value() ? &*m.key : nullptr) : &m.value;
  if (text != nullptr && text->find_first_of("\r\n") == std::string::npos &&
      !absl::StartsWith(*text, "\xEF\xBB\xBF")) {
    return *text;
  }
  return DumpJson(*m.json, "document");
}

absl::Status EsSink::AddAction(const Message& m) {
  auto id = config_.id_field->Read(m);
  if (!id.ok()) return id.status();
  if (!id->has_value() || (*id)->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the id field \"", config_.id_field->spec(), "\" (SINK_ES_ID_FIELD) is missing"));
  }
  if ((*id)->size() > kMaxIdBytes) {
    // Elasticsearch refuses the whole bulk request for one such id.
    return absl::InvalidArgumentError(absl::StrCat("the id field \"", config_.id_field->spec(),
                                                   "\" is longer than ", kMaxIdBytes, " bytes"));
  }
  nlohmann::json meta = {{"_index", config_.index}, {"_id", **id}};
  if (!config_.type_name.empty() && major_version_.has_value() && *major_version_ < 7) {
    meta["_type"] = config_.type_name;
  }
  if (config_.routing_field != nullptr) {
    auto routing = config_.routing_field->Read(m);
    if (!routing.ok()) return routing.status();
    if (!routing->has_value() || (*routing)->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the routing field \"", config_.routing_field->spec(), "\" (SINK_ES_ROUTING_KEY_NAME) is missing"));
    }
    meta["routing"] = **routing;
  }
  auto action = DumpJson(nlohmann::json{{"update", std::move(meta)}}, "bulk action");
  if (!action.ok()) return action.status();
  auto doc = Document(m);
  if (!doc.ok()) return doc.status();
  absl::StrAppend(&body_, *action, "\n{\"doc\":", *doc,
                  config_.update_only ? "}\n" : ",\"doc_as_upsert\":true}\n");
  return absl::OkStatus();
}

absl::StatusOr<int> EsSink::MajorVersion() {
  HttpRequest req;
  req.method = "GET";
  req.headers = {"Accept: application/json"};
  req.timeout = absl::Milliseconds(config_.request_timeout_ms);
  std::string last = "no host";
  for (size_t tried = 0; tried < config_.hosts.size(); ++tried) {
    req.url = absl::StrCat(config_.hosts[current_], "/");
    absl::StatusOr<HttpResult> res = http_->Do(req);
    if (res.ok() && res->status >= 200 && res->status < 300) {
      nlohmann::json info = nlohmann::json::parse(res->body, nullptr, /*allow_exceptions=*/false);
      int major = 0;
      std::string number = info.is_object() && info.contains("version")
                               ? StringMember(info["version"], "number") : "";
      if (absl::SimpleAtoi(number.substr(0, number.find('.')), &major)) return major;
      last = "GET / did not give version.number";
    } else {
      last = res.ok() ? absl::StrCat("GET / -> HTTP ", res->status) : std::string(res.status().message());
    }
    current_ = (current_ + 1) % config_.hosts.size();
  }
  return absl::UnavailableError(absl::StrCat("cannot read the Elasticsearch version: ", last));
}

std::vector<FailedMessage> EsSink::Prepare(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  body_.clear();
  messages_.clear();
  if (!config_.type_name.empty() && !major_version_.has_value()) {
    absl::StatusOr<int> major = MajorVersion();
    if (!major.ok()) {
      for (const Message& m : batch) {
        failed.push_back({m, kEsFailure,
                          absl::StrCat("elasticsearch sink: ", major.status().message())});
      }
      return failed;
    }
    major_version_ = *major;
  }
  for (const Message& m : batch) {
    size_t mark = body_.size();
    if (absl::Status s = AddAction(m); !s.ok()) {
      body_.resize(mark);
      failed.push_back({m, ErrorType::kInvalidMessageError,
                        absl::StrCat("elasticsearch sink: ", s.message())});
      continue;
    }
    messages_.push_back(&m);
  }
  return failed;
}

absl::StatusOr<HttpResult> EsSink::Send() {
  HttpRequest req;
  req.method = "POST";
  req.body = std::move(body_);
  req.headers = {"Content-Type: application/x-ndjson", "Accept: application/json"};
  req.timeout = absl::Milliseconds(config_.request_timeout_ms);
  // A bulk answer carries a few hundred bytes per item.
  req.max_response_bytes = std::max(kDefaultMaxResponseBytes, messages_.size() * 4096);
  absl::StatusOr<HttpResult> res;
  for (size_t tried = 0; tried < config_.hosts.size(); ++tried) {
    req.url = absl::StrCat(config_.hosts[current_], "/_bulk", query_);
    res = http_->Do(req);
    bool node_down = !res.ok() ? !absl::IsFailedPrecondition(res.status())
                               : res->status == 502 || res->status == 503 || res->status == 504;
    if (!node_down) break;
    if (config_.hosts.size() > 1) {
      spdlog::warn("elasticsearch sink: {} failed ({}); failing over to the next host",
                   RedactUrl(config_.hosts[current_]),
                   res.ok() ? absl::StrCat("HTTP ", res->status) : std::string(res.status().message()));
    }
    current_ = (current_ + 1) % config_.hosts.size();
  }
  return res;
}

void EsSink::ReadItems(const std::string& answer, std::vector<FailedMessage>* failed) {
  nlohmann::json doc = nlohmann::json::parse(answer, nullptr, /*allow_exceptions=*/false);
  const nlohmann::json* items = doc.is_object() && doc.contains("items") ? &doc["items"] : nullptr;
  if (items == nullptr || !items->is_array() || items->size() != messages_.size()) {
    for (const Message* m : messages_) {
      failed->push_back({*m, kEsFailure,
                         absl::StrCat("elasticsearch sink: the bulk answer does not have one item "
                                      "per action (", messages_.size(), " actions)")});
    }
    return;
  }
  if (doc.contains("errors") && doc["errors"].is_boolean() && !doc["errors"].get<bool>()) return;
  for (size_t i = 0; i < messages_.size(); ++i) {
    const nlohmann::json& outer = (*items)[i];
    const nlohmann::json& item = outer.is_object() && !outer.empty() ? outer.begin().value() : outer;
    int status = IntMember(item, "status");
    bool error = !item.is_object() || item.contains("error");
    if (!error && status >= 200 && status < 300) continue;
    if (config_.retry_blacklist.count(status) > 0) {
      spdlog::info("elasticsearch sink: message dropped, item status {} is in "
                   "SINK_ES_RETRY_STATUS_CODE_BLACKLIST (topic {} partition {} offset {})",
                   status, messages_[i]->topic, messages_[i]->partition, messages_[i]->offset);
      if (metrics_ != nullptr) {
        metrics_->Increment("firehose_sink_messages_drop_total", {{"cause", absl::StrCat(status)}});
      }
      continue;
    }
    std::string why = absl::StrCat("elasticsearch sink: item status ", status);
    if (item.is_object() && item.contains("error")) absl::StrAppend(&why, " ", ErrorText(item["error"]));
    failed->push_back({*messages_[i], kEsFailure, std::move(why)});
  }
}

std::vector<FailedMessage> EsSink::Execute() {
  std::vector<FailedMessage> failed;
  if (!messages_.empty()) {
    absl::StatusOr<HttpResult> res = Send();
    auto fail_all = [&](ErrorType type, const std::string& why) {
      for (const Message* m : messages_) {
        failed.push_back({*m, type, absl::StrCat("elasticsearch sink: ", why)});
      }
    };
    if (!res.ok()) {
      fail_all(kEsFailure, std::string(res.status().message()));
    } else if (res->status >= 200 && res->status < 300) {
      ReadItems(res->body, &failed);
    } else {
      // Elasticsearch's error type and reason, never the raw body.
      std::string why = absl::StrCat("POST /_bulk -> HTTP ", res->status);
      nlohmann::json body = nlohmann::json::parse(res->body, nullptr, /*allow_exceptions=*/false);
      if (body.is_object() && body.contains("error")) absl::StrAppend(&why, ": ", ErrorText(body["error"]));
      fail_all(kEsFailure, why);
    }
  }
  body_.clear();
  messages_.clear();
  return failed;
}

}  // namespace sluice::sink
