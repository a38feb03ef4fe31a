// Verification of `Authorization: Bearer` JSON Web Tokens (RFC 7519) for the
// server's `jwt` auth mode: signature through libjwt, keys from a JWKS URL
// (RFC 7517, fetched and cached) or a static key, and the registered claims
// iss / aud / exp / nbf checked here (libjwt 1.10 does not check them).
#ifndef SLUICE_COMMON_AUTH_JWT_VERIFIER_H_
#define SLUICE_COMMON_AUTH_JWT_VERIFIER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http_client.h"

namespace sluice::auth {

// The `auth.jwt` settings of sluice-server.
struct JwtOptions {
  // A JWKS document URL, e.g. the IdP's `jwks_uri`: https, or http only to a
  // loopback host (127.0.0.1, localhost, [::1]). Keys are cached for
  // jwks_cache_ttl; an unknown `kid` refetches (at most every 30 s, one fetch
  // at a time, without blocking verifications whose key is cached).
  std::string jwks_url;
  // Or a static key file: a PEM public key (RS*/ES* tokens) or, for HS*
  // tokens, the shared secret itself. Exactly one of the two is set.
  std::string static_key_file;
  std::string issuer;                  // required `iss` value; empty: not checked
  std::vector<std::string> audiences;  // `aud` must contain one of them; empty: not checked
  // Accepted `alg` header values. "none" is never accepted, and HS* only with a
  // static secret (a public key must never serve as an HMAC secret).
  std::vector<std::string> algorithms = {"RS256", "ES256"};
  // The claim naming the caller. When it is "email", a token whose
  // `email_verified` claim is present and not true is refused.
  std::string identity_claim = "email";
  std::string groups_claim;              // optional: a string-array claim of group names
  absl::Duration jwks_cache_ttl = absl::Minutes(10);
  absl::Duration leeway = absl::Seconds(60);  // clock skew allowed on exp/nbf
};

// Who a verified token names.
struct JwtIdentity {
  std::string identity;             // the identity claim's value
  std::vector<std::string> groups;  // the groups claim's values (empty when unset)
};

// Thread-safe. Every failure of Verify is Unauthenticated with a reason that
// never contains the token.
class JwtVerifier {
 public:
  // InvalidArgument for inconsistent options (both or neither key source, an
  // unknown or "none" algorithm, HS* with a PEM key, a jwks_url that is not
  // https:// or loopback http://, naming auth.jwt.jwks_url); NotFound for an
  // unreadable key file. `http` (borrowed) fetches the JWKS; required with
  // jwks_url. A first JWKS fetch that fails is only logged: Verify retries.
  static absl::StatusOr<std::unique_ptr<JwtVerifier>> Create(
      JwtOptions options, HttpClient* http,
      std::function<absl::Time()> clock = [] { return absl::Now(); });

  // Verifies `token` (the part after "Bearer "): format, allowed algorithm,
  // signature, exp (required), nbf, iss, aud, a non-empty identity claim and,
  // for the email claim, email_verified (when present) true.
  absl::StatusOr<JwtIdentity> Verify(absl::string_view token);

 private:
  struct Key {
    std::string alg_family;  // "RS", "ES" or "HS"
    std::string material;    // PEM public key, or the HMAC secret
  };
  JwtVerifier(JwtOptions options, HttpClient* http, std::function<absl::Time()> clock)
      : options_(std::move(options)), http_(http), clock_(std::move(clock)) {}
  // The key for `kid` and `alg`, refetching the JWKS when needed.
  absl::StatusOr<Key> FindKey(const std::string& kid, const std::string& alg);
  // GETs and parses the JWKS (5 s timeout); called without mu_ held.
  absl::StatusOr<std::map<std::string, Key>> FetchJwks() const ABSL_LOCKS_EXCLUDED(mu_);

  const JwtOptions options_;
  HttpClient* http_;
  std::function<absl::Time()> clock_;
  absl::Mutex mu_;
  std::map<std::string, Key> jwks_ ABSL_GUARDED_BY(mu_);  // by kid ("" = no kid)
  std::optional<Key> static_key_;                         // set once in Create
  absl::Time fetched_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time last_attempt_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  bool fetching_ ABSL_GUARDED_BY(mu_) = false;  // a FetchJwks is in flight
};

// Converts one JWK (RFC 7518 §6: kty RSA with n/e, or EC with crv P-256/P-384/
// P-521 and x/y) into a PEM SubjectPublicKeyInfo. InvalidArgument otherwise.
absl::StatusOr<std::string> JwkToPem(const std::string& jwk_json);

}  // namespace sluice::auth

#endif  // SLUICE_COMMON_AUTH_JWT_VERIFIER_H_
