#include "common/http_client.h"

#include <curl/curl.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/deadline.h"
#include "common/outbound.h"
#include "common/trace/span.h"

namespace sluice {
namespace {

// The body being collected, with its cap.
struct Sink {
  std::string* out;
  size_t max;
  bool overflow = false;
};

size_t Collect(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t len = size * n;
  if (sink->out->size() + len > sink->max) {
    sink->overflow = true;
    return 0;  // makes libcurl abort the transfer (CURLE_WRITE_ERROR)
  }
  sink->out->append(data, len);
  return len;
}

std::string UrlPart(CURLU* u, CURLUPart part);

// The host of `url` ("" when it does not parse), for server.address.
std::string UrlHost(const std::string& url) {
  CURLU* u = curl_url();
  if (u == nullptr) return "";
  std::string host;
  if (curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) host = UrlPart(u, CURLUPART_HOST);
  curl_url_cleanup(u);
  return host;
}

class CurlHttpClient : public HttpClient {
 public:
  CurlHttpClient() {
    static const bool init = [] {
      curl_global_init(CURL_GLOBAL_DEFAULT);
      return true;
    }();
    (void)init;
  }

  absl::StatusOr<HttpResult> Do(const HttpRequest& req) override {
    // Outside any trace (a sink's bulk request, start-up) the call is sent
    // as before: no span, no traceparent.
    if (trace::Current() == nullptr) return Perform(req, nullptr);
    // A CLIENT span, child of the request, job or delivery being served,
    // whose context the far side receives as `traceparent` (W3C Trace
    // Context).
    trace::Span span = trace::Span::StartChild(absl::StrCat("HTTP ", req.method),
                                               trace::SpanKind::kClient);
    span.SetAttribute("http.request.method", req.method);
    span.SetAttribute("server.address", UrlHost(req.url));
    // RedactUrl, not the whole URL: paths carry secrets here (webhook tokens).
    span.SetAttribute("url.full", RedactUrl(req.url));
    auto result = Perform(req, &span.context());
    if (!result.ok()) {
      span.SetStatus(trace::SpanStatus::kError, result.status().message());
    } else {
      span.SetAttribute("http.response.status_code", static_cast<int64_t>(result->status));
      if (result->status >= 400) {
        span.SetStatus(trace::SpanStatus::kError, absl::StrCat("HTTP ", result->status));
      }
    }
    return result;
  }

 private:
  // The request itself; sends `trace` (when not null) as traceparent.
  absl::StatusOr<HttpResult> Perform(const HttpRequest& req, const trace::TraceContext* trace) {
    // The request's own timeout, cut to what is left of the RPC being served.
    absl::Duration timeout = TimeLeft(req.timeout);
    if (timeout <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(absl::StrCat(
          req.method, " ", RedactUrl(req.url), ": the call's deadline passed before sending"));
    }
    CURL* curl = curl_easy_init();
    if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
    HttpResult result;
    Sink sink{&result.body, req.max_response_bytes};
    curl_slist* headers = nullptr;
    bool expect_set = false, traceparent_set = false;
    for (const std::string& h : req.headers) {
      headers = curl_slist_append(headers, h.c_str());
      expect_set = expect_set || absl::StartsWithIgnoreCase(h, "expect:");
      traceparent_set = traceparent_set || absl::StartsWithIgnoreCase(h, "traceparent:");
    }
    // A caller that sets its own traceparent keeps it.
    if (trace != nullptr && !traceparent_set) {
      headers = curl_slist_append(
          headers, absl::StrCat("traceparent: ", trace::FormatTraceparent(*trace)).c_str());
      if (!trace->tracestate.empty()) {
        headers = curl_slist_append(headers, absl::StrCat("tracestate: ", trace->tracestate).c_str());
      }
    }
    // libcurl sends `Expect: 100-continue` before a body over 1 KiB and waits
    // for the interim answer: one extra round trip per request (a bulk write
    // per batch). The servers here answer a refused body with an error anyway.
    // Not with SigV4: libcurl 7.88 would list the removed header in
    // SignedHeaders without sending it, and S3 would refuse the signature
    // (S3BlobStore.BotocoreAcceptsTheSignature caught it).
    if (!expect_set && !req.aws_sigv4) headers = curl_slist_append(headers, "Expect:");
    RestrictOutbound(curl);
    curl_easy_setopt(curl, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, req.max_redirects > 0 ? 1L : 0L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, static_cast<long>(std::max(0, req.max_redirects)));
    if (req.method != "GET" || !req.body.empty()) {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(req.body.size()));
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    std::string credentials;
    if (req.aws_sigv4) {
      credentials = absl::StrCat(req.aws_sigv4->access_key, ":", req.aws_sigv4->secret_key);
      curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, req.aws_sigv4->provider.c_str());
      curl_easy_setopt(curl, CURLOPT_USERPWD, credentials.c_str());
    }
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(timeout))));
    if (req.connect_timeout > absl::ZeroDuration()) {
      curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                       static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(req.connect_timeout))));
    }
    // Refuses early when Content-Length announces too much; the write
    // callback enforces the cap for chunked or lying answers.
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
                     static_cast<curl_off_t>(req.max_response_bytes));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    std::string what = absl::StrCat(req.method, " ", RedactUrl(req.url));
    if (sink.overflow || rc == CURLE_FILESIZE_EXCEEDED) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, ": response body exceeds the limit of ", req.max_response_bytes, " bytes"));
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      return absl::DeadlineExceededError(absl::StrCat(what, ": timed out"));
    }
    if (rc != CURLE_OK) {
      return absl::UnavailableError(absl::StrCat(what, ": ", curl_easy_strerror(rc)));
    }
    return result;
  }
};

// One part of a parsed URL, or "".
std::string UrlPart(CURLU* u, CURLUPart part) {
  char* v = nullptr;
  if (curl_url_get(u, part, &v, 0) != CURLUE_OK || v == nullptr) return "";
  std::string out = v;
  curl_free(v);
  return out;
}

}  // namespace

std::string UrlEscape(absl::string_view s) {
  std::string out;
  char* e = curl_easy_escape(nullptr, s.data(), static_cast<int>(s.size()));
  if (e != nullptr) {
    out = e;
    curl_free(e);
  }
  return out;
}

std::string RedactUrl(absl::string_view url) {
  CURLU* u = curl_url();
  if (u == nullptr) return "<invalid URL>";
  std::string text(url);
  std::string out = "<invalid URL>";
  if (curl_url_set(u, CURLUPART_URL, text.c_str(), 0) == CURLUE_OK) {
    std::string scheme = UrlPart(u, CURLUPART_SCHEME), host = UrlPart(u, CURLUPART_HOST);
    std::string port = UrlPart(u, CURLUPART_PORT);
    if (!scheme.empty()) {
      out = absl::StrCat(scheme, "://", host, port.empty() ? "" : ":", port);
    }
  }
  curl_url_cleanup(u);
  return out;
}

std::unique_ptr<HttpClient> NewCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

absl::Status HttpStatusToError(absl::string_view what, const HttpResult& result) {
  std::string msg = absl::StrCat(what, ": HTTP ", result.status);
  if (result.status == 429) return absl::ResourceExhaustedError(msg);
  if (result.status >= 500) return absl::UnavailableError(msg);
  return absl::FailedPreconditionError(msg);
}

}  // namespace sluice
