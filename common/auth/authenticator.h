// Who may call sluice-server, decided once per RPC. Three modes (README,
// "Security model"):
//   header        the Guardian model: an auth proxy (or sluice-gateway) sets an
//                 identity header (default X-Auth-Email, Guardian's
//                 `authenticated_user_header_key`), and the server believes it
//                 only from an authenticated hop: the shared proxy token in
//                 `x-sluice-proxy-token` metadata, or a client certificate
//                 verified by the listener (mTLS; tls.client_allowed_names
//                 may limit which). With auth.header.mtls_identity san_email
//                 or cn the certificate itself names the caller instead.
//   jwt           `authorization: Bearer <JWT>` verified against a JWKS or a
//                 static key; the identity is a claim.
//   insecure_dev  the identity header is believed from anyone. Only on a
//                 loopback listener (checked by the server at start).
#ifndef SLUICE_COMMON_AUTH_AUTHENTICATOR_H_
#define SLUICE_COMMON_AUTH_AUTHENTICATOR_H_

#include <algorithm>
#include <memory>
#include <string>

#include <grpcpp/server_context.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/auth/caller.h"
#include "common/auth/jwt_verifier.h"
#include "common/auth/secret.h"
#include "common/deadline.h"
#include "common/grpc_util.h"
#include "common/http_client.h"

namespace sluice::auth {

enum class AuthMode { kHeader, kJwt, kInsecureDev };

// "header", "jwt", "insecure_dev".
absl::string_view AuthModeName(AuthMode mode);

// Header mode over mTLS: where the caller's identity comes from
// (auth.header.mtls_identity; finding F-L3).
enum class MtlsIdentity {
  // "header" (default): any certificate of tls.client_ca_file is a trusted
  // hop that names the caller in the identity header.
  kHeader,
  // "san_email": the certificate's one rfc822Name subjectAltName is the
  // caller; an identity header naming anyone else is refused.
  kSanEmail,
  // "cn": the certificate's subject common name (an email) is the caller; an
  // identity header naming anyone else is refused.
  kCn,
};

// "header", "san_email" or "cn"; InvalidArgument naming
// auth.header.mtls_identity otherwise.
absl::StatusOr<MtlsIdentity> ParseMtlsIdentity(absl::string_view name);
// The config spelling of `from`: "header", "san_email" or "cn".
absl::string_view MtlsIdentityName(MtlsIdentity from);

// gRPC metadata carrying the gateway's (or proxy's) shared token.
inline constexpr char kProxyTokenMetadata[] = "x-sluice-proxy-token";

// The `auth:` section of the server config.
struct AuthOptions {
  AuthMode mode = AuthMode::kHeader;
  // header and insecure_dev: the HTTP header naming the caller; it arrives as
  // lower-cased gRPC metadata.
  std::string identity_header = "X-Auth-Email";
  SecretSource proxy_token;  // header: the shared secret of the trusted hop
  // header with client certificates: whether the certificate or the header
  // names the caller. kSanEmail and kCn need listener mTLS (and ignore the
  // proxy token: every call must present a certificate).
  MtlsIdentity mtls_identity = MtlsIdentity::kHeader;
  // header with client certificates, mtls_identity header: non-empty, only a
  // certificate whose CN or a subjectAltName is listed proves the hop (the
  // server copies tls.client_allowed_names here).
  std::vector<std::string> mtls_allowed_names;
  JwtOptions jwt;            // jwt
};

class Authenticator {
 public:
  // `listener_mtls`: the gRPC listener requires verified client certificates,
  // which proves the hop in header mode. InvalidArgument when header mode has
  // neither a proxy token nor mTLS, or for bad jwt options; the secret
  // loading errors of LoadSecret. `http` (borrowed) fetches a JWKS.
  static absl::StatusOr<std::unique_ptr<Authenticator>> Create(const AuthOptions& options,
                                                               bool listener_mtls,
                                                               HttpClient* http);

  // The caller of this RPC, or Unauthenticated saying what is missing: the
  // hop proof, the identity (absent, repeated or not an email in header
  // mode), or a valid bearer token. With mtls_identity san_email or cn, the
  // client certificate names the caller (see CertificateCaller).
  absl::StatusOr<Caller> Authenticate(const grpc::ServerContext& context) const;

  // Only the hop proof (header mode); OK in the other modes. For routes that
  // carry their own credential, such as the alert hook's bearer token.
  absl::Status AuthenticateHop(const grpc::ServerContext& context) const;

  // The longest any authenticated RPC may take (the server's
  // rpc_deadline_seconds, default 30 s); a client's earlier deadline wins.
  // Bounds the waits under WithCaller (see common/deadline.h).
  void set_call_deadline(absl::Duration d) { call_deadline_ = d; }
  absl::Duration call_deadline() const { return call_deadline_; }

  AuthMode mode() const { return options_.mode; }
  // The metadata key of the identity header ("x-auth-email" by default).
  const std::string& identity_metadata() const { return identity_metadata_; }

 private:
  Authenticator() = default;
  // The caller named by the verified client certificate (mtls_identity
  // san_email or cn); Unauthenticated without exactly one such name, when it
  // is not an email, or when the identity header names someone else.
  absl::StatusOr<Caller> CertificateCaller(const grpc::ServerContext& context) const;
  AuthOptions options_;
  std::string identity_metadata_;
  std::string proxy_token_;  // "" when not configured
  bool listener_mtls_ = false;
  std::unique_ptr<JwtVerifier> jwt_;
  absl::Duration call_deadline_ = absl::Seconds(30);
};

// The bearer token of `authorization` metadata ("" when absent or not Bearer).
std::string BearerToken(const grpc::ServerContext& context);

// Runs handler body `fn(const Caller&)` for `method` after authenticating
// the call; errors and escaping exceptions as in Guarded(). Every handler but
// the alert hook uses it. The body runs under the call's deadline: the
// client's, or auth.call_deadline() from now, whichever is earlier.
template <typename Fn>
grpc::Status WithCaller(const Authenticator& auth, const grpc::ServerContext* context,
                        absl::string_view method, Fn&& fn) {
  CallDeadlineScope deadline(std::min(absl::FromChrono(context->deadline()),
                                      absl::Now() + auth.call_deadline()));
  return Guarded(method, [&]() -> absl::Status {
    auto caller = auth.Authenticate(*context);
    if (!caller.ok()) return caller.status();
    return fn(*caller);
  });
}

}  // namespace sluice::auth

#endif  // SLUICE_COMMON_AUTH_AUTHENTICATOR_H_
