// The header-mode Authenticator over a real mTLS gRPC listener, with
// certificates made here with openssl: which identity a client certificate
// may assert (auth.header.mtls_identity; finding F-L3).
#include "common/auth/authenticator.h"

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "common/auth/tls.h"
#include "gtest/gtest.h"
#include "proto/sluice/server/v1beta1/server.grpc.pb.h"

namespace sluice::auth {
namespace {

namespace spb = ::sluice::server::v1beta1;

std::string Dir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/authenticator_test");
}

void Sh(const std::string& cmd) { ASSERT_EQ(std::system((cmd + " >/dev/null 2>&1").c_str()), 0) << cmd; }

// A CA; a server certificate for 127.0.0.1; client certificates signed by the
// CA with the given subject and subjectAltName ("" = none).
void MakeCertificates(const std::string& d) {
  Sh("rm -rf " + d + " && mkdir -p " + d);
  Sh(absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout ", d,
                  "/ca.key -out ", d, "/ca.pem"));
  struct Cert {
    const char* name;
    const char* subject;
    const char* san;
  };
  for (const Cert& c : {Cert{"server", "/CN=localhost", "IP:127.0.0.1,DNS:localhost"},
                        Cert{"gateway", "/CN=gateway", "DNS:gateway.sluice.svc"},
                        Cert{"alice", "/CN=alice@example.com", "email:alice@example.com"},
                        Cert{"mallory", "/CN=admin@example.com", "email:mallory@example.com"},
                        Cert{"two", "/CN=two", "email:a@example.com,email:b@example.com"}}) {
    std::ofstream(absl::StrCat(d, "/", c.name, ".ext")) << "subjectAltName=" << c.san << "\n";
    Sh(absl::StrCat("openssl req -newkey rsa:2048 -nodes -subj ", c.subject, " -keyout ", d, "/",
                    c.name, ".key -out ", d, "/", c.name, ".csr"));
    Sh(absl::StrCat("openssl x509 -req -in ", d, "/", c.name, ".csr -CA ", d, "/ca.pem -CAkey ", d,
                    "/ca.key -CAcreateserial -days 2 -extfile ", d, "/", c.name, ".ext -out ", d,
                    "/", c.name, ".pem"));
  }
}

// Answers GetServerInfo with the authenticated caller.
class CallerEcho : public spb::ServerService::Service {
 public:
  explicit CallerEcho(const Authenticator* auth) : auth_(auth) {}
  grpc::Status GetServerInfo(grpc::ServerContext* context, const spb::GetServerInfoRequest*,
                             spb::GetServerInfoResponse* out) override {
    auto caller = auth_->Authenticate(*context);
    if (!caller.ok()) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(caller.status().message()));
    }
    out->set_caller_email(caller->identity);
    return grpc::Status::OK;
  }

 private:
  const Authenticator* auth_;
};

class MtlsIdentityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { MakeCertificates(Dir()); }

  // Starts an mTLS listener authenticating with `options`.
  void Serve(AuthOptions options) {
    std::string d = Dir();
    TlsServerOptions tls{d + "/server.pem", d + "/server.key", d + "/ca.pem"};
    auto creds = MakeServerCredentials(tls);
    ASSERT_TRUE(creds.ok()) << creds.status();
    auto auth = Authenticator::Create(options, /*listener_mtls=*/true, nullptr);
    ASSERT_TRUE(auth.ok()) << auth.status();
    auth_ = std::move(*auth);
    service_ = std::make_unique<CallerEcho>(auth_.get());
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", *creds, &port_);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override {
    if (server_) server_->Shutdown();
  }

  // GetServerInfo with client certificate `client`, and `header` as
  // x-auth-email unless empty; the caller's identity, or the status.
  absl::StatusOr<std::string> Call(const std::string& client, const std::string& header) {
    std::string d = Dir();
    TlsClientOptions o;
    o.enabled = true;
    o.ca_file = d + "/ca.pem";
    o.cert_file = d + "/" + client + ".pem";
    o.key_file = d + "/" + client + ".key";
    auto creds = MakeChannelCredentials(o);
    if (!creds.ok()) return creds.status();
    auto stub = spb::ServerService::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", port_), *creds));
    grpc::ClientContext ctx;
    if (!header.empty()) ctx.AddMetadata("x-auth-email", header);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    spb::GetServerInfoResponse out;
    grpc::Status st = stub->GetServerInfo(&ctx, {}, &out);
    if (st.error_code() == grpc::StatusCode::UNAUTHENTICATED) return absl::UnauthenticatedError(st.error_message());
    if (!st.ok()) return absl::UnknownError(absl::StrCat(st.error_code(), ": ", st.error_message()));
    return out.caller_email();
  }

  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<CallerEcho> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

