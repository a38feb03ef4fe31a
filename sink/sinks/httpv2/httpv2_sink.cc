#include "sink/sinks/httpv2/httpv2_sink.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/outbound.h"
#include "sink/sinks/common/http_options.h"
#include "sink/sinks/common/json_text.h"
#include "sink/sinks/common/proto_values.h"
#include "sink/sinks/common/url_origin.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

FailedMessage Fail(const Message& m, ErrorType type, std::string error) {
  return FailedMessage{m, type, std::move(error)};
}

bool HasHeader(const std::vector<std::string>& headers, absl::string_view name) {
  for (const std::string& h : headers) {
    size_t colon = h.find(':');
    if (colon != std::string::npos && absl::EqualsIgnoreCase(h.substr(0, colon), name)) return true;
  }
  return false;
}

// Appends `name=value` to `url`'s query (Apache URIBuilder.addParameter).
void AddQuery(std::string* url, const std::string& name, const std::string& value) {
  size_t hash = url->find('#');
  std::string fragment = hash == std::string::npos ? "" : url->substr(hash);
  if (hash != std::string::npos) url->resize(hash);
  url->append(url->find('?') == std::string::npos ? "?" : "&");
  absl::StrAppend(url, UrlEscape(name), "=", UrlEscape(value), fragment);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Httpv2Sink>> Httpv2Sink::Create(Httpv2SinkConfig config,
                                                               Metrics* metrics) {
  return Create(std::move(config), metrics, NewCurlHttpClient(), NewCurlHttpClient());
}

absl::StatusOr<std::unique_ptr<Httpv2Sink>> Httpv2Sink::Create(
    Httpv2SinkConfig config, Metrics* metrics, std::unique_ptr<HttpClient> http,
    std::unique_ptr<HttpClient> token_http) {
  std::optional<Httpv2OAuth2Config> oauth2 = config.oauth2;
  std::unique_ptr<Httpv2Sink> sink(new Httpv2Sink(std::move(config), metrics, std::move(http)));
  if (oauth2) sink->oauth2_ = std::make_unique<Httpv2TokenSource>(*oauth2, std::move(token_http));
  return sink;
}

Httpv2Sink::Httpv2Sink(Httpv2SinkConfig config, Metrics* metrics, std::unique_ptr<HttpClient> http)
    : config_(std::move(config)), metrics_(metrics), http_(std::move(http)) {}

absl::Status Httpv2Sink::Decode(const Message& m, bool key, Side* out) const {
  if (key == config_.decoded_is_key && (m.decoded != nullptr || m.json != nullptr)) {
    out->view = RecordView{m.decoded.get(), m.json.get()};
    return absl::OkStatus();
  }
  const std::string empty;
  const std::string& bytes = key ? (m.key ? *m.key : empty) : m.value;
  const char* what = key ? "key" : "message";
  if (config_.descriptor != nullptr) {
    out->proto.reset(factory_.GetPrototype(config_.descriptor->get())->New());
    if (!out->proto->ParseFromString(bytes)) {
      return absl::InvalidArgumentError(absl::StrCat("the ", what, " does not decode as ",
                                                     config_.descriptor->get()->full_name()));
    }
    out->view = RecordView{out->proto.get(), nullptr};
    return absl::OkStatus();
  }
  out->json = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (out->json.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat("the ", what, " is not JSON"));
  }
  out->view = RecordView{nullptr, &out->json};
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::ordered_json> Httpv2Sink::FillTemplate(
    const nlohmann::ordered_json& node, const RecordView& r) const {
  constexpr const char* kVar = "SINK_HTTPV2_JSON_BODY_TEMPLATE";
  if (node.is_string()) {
    const std::string& s = node.get_ref<const std::string&>();
    if (s.empty()) return node;
    auto t = ValueTemplate::Parse(s, config_.descriptor ? config_.descriptor->get() : nullptr, kVar);
    if (!t.ok()) return t.status();
    auto value = t->RenderJson(r, config_.default_field_values);
    if (!value.ok()) return value.status();
    return nlohmann::ordered_json(*value);
  }
  if (node.is_object()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [k, v] : node.items()) {
      std::string key = k;
      if (!k.empty()) {
        auto filled = FillTemplate(nlohmann::ordered_json(k), r);
        if (!filled.ok()) return filled.status();
        key = filled->is_string() ? filled->get<std::string>() : filled->dump();
      }
      auto value = FillTemplate(v, r);
      if (!value.ok()) return value.status();
      out[key] = *std::move(value);
    }
    return out;
  }
  if (node.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& v : node) {
      auto value = FillTemplate(v, r);
      if (!value.ok()) return value.status();
      out.push_back(*std::move(value));
    }
    return out;
  }
  return node;
}

