#include "common/auth/authenticator.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/auth/tls.h"

namespace sluice::auth {

absl::string_view AuthModeName(AuthMode mode) {
  switch (mode) {
    case AuthMode::kHeader:
      return "header";
    case AuthMode::kJwt:
      return "jwt";
    case AuthMode::kInsecureDev:
      return "insecure_dev";
  }
  return "?";
}

absl::StatusOr<MtlsIdentity> ParseMtlsIdentity(absl::string_view name) {
  if (name == "header") return MtlsIdentity::kHeader;
  if (name == "san_email") return MtlsIdentity::kSanEmail;
  if (name == "cn") return MtlsIdentity::kCn;
  return absl::InvalidArgumentError(
      absl::StrCat("auth.header.mtls_identity: \"", name, "\" is not one of header, san_email, cn"));
}

absl::string_view MtlsIdentityName(MtlsIdentity from) {
  switch (from) {
    case MtlsIdentity::kHeader:
      return "header";
    case MtlsIdentity::kSanEmail:
      return "san_email";
    case MtlsIdentity::kCn:
      return "cn";
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<Authenticator>> Authenticator::Create(const AuthOptions& options,
                                                                     bool listener_mtls,
                                                                     HttpClient* http) {
  std::unique_ptr<Authenticator> a(new Authenticator());
  a->options_ = options;
  a->listener_mtls_ = listener_mtls;
  a->identity_metadata_ = absl::AsciiStrToLower(options.identity_header);
  if (options.mode != AuthMode::kJwt) {
    if (a->identity_metadata_.empty() ||
        a->identity_metadata_.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") !=
            std::string::npos ||
        absl::StartsWith(a->identity_metadata_, "grpc-") ||
        a->identity_metadata_ == kProxyTokenMetadata ||
        a->identity_metadata_ == "authorization") {
      return absl::InvalidArgumentError(absl::StrCat(
          "auth.header.identity_header: \"", options.identity_header,
          "\" is not a usable header name (letters, digits, '-' and '_'; not grpc-*, "
          "Authorization or the proxy token)"));
    }
  }
  switch (options.mode) {
    case AuthMode::kHeader: {
      auto token = LoadSecret(options.proxy_token, "auth.header.proxy_token");
      if (!token.ok()) return token.status();
      a->proxy_token_ = *token;
      if (options.mtls_identity != MtlsIdentity::kHeader && !listener_mtls) {
        return absl::InvalidArgumentError(absl::StrCat(
            "auth.header.mtls_identity: ", MtlsIdentityName(options.mtls_identity),
            " takes the identity from client certificates; require them with tls.client_ca_file"));
      }
      if (a->proxy_token_.empty() && !listener_mtls) {
        return absl::InvalidArgumentError(
            "auth.mode header: the identity header is believed only from an authenticated "
            "hop; set auth.header.proxy_token_file (or proxy_token_env) or require client "
            "certificates with tls.client_ca_file");
      }
      break;
    }
    case AuthMode::kJwt: {
      auto v = JwtVerifier::Create(options.jwt, http);
      if (!v.ok()) return v.status();
      a->jwt_ = std::move(*v);
      break;
    }
    case AuthMode::kInsecureDev:
      break;
  }
  return a;
}

std::string BearerToken(const grpc::ServerContext& context) {
  const auto& md = context.client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return "";
  absl::string_view v(it->second.data(), it->second.size());
  if (v.size() < 7 || !absl::EqualsIgnoreCase(v.substr(0, 7), "bearer ")) return "";
  return std::string(absl::StripAsciiWhitespace(v.substr(7)));
}

absl::Status Authenticator::AuthenticateHop(const grpc::ServerContext& context) const {
  if (options_.mode != AuthMode::kHeader) return absl::OkStatus();
  bool certificate = listener_mtls_ && PeerCertificateVerified(context);
  if (certificate && options_.mtls_allowed_names.empty()) return absl::OkStatus();
  if (certificate) {
    for (const auto& name : PeerCertificateNames(context)) {
      if (std::find(options_.mtls_allowed_names.begin(), options_.mtls_allowed_names.end(), name) !=
          options_.mtls_allowed_names.end()) {
        return absl::OkStatus();
      }
    }
    if (proxy_token_.empty()) {
      return absl::UnauthenticatedError(
          "unauthenticated hop: the client certificate's names are not in tls.client_allowed_names");
    }
  }
  if (!proxy_token_.empty()) {
    const auto& md = context.client_metadata();
    auto range = md.equal_range(kProxyTokenMetadata);
    int n = 0;
    bool match = false;
    for (auto it = range.first; it != range.second; ++it, ++n) {
      match = ConstantTimeEquals(absl::string_view(it->second.data(), it->second.size()),
                                 proxy_token_);
    }
    if (n == 1 && match) return absl::OkStatus();
    if (n > 1) return absl::UnauthenticatedError("more than one proxy token");
    if (n == 1) return absl::UnauthenticatedError("wrong proxy token");
  }
  return absl::UnauthenticatedError(
      "unauthenticated hop: this server believes identity headers only from its gateway or "
      "auth proxy (proxy token or client certificate)");
}

absl::StatusOr<Caller> Authenticator::Authenticate(const grpc::ServerContext& context) const {
  if (options_.mode == AuthMode::kJwt) {
    std::string token = BearerToken(context);
    if (token.empty()) {
      return absl::UnauthenticatedError("missing Authorization: Bearer <token>");
    }
    auto id = jwt_->Verify(token);
    if (!id.ok()) return id.status();
    return Caller{std::move(id->identity), std::move(id->groups)};
  }
  if (options_.mode == AuthMode::kHeader && options_.mtls_identity != MtlsIdentity::kHeader) {
    return CertificateCaller(context);
  }
  if (auto st = AuthenticateHop(context); !st.ok()) return st;
  const auto& md = context.client_metadata();
  auto range = md.equal_range(identity_metadata_);
  if (range.first == range.second) {
    return absl::UnauthenticatedError(
        absl::StrCat("missing ", options_.identity_header, " header (", identity_metadata_,
                     " metadata)"));
  }
  if (std::next(range.first) != range.second) {
    return absl::UnauthenticatedError(
        absl::StrCat("more than one ", options_.identity_header, " value"));
  }
  std::string email(range.first->second.data(), range.first->second.size());
  if (!IsEmail(email)) {
    return absl::UnauthenticatedError(
        absl::StrCat(options_.identity_header, " \"", email, "\" is not an email address"));
  }
  return Caller{std::move(email), {}};
}

absl::StatusOr<Caller> Authenticator::CertificateCaller(const grpc::ServerContext& context) const {
  absl::string_view from = MtlsIdentityName(options_.mtls_identity);
  if (!PeerCertificateVerified(context)) {
    return absl::UnauthenticatedError(absl::StrCat(
        "no verified client certificate (auth.header.mtls_identity ", from, " names the caller by it)"));
  }
  std::vector<std::string> names = options_.mtls_identity == MtlsIdentity::kSanEmail
                                       ? PeerCertificateEmails(context)
                                       : PeerCertificateCommonNames(context);
  absl::string_view what =
      options_.mtls_identity == MtlsIdentity::kSanEmail ? "email subjectAltName" : "subject CN";
  if (names.size() != 1) {
    return absl::UnauthenticatedError(absl::StrCat("the client certificate has ", names.size(), " ", what,
                                                   "s; exactly one must name the caller (auth.header.mtls_identity ",
                                                   from, ")"));
  }
  std::string identity = std::move(names[0]);
  if (!IsEmail(identity)) {
    return absl::UnauthenticatedError(absl::StrCat("the client certificate's ", what, " \"", identity,
                                                   "\" is not an email address"));
  }
  // A header may repeat the certificate's identity, never name someone else.
  const auto& md = context.client_metadata();
  auto range = md.equal_range(identity_metadata_);
  for (auto it = range.first; it != range.second; ++it) {
    absl::string_view claimed(it->second.data(), it->second.size());
    if (!absl::EqualsIgnoreCase(claimed, identity)) {
      return absl::UnauthenticatedError(absl::StrCat(
          options_.identity_header, " \"", claimed, "\" is not the client certificate's identity \"",
          identity, "\" (auth.header.mtls_identity ", from, ")"));
    }
  }
  return Caller{std::move(identity), {}};
}

}  // namespace sluice::auth
