#include "common/auth/tls.h"

#include <arpa/inet.h>

#include <fstream>
#include <sstream>

#include <grpcpp/security/auth_context.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace sluice::auth {

absl::StatusOr<std::string> ReadFileToString(const std::string& path, absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(what, ": cannot read \"", path, "\""));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsServerOptions& o) {
  if (!o.enabled()) {
    if (!o.client_ca_file.empty() || !o.key_file.empty()) {
      return absl::InvalidArgumentError(
          "tls: cert_file is required when key_file or client_ca_file is set");
    }
    return grpc::InsecureServerCredentials();
  }
  if (o.key_file.empty()) return absl::InvalidArgumentError("tls: key_file is required");
  auto cert = ReadFileToString(o.cert_file, "tls.cert_file");
  if (!cert.ok()) return cert.status();
  auto key = ReadFileToString(o.key_file, "tls.key_file");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions opts(
      o.mutual() ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                 : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  if (o.mutual()) {
    auto ca = ReadFileToString(o.client_ca_file, "tls.client_ca_file");
    if (!ca.ok()) return ca.status();
    opts.pem_root_certs = *ca;
  }
  opts.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(opts);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const TlsClientOptions& o) {
  if (!o.enabled) return grpc::InsecureChannelCredentials();
  if (o.cert_file.empty() != o.key_file.empty()) {
    return absl::InvalidArgumentError("--cert and --key go together (mTLS client certificate)");
  }
  grpc::SslCredentialsOptions opts;
  if (!o.ca_file.empty()) {
    auto ca = ReadFileToString(o.ca_file, "--ca");
    if (!ca.ok()) return ca.status();
    opts.pem_root_certs = *ca;
  }
  if (!o.cert_file.empty()) {
    auto cert = ReadFileToString(o.cert_file, "--cert");
    if (!cert.ok()) return cert.status();
    auto key = ReadFileToString(o.key_file, "--key");
    if (!key.ok()) return key.status();
    opts.pem_cert_chain = *cert;
    opts.pem_private_key = *key;
  }
  return grpc::SslCredentials(opts);
}

bool PeerCertificateVerified(const grpc::ServerContext& context) {
  auto auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return false;
  // gRPC marks a TLS peer authenticated only when it presented a
  // certificate that the handshake verified against pem_root_certs.
  return !auth->FindPropertyValues("x509_pem_cert").empty();
}

std::vector<std::string> PeerCertificateNames(const grpc::ServerContext& context) {
  std::vector<std::string> out;
  if (!PeerCertificateVerified(context)) return out;
  auto auth = context.auth_context();
  for (const char* prop : {"x509_common_name", "x509_subject_alternative_name"}) {
    for (const auto& v : auth->FindPropertyValues(prop)) out.emplace_back(v.data(), v.size());
  }
  return out;
}

namespace {

std::vector<std::string> VerifiedPeerProperty(const grpc::ServerContext& context, const char* name) {
  std::vector<std::string> out;
  if (!PeerCertificateVerified(context)) return out;
  for (const auto& v : context.auth_context()->FindPropertyValues(name)) out.emplace_back(v.data(), v.size());
  return out;
}

}  // namespace

std::vector<std::string> PeerCertificateEmails(const grpc::ServerContext& context) {
  return VerifiedPeerProperty(context, GRPC_PEER_EMAIL_PROPERTY_NAME);
}

std::vector<std::string> PeerCertificateCommonNames(const grpc::ServerContext& context) {
  return VerifiedPeerProperty(context, GRPC_X509_CN_PROPERTY_NAME);
}

bool IsLoopbackHost(absl::string_view host) {
  if (absl::ConsumePrefix(&host, "[")) absl::ConsumeSuffix(&host, "]");
  if (host == "localhost") return true;
  std::string h(host);
  in_addr v4;
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, h.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

}  // namespace sluice::auth