absl::StatusOr<std::string> Httpv2Sink::Body(const Message& m, const Side& decoded,
                                             ErrorType* type) const {
  using Mode = Httpv2SinkConfig::BodyMode;
  auto record_json = [&](const RecordView& r) -> absl::StatusOr<std::string> {
    if (r.proto != nullptr) return MessageJson(*r.proto, config_.default_field_values);
    return DumpJson(*r.json, "record");
  };
  *type = ErrorType::kInvalidMessageError;
  switch (config_.body_mode) {
    case Mode::kRaw: {
      nlohmann::json raw = {{"log_key", m.key ? absl::Base64Escape(*m.key) : ""},
                            {"log_message", absl::Base64Escape(m.value)}};
      return raw.dump();
    }
    case Mode::kMessage:
      return record_json(decoded.view);
    case Mode::kJson: {
      Side key, message;
      *type = ErrorType::kDeserializationError;
      if (auto s = Decode(m, true, &key); !s.ok()) return s;
      if (auto s = Decode(m, false, &message); !s.ok()) return s;
      *type = ErrorType::kInvalidMessageError;
      auto k = record_json(key.view);
      if (!k.ok()) return k.status();
      auto v = record_json(message.view);
      if (!v.ok()) return v.status();
      return nlohmann::json{{"logKey", *k}, {"logMessage", *v}}.dump();
    }
    case Mode::kTemplatizedJson: {
      auto filled = FillTemplate(*config_.body_template, decoded.view);
      if (!filled.ok()) {
        *type = ErrorType::kUnknownFieldsError;
        return filled.status();
      }
      try {
        return filled->dump();
      } catch (const nlohmann::ordered_json::exception& e) {
        return absl::InvalidArgumentError(
            absl::StrCat("SINK_HTTPV2_JSON_BODY_TEMPLATE: cannot serialize as JSON: ", e.what()));
      }
    }
  }
  return absl::InternalError("unknown body mode");
}

std::vector<std::string> Httpv2Sink::BaseHeaders(bool with_body) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : config_.headers) out.push_back(absl::StrCat(k, ": ", v));
  // depot's StringEntity(..., ContentType.APPLICATION_JSON).
  if (with_body && !HasHeader(out, "Content-Type")) {
    out.push_back("Content-Type: application/json; charset=UTF-8");
  }
  return out;
}

