// OAuth2 client-credentials tokens as depot's http sink gets them
// (depot common/client/auth/OAuth2Client, OAuth2Credential,
// OAuth2AccessToken): a form POST of client_id, client_secret, scope and
// grant_type=client_credentials to the token endpoint; the token is cached
// until less than a minute of its `expires_in` (default 3600 s) is left, and
// dropped when the resource server answers 401.
#ifndef SLUICE_SINK_SINKS_HTTPV2_OAUTH2_CLIENT_H_
#define SLUICE_SINK_SINKS_HTTPV2_OAUTH2_CLIENT_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/http_client.h"
#include "sink/sinks/httpv2/httpv2_config.h"

namespace sluice::sink {

// Fetches and caches one token. Not thread-safe (one per sink).
class Httpv2TokenSource {
 public:
  // `http` performs the token requests (5 s timeout, as depot's client);
  // `clock` is for tests.
  Httpv2TokenSource(Httpv2OAuth2Config config, std::unique_ptr<HttpClient> http,
                    std::function<absl::Time()> clock = [] { return absl::Now(); });

  // The cached token, or a new one when none is cached or it expires within
  // a minute. Unavailable when the endpoint cannot be reached; FailedPrecondition
  // naming the server's `error` for a non-2xx answer, and for an answer
  // without a usable `access_token` (absent, or with spaces or control
  // characters, which would split the Authorization header).
  absl::StatusOr<std::string> Token();

  // Forgets the cached token (the resource server answered 401).
  void Invalidate() { token_.clear(); }

  // Token requests made so far (for tests and logs).
  int fetches() const { return fetches_; }

 private:
  Httpv2OAuth2Config config_;
  std::unique_ptr<HttpClient> http_;
  std::function<absl::Time()> clock_;
  std::string token_;
  absl::Time expires_at_;
  int fetches_ = 0;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_HTTPV2_OAUTH2_CLIENT_H_