// The identity, or "error: <message>" (so that a failure shows why).
std::string Id(const absl::StatusOr<std::string>& r) {
  return r.ok() ? *r : absl::StrCat("error: ", r.status().message());
}

AuthOptions Header(MtlsIdentity from) {
  AuthOptions o;
  o.mode = AuthMode::kHeader;
  o.mtls_identity = from;
  return o;
}

// mtls_identity: header (the default, as before): a verified certificate is
// a trusted hop, which names the caller in the header.
TEST_F(MtlsIdentityTest, HeaderKeepsBelievingTheHeaderFromAVerifiedHop) {
  EXPECT_EQ(AuthOptions().mtls_identity, MtlsIdentity::kHeader);
  Serve(Header(MtlsIdentity::kHeader));
  EXPECT_EQ(Id(Call("gateway", "bob@example.com")), "bob@example.com");
  EXPECT_EQ(Id(Call("alice", "bob@example.com")), "bob@example.com");
  EXPECT_TRUE(absl::IsUnauthenticated(Call("gateway", "").status()));
}

// tls.client_allowed_names: only the listed certificates prove the hop.
TEST_F(MtlsIdentityTest, AllowedNamesLimitWhichCertificatesAreAHop) {
  AuthOptions o = Header(MtlsIdentity::kHeader);
  o.mtls_allowed_names = {"gateway.sluice.svc"};  // the gateway's DNS SAN
  Serve(o);
  EXPECT_EQ(Id(Call("gateway", "bob@example.com")), "bob@example.com");
  auto other = Call("alice", "bob@example.com");
  EXPECT_TRUE(absl::IsUnauthenticated(other.status())) << other.status();
  EXPECT_NE(other.status().message().find("tls.client_allowed_names"), std::string::npos) << other.status();
}

// mtls_identity: san_email: the caller is the certificate's one rfc822Name
// SAN; a header naming someone else is refused, and a certificate without
// exactly one email SAN names nobody.
TEST_F(MtlsIdentityTest, SanEmailBindsTheIdentityToTheCertificate) {
  Serve(Header(MtlsIdentity::kSanEmail));
  EXPECT_EQ(Id(Call("alice", "")), "alice@example.com");
  EXPECT_EQ(Id(Call("alice", "alice@example.com")), "alice@example.com");
  auto spoof = Call("alice", "admin@example.com");
  EXPECT_TRUE(absl::IsUnauthenticated(spoof.status())) << spoof.status();
  EXPECT_NE(spoof.status().message().find("certificate"), std::string::npos) << spoof.status();
  // The CN is not the SAN: mallory's certificate says CN=admin@example.com.
  EXPECT_EQ(Id(Call("mallory", "")), "mallory@example.com");
  EXPECT_TRUE(absl::IsUnauthenticated(Call("mallory", "admin@example.com").status()));
  EXPECT_TRUE(absl::IsUnauthenticated(Call("gateway", "bob@example.com").status()));
  EXPECT_TRUE(absl::IsUnauthenticated(Call("two", "").status()));
}

// mtls_identity: cn: the caller is the subject CN, which must be an email.
TEST_F(MtlsIdentityTest, CnBindsTheIdentityToTheSubject) {
  Serve(Header(MtlsIdentity::kCn));
  EXPECT_EQ(Id(Call("alice", "")), "alice@example.com");
  EXPECT_EQ(Id(Call("mallory", "")), "admin@example.com");
  EXPECT_TRUE(absl::IsUnauthenticated(Call("mallory", "mallory@example.com").status()));
  EXPECT_TRUE(absl::IsUnauthenticated(Call("gateway", "bob@example.com").status()));
}

// Binding the identity to a certificate needs client certificates.
TEST(MtlsIdentityConfigTest, CertificateIdentityNeedsMutualTls) {
  for (MtlsIdentity from : {MtlsIdentity::kSanEmail, MtlsIdentity::kCn}) {
    AuthOptions o = Header(from);
    o.proxy_token.env = "AUTHENTICATOR_TEST_TOKEN";
    setenv("AUTHENTICATOR_TEST_TOKEN", "0123456789abcdef0123", 1);
    auto a = Authenticator::Create(o, /*listener_mtls=*/false, nullptr);
    EXPECT_TRUE(absl::IsInvalidArgument(a.status()));
    EXPECT_NE(a.status().message().find("auth.header.mtls_identity"), std::string::npos) << a.status();
  }
  EXPECT_EQ(ParseMtlsIdentity("san_email").value(), MtlsIdentity::kSanEmail);
  EXPECT_EQ(ParseMtlsIdentity("cn").value(), MtlsIdentity::kCn);
  EXPECT_EQ(ParseMtlsIdentity("header").value(), MtlsIdentity::kHeader);
  auto bad = ParseMtlsIdentity("subject");
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_NE(bad.status().message().find("auth.header.mtls_identity"), std::string::npos);
}

}  // namespace
}  // namespace sluice::auth
