// A thin HTTP client interface over libcurl, so that senders can be tested
// with a fake and the real thing is exercised in integration tests.
#ifndef SLUICE_COMMON_HTTP_CLIENT_H_
#define SLUICE_COMMON_HTTP_CLIENT_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sluice {

// The default cap of HttpRequest::max_response_bytes (1 MiB).
inline constexpr size_t kDefaultMaxResponseBytes = size_t{1} << 20;

struct HttpRequest {
  std::string method = "POST";
  std::string url;                   // http:// or https:// only (see common/outbound.h)
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  absl::Duration timeout = absl::Seconds(10);
  // Bound on connecting alone (CURLOPT_CONNECTTIMEOUT_MS); zero keeps
  // libcurl's default (300 s, still capped by `timeout`).
  absl::Duration connect_timeout = absl::ZeroDuration();
  // A response body longer than this (bytes) fails the call with
  // FailedPrecondition instead of being read to the end.
  size_t max_response_bytes = kDefaultMaxResponseBytes;
  // Redirects followed (0: none, the default; a 3xx is then the result).
  // Every hop is held to the same outbound rules as the first URL.
  int max_redirects = 0;
  // Signs the request with AWS Signature Version 4 (libcurl's
  // CURLOPT_AWS_SIGV4), e.g. provider "aws:amz:eu-west-1:s3".
  struct AwsSigV4 {
    std::string provider;
    std::string access_key;
    std::string secret_key;
  };
  std::optional<AwsSigV4> aws_sigv4;
};

struct HttpResult {
  long status = 0;
  std::string body;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Performs the request. Any HTTP status is OK here; transport failures
  // (connect errors, DNS, a refused scheme or destination) are Unavailable,
  // timeouts DeadlineExceeded, and a body over max_response_bytes
  // FailedPrecondition. Error messages name the method and RedactUrl(url),
  // never the path, query or credentials of the URL.
  virtual absl::StatusOr<HttpResult> Do(const HttpRequest& request) = 0;
};

// libcurl-backed client; thread-safe (one easy handle per call). A call made
// under a trace context (common/trace/trace_context.h: a request, job or
// delivery being served) is a CLIENT span "HTTP <METHOD>", its child, with
// http.request.method, server.address, url.full (RedactUrl: scheme, host and
// port only) and http.response.status_code, and sends the span's context as
// `traceparent` (and `tracestate`) unless the request already names a
// traceparent header; other calls send neither. Every handle
// is restricted by sluice::RestrictOutbound (http/https only, the process's
// denied networks, also after a redirect) and follows redirects only up to
// HttpRequest::max_redirects.
std::unique_ptr<HttpClient> NewCurlHttpClient();

// Percent-encodes everything but RFC 3986 unreserved characters
// (libcurl's curl_easy_escape), for query values, path segments,
// application/x-www-form-urlencoded fields and Basic credentials.
std::string UrlEscape(absl::string_view s);

// "<scheme>://<host>[:<port>]" of `url`, dropping user info, path, query and
// fragment (which may carry secrets, e.g. webhook tokens), for messages;
// "<invalid URL>" when it does not parse.
std::string RedactUrl(absl::string_view url);

// Maps a non-2xx answer to a Status: 429 → ResourceExhausted, 5xx →
// Unavailable (both retryable), other codes → FailedPrecondition. The
// message is "<what>: HTTP <status>" and never contains the response body
// (it may be anything the far side chose to send, e.g. a local file's text).
absl::Status HttpStatusToError(absl::string_view what, const HttpResult& result);

}  // namespace sluice

#endif  // SLUICE_COMMON_HTTP_CLIENT_H_
