#include "sink/sinks/http/http_sink.h"

#include <algorithm>

#include <curl/curl.h>

#include <map>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/json_util.h"
#include "common/outbound.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/common/json_text.h"
#include "sink/sinks/http/message_to_json.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

using google::protobuf::Descriptor;
using PbMessage = google::protobuf::Message;

// libcurl's global state is initialised once per process.
void GlobalInit() {
  static const bool done = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)done;
}

size_t CollectBody(char* data, size_t size, size_t n, void* user) {
  auto* out = static_cast<HttpSink::ResponseBody*>(user);
  out->size += size * n;
  if (out->prefix.size() < 1024) out->prefix.append(data, std::min(size * n, 1024 - out->prefix.size()));
  return size * n;
}

// The URL for logs and error texts: without its query, which may carry
// parameter values taken from records (SINK_HTTP_PARAMETER_PLACEMENT=query).
std::string UrlForLogs(absl::string_view url) {
  size_t q = url.find('?');
  if (q == absl::string_view::npos) return std::string(url);
  return absl::StrCat(url.substr(0, q), "?...");
}

// Default curl_multi_perform (the test seam's default).
int MultiPerform(void* multi, int* running) {
  return curl_multi_perform(static_cast<CURLM*>(multi), running);
}

}  // namespace

HttpSink::HttpSink(HttpSinkConfig config, Metrics* metrics)
    : config_(std::move(config)), metrics_(metrics), perform_(&MultiPerform) {}

absl::StatusOr<std::unique_ptr<HttpSink>> HttpSink::Create(HttpSinkConfig config,
                                                           Metrics* metrics) {
  GlobalInit();
  std::unique_ptr<HttpSink> sink(new HttpSink(std::move(config), metrics));
  CURLM* multi = curl_multi_init();
  CURLSH* share = curl_share_init();
  if (multi == nullptr || share == nullptr) return absl::InternalError("libcurl init failed");
  sink->multi_ = multi;
  sink->share_ = share;
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                    static_cast<long>(sink->config_.max_connections));
  curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS,
                    static_cast<long>(sink->config_.max_connections));
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, static_cast<long>(sink->config_.max_connections));
  if (sink->config_.oauth2) {
    sink->oauth2_ = std::make_unique<OAuth2TokenSource>(*sink->config_.oauth2, NewCurlHttpClient());
  }
  return sink;
}

HttpSink::~HttpSink() {
  for (void* h : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(h));
  if (multi_ != nullptr) curl_multi_cleanup(static_cast<CURLM*>(multi_));
  if (share_ != nullptr) curl_share_cleanup(static_cast<CURLSH*>(share_));
}

absl::StatusOr<std::string> HttpSink::Serialize(const Message& m, ErrorType* type) const {
  auto body = SerializeUncast(m, type);
  if (!body.ok() || config_.typecasts.empty()) return body;
  // Firehose's TypecastedJsonSerializer wraps every serializer.
  auto cast = ApplyJsonTypecasts(config_.typecasts, *body);
  if (!cast.ok()) *type = ErrorType::kInvalidMessageError;
  return cast;
}

