// TLS and mutual TLS for gRPC listeners and channels (sluice-server,
// sluice-sink's control API, sluicectl), built on gRPC's own SSL credentials.
#ifndef SLUICE_COMMON_AUTH_TLS_H_
#define SLUICE_COMMON_AUTH_TLS_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_context.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::auth {

// A listener's TLS files (PEM). No cert_file: plaintext.
struct TlsServerOptions {
  std::string cert_file;       // certificate chain presented to clients
  std::string key_file;        // its private key
  // Non-empty: every client must present a certificate signed by this CA, or
  // the TLS handshake fails (mTLS; GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_
  // CERTIFICATE_AND_VERIFY).
  std::string client_ca_file;
  // tls.client_allowed_names: with client_ca_file in header mode (and
  // auth.header.mtls_identity header), only certificates whose CN or a
  // subjectAltName is listed prove the hop; empty: any certificate of the CA.
  std::vector<std::string> client_allowed_names;
  bool enabled() const { return !cert_file.empty(); }
  bool mutual() const { return enabled() && !client_ca_file.empty(); }
};

// Credentials for ServerBuilder::AddListeningPort: insecure when !enabled().
// InvalidArgument when a key is missing or client_ca_file is set without a
// certificate; NotFound naming an unreadable file.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsServerOptions& options);

// A client's TLS settings. !enabled: plaintext.
struct TlsClientOptions {
  bool enabled = false;
  std::string ca_file;    // roots to verify the server with; empty: the system roots
  std::string cert_file;  // client certificate for mTLS (with key_file)
  std::string key_file;
};

// Channel credentials for grpc::CreateChannel: insecure when !enabled.
// InvalidArgument when only one of cert_file/key_file is set; NotFound naming
// an unreadable file.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const TlsClientOptions& options);

// True when the call arrived over TLS with a client certificate that the
// listener verified (only possible with TlsServerOptions::mutual()).
bool PeerCertificateVerified(const grpc::ServerContext& context);

// The verified client certificate's common name and subject alternative
// names (empty without one).
std::vector<std::string> PeerCertificateNames(const grpc::ServerContext& context);

// The verified client certificate's rfc822Name (email) subjectAltNames,
// from gRPC's peer_email auth property (empty without a verified one).
std::vector<std::string> PeerCertificateEmails(const grpc::ServerContext& context);

// The verified client certificate's subject common names (x509_common_name;
// empty without a verified certificate or a CN).
std::vector<std::string> PeerCertificateCommonNames(const grpc::ServerContext& context);

// True for "localhost", 127.0.0.0/8 and ::1 (with or without brackets): a
// listener bound there is reachable from this host only.
bool IsLoopbackHost(absl::string_view host);

// Reads a whole file. NotFound naming `what` and the path when it cannot be read.
absl::StatusOr<std::string> ReadFileToString(const std::string& path, absl::string_view what);

}  // namespace sluice::auth

#endif  // SLUICE_COMMON_AUTH_TLS_H_
