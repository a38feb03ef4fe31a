// Google service-account authentication, written once for every connector
// that talks to a Google API (the GCP access providers, later the BigQuery
// sink and the GCS DLQ): parse the key JSON, sign an RS256 JWT assertion
// with OpenSSL, exchange it for an OAuth2 access token at the key's
// `token_uri` through the injected HttpClient, and cache the token until
// shortly before it expires.
//
// Source: Google's "Using OAuth 2.0 for Server to Server Applications"
// (developers.google.com/identity/protocols/oauth2/service-account, section
// "Preparing to make an authorized API call": the JWT header, claim set and
// the token request `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`).
#ifndef SLUICE_COMMON_GOOGLE_AUTH_H_
#define SLUICE_COMMON_GOOGLE_AUTH_H_

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/http_client.h"

namespace sluice {

// Google's token endpoint, the default of ServiceAccountKey::token_uri.
inline constexpr char kGoogleTokenUri[] = "https://oauth2.googleapis.com/token";
// The scope every GCP provider asks for.
inline constexpr char kCloudPlatformScope[] = "https://www.googleapis.com/auth/cloud-platform";

// The fields of a service-account key file (`"type": "service_account"`)
// that authentication needs.
struct ServiceAccountKey {
  std::string client_email;    // the JWT's iss
  std::string private_key;     // PEM (PKCS#8 "BEGIN PRIVATE KEY", or PKCS#1 RSA)
  std::string private_key_id;  // the JWT header's kid; may be empty
  std::string token_uri;       // where assertions are exchanged; kGoogleTokenUri when absent
  std::string project_id;      // may be empty
};

// Parses a key JSON document. InvalidArgument (message without any key
// material) when it is not JSON, its `type` is present and not
// "service_account", client_email or private_key is missing, the private key
// is not an RSA key OpenSSL can read, or token_uri is not http(s).
absl::StatusOr<ServiceAccountKey> ParseServiceAccountKey(absl::string_view json);

// Reads a key JSON file (e.g. a *_CREDENTIAL_PATH variable) and parses it
// with ParseServiceAccountKey. InvalidArgument naming the path when it
// cannot be read, or ParseServiceAccountKey's error.
absl::StatusOr<ServiceAccountKey> ReadServiceAccountKeyFile(const std::string& path);

// A signed JWT assertion: header {"alg":"RS256","typ":"JWT","kid"}, claims
// {iss: client_email, scope, aud: token_uri, iat: now, exp: now + 3600}.
// InvalidArgument when the key cannot sign.
absl::StatusOr<std::string> SignServiceAccountAssertion(const ServiceAccountKey& key,
                                                        absl::string_view scope, absl::Time now);

// One cached access token.
struct GoogleAccessToken {
  std::string token;
  absl::Time expires_at;
};

// Access tokens per (key, scope), cached until shortly before expiry
// (kRefreshMargin, or half the lifetime when that is shorter). Thread-safe;
// `http` must outlive it.
class GoogleAuth {
 public:
  // A cached token is refreshed when less than this is left of it (Google's
  // client libraries refresh eagerly too: google-auth-library's
  // eagerRefreshThresholdMillis is 5 minutes).
  static constexpr absl::Duration kRefreshMargin = absl::Minutes(5);

  explicit GoogleAuth(HttpClient* http, absl::Duration timeout = absl::Seconds(10))
      : http_(http), timeout_(timeout) {}

  // A valid access token for `key` and `scope`, from the cache or a new
  // exchange at key.token_uri. Errors: Unauthenticated when the token
  // endpoint refuses the assertion (HTTP 400/401, with Google's short `error`
  // code such as "invalid_grant", never the body), Unavailable /
  // ResourceExhausted / DeadlineExceeded when it is down, overloaded or slow,
  // FailedPrecondition for another answer or one without access_token.
  absl::StatusOr<std::string> AccessToken(const ServiceAccountKey& key, absl::string_view scope);

  // Drops the cached token of `key` and `scope` (after an API answered 401).
  void Forget(const ServiceAccountKey& key, absl::string_view scope);

  // Sends `request` through the HttpClient with "Authorization: Bearer
  // <token>" for `key` and `scope`. When the API answers 401 (a token revoked
  // or expired early) the cached token is dropped and the request is sent
  // once more with a new one. Errors: AccessToken's, or the transport's;
  // every HTTP status (also a second 401) is returned for the caller to map.
  absl::StatusOr<HttpResult> Do(const ServiceAccountKey& key, absl::string_view scope,
                                HttpRequest request);

  // Token exchanges made so far (for tests of the cache).
  int exchanges() const;

 private:
  absl::StatusOr<GoogleAccessToken> Exchange(const ServiceAccountKey& key,
                                             absl::string_view scope);
  static std::string CacheKey(const ServiceAccountKey& key, absl::string_view scope);

  HttpClient* http_;
  absl::Duration timeout_;
  mutable absl::Mutex mu_;
  std::map<std::string, GoogleAccessToken> cache_ ABSL_GUARDED_BY(mu_);
  int exchanges_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace sluice

#endif  // SLUICE_COMMON_GOOGLE_AUTH_H_