absl::StatusOr<Httpv2Sink::Request> Httpv2Sink::SingleRequest(const Message& m,
                                                              ErrorType* type) const {
  Side decoded;
  *type = ErrorType::kDeserializationError;
  if (auto s = Decode(m, config_.decoded_is_key, &decoded); !s.ok()) return s;
  Side params;  // message or key for headers and query
  auto side = [&](bool key) -> absl::StatusOr<RecordView> {
    if (key == config_.decoded_is_key) return decoded.view;
    if (params.view.proto == nullptr && params.view.json == nullptr) {
      if (auto s = Decode(m, key, &params); !s.ok()) return s;
    }
    return params.view;
  };
  Request r;
  r.messages.push_back(m);
  *type = ErrorType::kUnknownFieldsError;
  // Values percent-encoded (review R3-M1); query names and values are
  // encoded by AddQuery, headers and bodies are not URLs and stay as they are.
  auto url = config_.url->RenderUrl(decoded.view);
  if (!url.ok()) return url.status();
  r.http.url = *std::move(url);
  if (!config_.query_templates.empty()) {
    *type = ErrorType::kDeserializationError;
    auto view = side(config_.query_from_key);
    if (!view.ok()) return view.status();
    *type = ErrorType::kUnknownFieldsError;
    for (const auto& [kt, vt] : config_.query_templates) {
      auto k = kt.Render(*view);
      if (!k.ok()) return k.status();
      auto v = vt.Render(*view);
      if (!v.ok()) return v.status();
      AddQuery(&r.http.url, *k, *v);
    }
  }
  *type = ErrorType::kInvalidMessageError;
  if (auto s = ValidateHttpUrl("SINK_HTTPV2_SERVICE_URL", r.http.url); !s.ok()) return s;
  // Values are encoded and FromEnv keeps placeholders out of the authority;
  // this holds even if either is ever bypassed (review R3-M1).
  auto origin = UrlOrigin(r.http.url);
  if (!origin.ok() || *origin != config_.url_origin) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_HTTPV2_SERVICE_URL: the record's values change the URL's scheme, host or port (",
        origin.ok() ? *origin : std::string(origin.status().message()), " instead of ",
        config_.url_origin, ")"));
  }
  bool with_body = config_.method != "DELETE" || config_.delete_body;
  r.http.headers = BaseHeaders(with_body);
  if (!config_.header_templates.empty()) {
    *type = ErrorType::kDeserializationError;
    auto view = side(config_.headers_from_key);
    if (!view.ok()) return view.status();
    for (const auto& [kt, vt] : config_.header_templates) {
      *type = ErrorType::kUnknownFieldsError;
      auto k = kt.Render(*view);
      if (!k.ok()) return k.status();
      auto v = vt.Render(*view);
      if (!v.ok()) return v.status();
      *type = ErrorType::kInvalidMessageError;
      if (!IsHeaderName(*k) || !IsValidHeaderValue(*v)) {
        return absl::InvalidArgumentError(
            absl::StrCat("SINK_HTTPV2_HEADERS_TEMPLATE: header \"", absl::CHexEscape(*k),
                         "\" or its value is not valid in HTTP"));
      }
      // depot's HeaderBuilder puts templated headers over SINK_HTTPV2_HEADERS.
      std::string prefix = absl::AsciiStrToLower(absl::StrCat(*k, ":"));
      r.http.headers.erase(std::remove_if(r.http.headers.begin(), r.http.headers.end(),
                                          [&](const std::string& h) {
                                            return absl::StartsWith(absl::AsciiStrToLower(h), prefix);
                                          }),
                           r.http.headers.end());
      r.http.headers.push_back(absl::StrCat(*k, ": ", *v));
    }
  }
  if (with_body) {
    auto body = Body(m, decoded, type);
    if (!body.ok()) return body.status();
    r.http.body = *std::move(body);
  }
  return r;
}

std::vector<FailedMessage> Httpv2Sink::Prepare(const std::vector<Message>& batch) {
  requests_.clear();
  std::vector<FailedMessage> failed;
  bool with_body = config_.method != "DELETE" || config_.delete_body;
  if (!config_.batch) {
    for (const Message& m : batch) {
      ErrorType type = ErrorType::kDefaultError;
      auto r = SingleRequest(m, &type);
      if (!r.ok()) {
        failed.push_back(Fail(m, type, std::string(r.status().message())));
        continue;
      }
      requests_.push_back(*std::move(r));
    }
  } else {
    // depot's BatchRequest: one request, constant URL, query and headers.
    Request r;
    r.http.url = config_.url->pattern();
    for (const auto& [k, v] : config_.query_templates) AddQuery(&r.http.url, k.pattern(), v.pattern());
    r.http.headers = BaseHeaders(with_body);
    std::vector<std::string> bodies;
    for (const Message& m : batch) {
      if (!with_body) {
        r.messages.push_back(m);
        continue;
      }
      Side decoded;
      ErrorType type = ErrorType::kDeserializationError;
      absl::Status s = Decode(m, config_.decoded_is_key, &decoded);
      absl::StatusOr<std::string> body = s.ok() ? Body(m, decoded, &type) : s;
      if (!body.ok()) {
        failed.push_back(Fail(m, type, std::string(body.status().message())));
        continue;
      }
      bodies.push_back(*std::move(body));
      r.messages.push_back(m);
    }
    // Java's List.toString of the bodies.
    if (with_body) r.http.body = absl::StrCat("[", absl::StrJoin(bodies, ", "), "]");
    if (!r.messages.empty()) requests_.push_back(std::move(r));
  }
  for (Request& r : requests_) {
    r.http.method = config_.method;
    r.http.timeout = absl::Milliseconds(config_.timeout_ms);
    r.http.connect_timeout = absl::Milliseconds(config_.timeout_ms);
  }
  return failed;
}