absl::StatusOr<std::string> HttpSink::SerializeUncast(const Message& m, ErrorType* type) const {
  // Any failure below is this record's alone (review H5): nlohmann throws on
  // strings that are not UTF-8, e.g. a raw Kafka value with json input.
  *type = ErrorType::kInvalidMessageError;
  try {
    if (config_.data_format == HttpSinkConfig::DataFormat::kProto) {
      // Firehose's JsonWrappedProtoByte.
      nlohmann::json j;
      j["topic"] = m.topic;
      if (m.key.has_value()) j["log_key"] = absl::Base64Escape(*m.key);
      j["log_message"] = absl::Base64Escape(m.value);
      return DumpJson(j, "http sink body");
    }
    if (config_.body_template.has_value()) {
      std::string json = m.decoded != nullptr ? MessageJson(*m.decoded, /*with_defaults=*/true)
                                              : m.value;
      auto body = config_.body_template->Render(json);
      // A template path the message lacks: the record does not fit the schema.
      if (!body.ok()) *type = ErrorType::kDeserializationError;
      return body;
    }
    // Firehose's MessageToJson: logKey/logMessage hold the message's JSON
    // (lower camel case names) as a string.
    nlohmann::json j;
    j["topic"] = m.topic;
    if (m.key.has_value() && !m.key->empty() && config_.input_descriptor != nullptr) {
      std::unique_ptr<PbMessage> key(factory_.GetPrototype(config_.input_descriptor)->New());
      if (key->ParseFromString(*m.key)) {
        j["logKey"] = FirehoseMessageJson(*key, config_.simple_date_format);
      }
    }
    j["logMessage"] = m.decoded != nullptr
                          ? FirehoseMessageJson(*m.decoded, config_.simple_date_format)
                          : m.value;
    return DumpJson(j, "http sink body");
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("http sink: cannot serialize: ", e.what()));
  }
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> HttpSink::Parameters(
    const Message& m, ErrorType* type) const {
  *type = ErrorType::kDeserializationError;
  const std::string* bytes = &m.value;
  if (config_.parameter_source == HttpSinkConfig::ParameterSource::kKey) {
    if (!m.key.has_value()) return absl::InvalidArgumentError("message has no key for parameters");
    bytes = &*m.key;
  }
  std::unique_ptr<PbMessage> pb(factory_.GetPrototype(config_.parameter_descriptor)->New());
  if (!pb->ParseFromString(*bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot decode parameters as ", config_.parameter_descriptor->full_name()));
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const ColumnMapping& c : config_.parameter_mapping) {
    auto value = FieldValueText(*pb, c.path);
    if (!value.ok()) {
      *type = ErrorType::kInvalidMessageError;
      return value.status();
    }
    out.emplace_back(c.column, value->value_or(""));
  }
  return out;
}

absl::StatusOr<std::string> HttpSink::DynamicUrl(const Message& m) const {
  if (m.decoded == nullptr) return absl::InvalidArgumentError("dynamic URL needs a decoded message");
  std::string url;
  absl::string_view rest = config_.url;
  for (const auto* f : config_.url_fields) {
    size_t pos = rest.find("%s");
    if (pos == absl::string_view::npos) break;
    absl::StrAppend(&url, rest.substr(0, pos));
    const auto* field = m.decoded->GetDescriptor()->FindFieldByNumber(f->number());
    if (field == nullptr) return absl::InvalidArgumentError("URL field missing from message");
    auto value = FieldValueText(*m.decoded, {field});
    if (!value.ok()) return value.status();
    // Percent-encoded (RFC 3986 unreserved characters stay): a record can
    // fill its slot but never add path segments, a query, or change the host.
    url.append(UrlEscape(value->value_or("")));
    rest.remove_prefix(pos + 2);
  }
  absl::StrAppend(&url, rest);
  return url;
}

namespace {

// The trace context of `m`'s Kafka `traceparent` header (W3C Trace Context
// carried as a record header, as OpenTelemetry's Kafka instrumentations
// do), with its `tracestate`; nullopt when absent, repeated or invalid.
std::optional<trace::TraceContext> RecordTrace(const Message& m) {
  std::optional<trace::TraceContext> ctx;
  std::string tracestate;
  int seen = 0;
  for (const auto& [k, v] : m.headers) {
    if (absl::EqualsIgnoreCase(k, trace::kTraceparentHeader)) {
      ++seen;
      ctx = trace::ParseTraceparent(v);
    } else if (absl::EqualsIgnoreCase(k, trace::kTracestateHeader)) {
      tracestate = v;
    }
  }
  if (seen != 1 || !ctx) return std::nullopt;
  ctx->tracestate = trace::SanitizeTracestate(tracestate);
  return ctx;
}

}  // namespace

std::vector<FailedMessage> HttpSink::Prepare(const std::vector<Message>& batch) {
  requests_.clear();
  std::vector<FailedMessage> failed;
  std::vector<std::string> base_headers;
  bool has_content_type = false;
  for (const auto& [k, v] : config_.headers) {
    base_headers.push_back(absl::StrCat(k, ": ", v));
    if (absl::EqualsIgnoreCase(k, "content-type")) has_content_type = true;
  }
  if (!has_content_type) base_headers.push_back("Content-Type: application/json");
  base_headers.push_back("Expect:");  // no 100-continue round trip

  const bool individual = !config_.url_fields.empty() ||
                          config_.parameter_source != HttpSinkConfig::ParameterSource::kDisabled;
  Request batch_request;
  batch_request.url = config_.url;
  batch_request.headers = base_headers;
  batch_request.body = "[";
  for (const Message& m : batch) {
    ErrorType body_error;
    auto body = Serialize(m, &body_error);
    if (!body.ok()) {
      failed.push_back(FailedMessage{m, body_error, std::string(body.status().message())});
      continue;
    }
    if (!individual) {
      // Java's List.toString() joins with ", "; kept for byte compatibility.
      if (batch_request.messages.size() > 0) batch_request.body.append(", ");
      batch_request.body.append(*body);
      batch_request.messages.push_back(m);
      // One request carries many records: it continues the first traced one.
      if (!batch_request.parent) batch_request.parent = RecordTrace(m);
      continue;
    }
    Request r;
    r.headers = base_headers;
    r.parent = RecordTrace(m);
    if (!config_.url_fields.empty()) {
      auto url = DynamicUrl(m);
      if (!url.ok()) {
        failed.push_back(FailedMessage{m, ErrorType::kInvalidMessageError,
                                       std::string(url.status().message())});
        continue;
      }
      r.url = *std::move(url);
    } else {
      r.url = config_.url;
    }
    if (config_.parameter_source != HttpSinkConfig::ParameterSource::kDisabled) {
      ErrorType params_error;
      auto params = Parameters(m, &params_error);
      if (!params.ok()) {
        failed.push_back(FailedMessage{m, params_error, std::string(params.status().message())});
        continue;
      }
      std::string query;
      std::string bad_header;
      for (const auto& [k, v] : *params) {
        if (config_.parameter_placement == HttpSinkConfig::ParameterPlacement::kHeader) {
          // libcurl sends CR/LF in a header unchanged: a record could add
          // headers or split the request.
          if (!IsValidHeaderValue(v)) {
            bad_header = k;
            break;
          }
          r.headers.push_back(absl::StrCat(k, ": ", v));
        } else {
          absl::StrAppend(&query, query.empty() ? "" : "&", UrlEscape(k), "=", UrlEscape(v));
        }
      }
      if (!bad_header.empty()) {
        failed.push_back(FailedMessage{
            m, ErrorType::kInvalidMessageError,
            absl::StrCat("http sink: the value of header parameter ", bad_header,
                         " contains CR, LF or another control character")});
        continue;
      }
      if (!query.empty()) {
        absl::StrAppend(&r.url, r.url.find('?') == std::string::npos ? "?" : "&", query);
      }
    }
    // Firehose wraps a single message in an array unless a template shapes it.
    r.body = config_.body_template.has_value() ? *std::move(body) : absl::StrCat("[", *body, "]");
    r.messages.push_back(m);
    requests_.push_back(std::move(r));
  }
  if (!individual && !batch_request.messages.empty()) {
    batch_request.body.append("]");
    requests_.push_back(std::move(batch_request));
  }
  return failed;
}

void HttpSink::Authorize(size_t i, const std::string& token) {
  std::vector<std::string>& headers = requests_[i].headers;
  headers.erase(std::remove_if(headers.begin(), headers.end(),
                               [](const std::string& h) {
                                 return absl::StartsWithIgnoreCase(h, "Authorization:");
                               }),
                headers.end());
  headers.push_back(absl::StrCat("Authorization: Bearer ", token));
}

std::vector<FailedMessage> HttpSink::Execute() {
  std::vector<FailedMessage> failed;
  std::vector<size_t> all(requests_.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (oauth2_ == nullptr) {
    Send(all, &failed, nullptr);
    requests_.clear();
    return failed;
  }
  auto fail = [&](const std::vector<size_t>& which, const absl::Status& why) {
    for (size_t i : which) {
      for (Message& m : requests_[i].messages) {
        // Firehose's OAuth2Credential interceptor throws: DEFAULT_ERROR.
        failed.push_back(FailedMessage{std::move(m), ErrorType::kDefaultError,
                                       absl::StrCat("http sink: ", why.message())});
      }
    }
  };
  auto token = oauth2_->Token();
  if (!token.ok()) {
    fail(all, token.status());
  } else {
    for (size_t i : all) Authorize(i, *token);
    std::vector<size_t> unauthorized;
    Send(all, &failed, &unauthorized);
    if (!unauthorized.empty()) {
      // The token was revoked or expired early: one more try with a new one.
      oauth2_->Invalidate();
      token = oauth2_->Token();
      if (!token.ok()) {
        fail(unauthorized, token.status());
      } else {
        for (size_t i : unauthorized) Authorize(i, *token);
        Send(unauthorized, &failed, nullptr);
      }
    }
  }
  requests_.clear();
  return failed;
}

void HttpSink::SetMultiPerformForTesting(std::function<int(void*, int*)> perform) {
  perform_ = std::move(perform);
}

void HttpSink::StartTransfer(const Request& r, Transfer* t) {
  CURL* easy;
  if (!idle_handles_.empty()) {
    easy = static_cast<CURL*>(idle_handles_.back());
    idle_handles_.pop_back();
    curl_easy_reset(easy);
  } else {
    easy = curl_easy_init();
  }
  t->easy = easy;
  curl_slist* headers = nullptr;
  bool traceparent_set = false;
  for (const std::string& h : r.headers) {
    headers = curl_slist_append(headers, h.c_str());
    traceparent_set = traceparent_set || absl::StartsWithIgnoreCase(h, "traceparent:");
  }
  if (r.parent) {
    // A CLIENT span, child of the record's trace; the far side gets its
    // context (unless a header parameter already set a traceparent).
    t->span.emplace(trace::Span::Start(absl::StrCat("HTTP ", config_.method),
                                       trace::SpanKind::kClient, &*r.parent));
    t->span->SetAttribute("http.request.method", config_.method);
    t->span->SetAttribute("url.full", RedactUrl(r.url));  // no path, query or credentials
    t->span->SetAttribute("messaging.batch.message_count", static_cast<int64_t>(r.messages.size()));
    if (!traceparent_set) {
      const trace::TraceContext& c = t->span->context();
      headers = curl_slist_append(
          headers, absl::StrCat("traceparent: ", trace::FormatTraceparent(c)).c_str());
      if (!c.tracestate.empty()) {
        headers = curl_slist_append(headers, absl::StrCat("tracestate: ", c.tracestate).c_str());
      }
    }
  }
  t->headers = headers;
  // http/https only, and the process's deny list after DNS (common/outbound.h).
  RestrictOutbound(easy);
  curl_easy_setopt(easy, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(easy, CURLOPT_SHARE, static_cast<CURLSH*>(share_));
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.timeout_ms));
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.timeout_ms));
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  // SINK_HTTP_DELETE_BODY_ENABLE=false: a DELETE carries no body.
  if (config_.method != "DELETE" || config_.delete_body) {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r.body.data());
  }
  if (config_.method != "POST") curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, config_.method.c_str());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &CollectBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t->response);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t->error.data());
}

