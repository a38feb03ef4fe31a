// OAuth 2.0 access tokens for the HTTP sink (Firehose's SINK_HTTP_OAUTH2_*):
// the client-credentials grant of RFC 6749 §4.4, the client authenticated
// with HTTP Basic (§2.3.1, which every authorization server must support),
// and the token sent as `Authorization: Bearer` (RFC 6750 §2.1).
#ifndef SLUICE_SINK_SINKS_HTTP_OAUTH2_H_
#define SLUICE_SINK_SINKS_HTTP_OAUTH2_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http_client.h"

namespace sluice::sink {

// SINK_HTTP_OAUTH2_* settings.
struct OAuth2Config {
  std::string token_url;      // SINK_HTTP_OAUTH2_ACCESS_TOKEN_URL
  std::string client_name;    // SINK_HTTP_OAUTH2_CLIENT_NAME (the client_id)
  std::string client_secret;  // SINK_HTTP_OAUTH2_CLIENT_SECRET
  std::string scope;          // SINK_HTTP_OAUTH2_SCOPE (space-delimited; may be empty)
};

// Fetches and caches one access token. Not thread-safe (one per sink).
class OAuth2TokenSource {
 public:
  // `http` performs the token requests; `clock` is for tests.
  OAuth2TokenSource(OAuth2Config config, std::unique_ptr<HttpClient> http,
                    std::function<absl::Time()> clock = [] { return absl::Now(); });

  // The cached token; a new one when none is cached or the cached one
  // expires within kRefreshMargin (`expires_in`; a token without it is kept
  // until Invalidate). Errors: Unavailable when the endpoint cannot be
  // reached or answers 5xx/429; FailedPrecondition with the server's
  // `error` / `error_description` otherwise, or for an answer without
  // `access_token`, with one holding spaces or control characters (it would
  // split the Authorization header), or with a token_type other than Bearer.
  absl::StatusOr<std::string> Token();

  // Forgets the cached token (the resource server answered 401).
  void Invalidate() { token_.clear(); }

  // How early a token is replaced before it expires.
  static constexpr absl::Duration kRefreshMargin = absl::Seconds(60);

 private:
  OAuth2Config config_;
  std::unique_ptr<HttpClient> http_;
  std::function<absl::Time()> clock_;
  std::string token_;
  absl::Time expires_at_ = absl::InfiniteFuture();
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTP_OAUTH2_H_