void Httpv2Sink::Classify(size_t i, long status, const std::string& error,
                          std::vector<FailedMessage>* failed) {
  const Request& r = requests_[i];
  if (status >= 0) {
    metrics_->Increment("firehose_sink_http_response_code_total",
                        {{"status_code", absl::StrCat(status)}});
  }
  if (status < 0 || InStatusRanges(config_.log_ranges, static_cast<int>(status))) {
    spdlog::warn("HTTPV2 {} {} -> {} (request {} bytes, {} record(s))", r.http.method,
                 RedactUrl(r.http.url), status < 0 ? error : absl::StrCat(status),
                 r.http.body.size(), r.messages.size());
  }
  if (status >= 200 && status <= 299) return;
  ErrorType type;
  std::string why = status < 0 ? error : absl::StrCat("Error:", status);
  if (status < 0) {
    // No answer (refused, timeout, ...): depot's HttpSinkClient.send throws
    // IOException, HttpSink.pushToSink rethrows it as depot's SinkException,
    // which Firehose's AbstractSink.java:48-53 catches as any Exception:
    // DEFAULT_ERROR (Message.java:33-36).
    type = ErrorType::kDefaultError;
  } else if (InStatusRanges(config_.retry_ranges, static_cast<int>(status))) {
    // depot HttpResponseParser.getErrors: retry ranges first, then 4xx, 5xx.
    type = ErrorType::kSinkRetryableError;
  } else if (status >= 400 && status <= 499) {
    type = ErrorType::kSink4xxError;
  } else if (status >= 500 && status <= 599) {
    type = ErrorType::kSink5xxError;
  } else {
    type = ErrorType::kSinkUnknownError;
  }
  for (const Message& m : r.messages) failed->push_back(Fail(m, type, why));
}

std::vector<FailedMessage> Httpv2Sink::Execute() {
  std::vector<FailedMessage> failed;
  if (requests_.empty()) return failed;
  if (oauth2_ != nullptr) {
    auto token = oauth2_->Token();
    if (!token.ok()) {
      spdlog::warn("HTTPV2: {}", std::string(token.status().message()));
      for (const Request& r : requests_) {
        for (const Message& m : r.messages) {
          // depot's OAuth2Credential interceptor throws IOException: as above.
          failed.push_back(Fail(m, ErrorType::kDefaultError, std::string(token.status().message())));
        }
      }
      requests_.clear();
      return failed;
    }
    for (Request& r : requests_) r.http.headers.push_back(absl::StrCat("Authorization: Bearer ", *token));
  }
  std::vector<absl::StatusOr<HttpResult>> results(requests_.size(), absl::UnknownError("not sent"));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < requests_.size(); i = next++) results[i] = http_->Do(requests_[i].http);
  };
  size_t threads = std::min<size_t>(config_.max_connections, requests_.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  bool unauthorized = false;
  for (size_t i = 0; i < requests_.size(); ++i) {
    if (!results[i].ok()) {
      Classify(i, -1, std::string(results[i].status().message()), &failed);
      continue;
    }
    unauthorized |= results[i]->status == 401;
    Classify(i, results[i]->status, "", &failed);
  }
  // depot's OAuth2Credential response interceptor.
  if (unauthorized && oauth2_ != nullptr) oauth2_->Invalidate();
  requests_.clear();
  return failed;
}

}  // namespace sluice::sink