std::optional<std::pair<ErrorType, std::string>> HttpSink::Outcome(const Request& r,
                                                                    const Transfer& t,
                                                                    int curl_code) {
  const std::string where = absl::StrCat("http ", config_.method, " ", UrlForLogs(r.url));
  const auto code = static_cast<CURLcode>(curl_code);
  if (code != CURLE_OK) {
    // CURLE_UNSUPPORTED_PROTOCOL (not http/https) and a refused address of
    // the deny list end here too: never delivered.
    // Firehose: httpClient.execute throws (connection refused, timeout, ...);
    // AbstractSink.java:48-53 fails the push and Message.java:33-36 types it
    // DEFAULT_ERROR (firehose's own sinks never set a type).
    return std::pair{ErrorType::kDefaultError,
                     absl::StrCat(where, ": ", t.error[0] ? t.error.data() : curl_easy_strerror(code))};
  }
  long status = 0;
  curl_easy_getinfo(static_cast<CURL*>(t.easy), CURLINFO_RESPONSE_CODE, &status);
  const int s = static_cast<int>(status);
  metrics_->Increment("firehose_sink_http_response_code_total", {{"status_code", absl::StrCat(s)}});
  if (InStatusRanges(config_.log_ranges, s)) {
    // Status and sizes only: bodies carry record data (PII) and answers may
    // echo credentials; SINK_HTTP_LOG_BODIES=true adds them.
    if (config_.log_bodies) {
      spdlog::warn("{} -> {} (request {} bytes, response {} bytes)\n"
                   "request body: {}\nresponse body (first 1024 bytes): {}",
                   where, s, r.body.size(), t.response.size, r.body, t.response.prefix);
    } else {
      spdlog::warn("{} -> {} (request {} bytes, response {} bytes)", where, s, r.body.size(),
                   t.response.size);
    }
  }
  auto type = FirehoseHttpOutcome(s, config_.retry_ranges);
  if (type == HttpOutcome::kDropped) {
    // 4xx/5xx outside SINK_HTTP_RETRY_STATUS_CODE_RANGES: dropped and
    // counted, as in Firehose.
    metrics_->Increment("firehose_sink_messages_drop_total", {{"cause", absl::StrCat(s)}},
                        static_cast<double>(r.messages.size()));
    return std::nullopt;
  }
  if (type == HttpOutcome::kDelivered) return std::nullopt;
  if (type == HttpOutcome::kNotStored) {
    return std::pair{ErrorType::kDefaultError,
                     absl::StrCat(where, " -> ", s, " (not a success; redirects are not followed)")};
  }
  // In SINK_HTTP_RETRY_STATUS_CODE_RANGES: AbstractHttpSink.java:63-64 adds
  // the message without an error type, so it is DEFAULT_ERROR
  // (AbstractSink.java:70, Message.java:33-36), 4xx and 5xx alike.
  return std::pair{ErrorType::kDefaultError, absl::StrCat(where, " -> ", s)};
}

