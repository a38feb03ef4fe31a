// A thin HTTP client interface over libcurl, so that senders can be tested
// with a fake and the real thing is exercised in integration tests.
#ifndef SLUICE_COMMON_HTTP_CLIENT_H_
#define SLUICE_COMMON_HTTP_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sluice {

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  absl::Duration timeout = absl::Seconds(10);
};

struct HttpResult {
  long status = 0;
  std::string body;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Performs the request. Any HTTP status is OK here; transport failures
  // (connect errors, DNS) are Unavailable and timeouts DeadlineExceeded.
  virtual absl::StatusOr<HttpResult> Do(const HttpRequest& request) = 0;
};

// libcurl-backed client; thread-safe (one easy handle per call). Every
// handle is restricted by RestrictOutbound (common/outbound.h): a URL that
// is not http(s) or resolves into a denied network fails as Unavailable.
std::unique_ptr<HttpClient> NewCurlHttpClient();

// Percent-encodes everything but RFC 3986 unreserved characters
// (libcurl's curl_easy_escape), for query values, path segments,
// application/x-www-form-urlencoded fields and Basic credentials.
std::string UrlEscape(absl::string_view s);

// Maps a non-2xx answer to a Status: 429 → ResourceExhausted, 5xx →
// Unavailable (both retryable), other codes → FailedPrecondition. The
// message names `what`, the status and the start of the body.
absl::Status HttpStatusToError(absl::string_view what, const HttpResult& result);

}  // namespace sluice

#endif  // SLUICE_COMMON_HTTP_CLIENT_H_