void HttpSink::Send(const std::vector<size_t>& which, std::vector<FailedMessage>* failed,
                    std::vector<size_t>* unauthorized) {
  CURLM* multi = static_cast<CURLM*>(multi_);
  std::vector<Transfer> transfers(which.size());
  std::map<void*, size_t> index;  // easy handle -> position in `which`
  auto fail = [&](size_t k, ErrorType type, const std::string& cause) {
    for (Message& m : requests_[which[k]].messages) {
      failed->push_back(FailedMessage{std::move(m), type, cause});
    }
  };
  for (size_t k = 0; k < which.size(); ++k) {
    StartTransfer(requests_[which[k]], &transfers[k]);
    index[transfers[k].easy] = k;
    curl_multi_add_handle(multi, static_cast<CURL*>(transfers[k].easy));
  }
  int running = static_cast<int>(which.size());
  std::string multi_error;  // set when the multi handle itself failed
  while (running > 0 && multi_error.empty()) {
    if (int rc = perform_(multi, &running); rc != CURLM_OK) {
      multi_error = absl::StrCat("curl_multi_perform: ", curl_multi_strerror(static_cast<CURLMcode>(rc)));
    }
    int queued;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      const size_t k = index[msg->easy_handle];
      Transfer& t = transfers[k];
      t.done = true;
      long status = 0;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &status);
      if (msg->data.result == CURLE_OK && status == 401 && unauthorized != nullptr) {
        metrics_->Increment("firehose_sink_http_response_code_total", {{"status_code", "401"}});
        unauthorized->push_back(which[k]);
        continue;
      }
      std::optional<trace::ContextScope> scope;  // its log lines carry the record's trace
      if (t.span) scope.emplace(t.span->context());
      auto outcome = Outcome(requests_[which[k]], t, msg->data.result);
      if (outcome) fail(k, outcome->first, outcome->second);
      if (t.span) {
        if (msg->data.result == CURLE_OK) {
          t.span->SetAttribute("http.response.status_code", static_cast<int64_t>(status));
        }
        if (outcome) t.span->SetStatus(trace::SpanStatus::kError, outcome->second);
        t.span->End();
      }
    }
    if (running > 0 && multi_error.empty()) {
      if (CURLMcode prc = curl_multi_poll(multi, nullptr, 0, 1000, nullptr); prc != CURLM_OK) {
        multi_error = absl::StrCat("curl_multi_poll: ", curl_multi_strerror(prc));
      }
    }
  }
  for (size_t k = 0; k < transfers.size(); ++k) {
    // The multi handle failed: whatever had not finished is unknown, never
    // silently delivered.
    if (!multi_error.empty() && !transfers[k].done) {
      fail(k, ErrorType::kDefaultError,
           absl::StrCat("http ", config_.method, " ", UrlForLogs(requests_[which[k]].url), ": ",
                        multi_error));
    }
    curl_multi_remove_handle(multi, static_cast<CURL*>(transfers[k].easy));
    curl_slist_free_all(static_cast<curl_slist*>(transfers[k].headers));
    idle_handles_.push_back(transfers[k].easy);
  }
}

}  // namespace sluice::sink
