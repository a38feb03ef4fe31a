// End-to-end tests of sluice-server's auth modes (README, "Security model"):
// header + mTLS (certificates made here with openssl), jwt with a JWKS served
// by a local HTTP server, and the start-up refusals (insecure_dev on a
// non-loopback listener, no encryption key). header + proxy token is how
// every other integration test runs (integration/harness.h).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/auth/testing.h"
#include "common/auth/tls.h"
#include "integration/fake_http_server.h"
#include "integration/harness.h"
#include "integration/notification_helpers.h"
#include "proto/sluice/server/v1beta1/server.grpc.pb.h"

namespace sluice::integration {
namespace {

using nlohmann::json;
namespace spb = ::sluice::server::v1beta1;

std::string Dir(const std::string& name) {
  std::string d = TempPath(name);
  EXPECT_EQ(system(("rm -rf " + d + " && mkdir -p " + d).c_str()), 0);
  return d;
}

// Runs `cmd` quietly; fails the test when it fails.
void Sh(const std::string& cmd) {
  ASSERT_EQ(system((cmd + " >/dev/null 2>&1").c_str()), 0) << cmd;
}

// A CA, a server certificate for 127.0.0.1/localhost and a client
// certificate signed by it, plus a rogue client signed by another CA.
void MakeCertificates(const std::string& d) {
  for (const char* ca : {"ca", "rogue-ca"}) {
    Sh(absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=", ca, " -keyout ",
                    d, "/", ca, ".key -out ", d, "/", ca, ".pem"));
  }
  std::ofstream(d + "/server.ext") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
  Sh(absl::StrCat("openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout ", d,
                  "/server.key -out ", d, "/server.csr"));
  Sh(absl::StrCat("openssl x509 -req -in ", d, "/server.csr -CA ", d, "/ca.pem -CAkey ", d,
                  "/ca.key -CAcreateserial -days 2 -extfile ", d, "/server.ext -out ", d,
                  "/server.pem"));
  for (auto [name, ca] : {std::pair{"gateway", "ca"}, std::pair{"rogue", "rogue-ca"}}) {
    Sh(absl::StrCat("openssl req -newkey rsa:2048 -nodes -subj /CN=", name, " -keyout ", d, "/",
                    name, ".key -out ", d, "/", name, ".csr"));
    Sh(absl::StrCat("openssl x509 -req -in ", d, "/", name, ".csr -CA ", d, "/", ca, ".pem -CAkey ",
                    d, "/", ca, ".key -CAcreateserial -days 2 -out ", d, "/", name, ".pem"));
  }
}

// GetServerInfo over TLS with `client` ("" = no client certificate) as `email`.
grpc::Status InfoOverTls(const Stack& stack, const std::string& d, const std::string& client,
                         const std::string& email, spb::GetServerInfoResponse* out) {
  auth::TlsClientOptions o;
  o.enabled = true;
  o.ca_file = d + "/ca.pem";
  if (!client.empty()) {
    o.cert_file = d + "/" + client + ".pem";
    o.key_file = d + "/" + client + ".key";
  }
  auto creds = auth::MakeChannelCredentials(o);
  EXPECT_TRUE(creds.ok()) << creds.status();
  auto stub = spb::ServerService::NewStub(grpc::CreateChannel(stack.grpc_target(), *creds));
  grpc::ClientContext ctx;
  ctx.AddMetadata("x-auth-email", email);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return stub->GetServerInfo(&ctx, {}, out);
}

TEST(AuthModesTest, HeaderModeWithMutualTls) {
  std::string d = Dir("mtls");
  MakeCertificates(d);
  Stack::Options opts;
  opts.config_yaml = absl::StrCat("tls:\n  cert_file: ", d, "/server.pem\n  key_file: ", d,
                                  "/server.key\n  client_ca_file: ", d,
                                  "/ca.pem\nauth:\n  mode: header\n");  // no proxy token
  opts.gateway_without_token = true;
  opts.gateway_args = {"--backend_tls", "--backend_ca", d + "/ca.pem", "--backend_cert",
                       d + "/gateway.pem", "--backend_key", d + "/gateway.key"};
  auto stack = Stack::Start(opts);
  ASSERT_TRUE(stack.ok()) << stack.status();

  // Through the gateway, which proves itself with its client certificate.
  auto r = Http("GET", (*stack)->http_base() + "/api/v1beta1/server-info", "",
                {"X-Auth-Email: alice@example.com"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["caller_email"], "alice@example.com");

  // Directly: a client certificate from our CA is a trusted hop ...
  spb::GetServerInfoResponse info;
  grpc::Status st = InfoOverTls(**stack, d, "gateway", "bob@example.com", &info);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(info.caller_email(), "bob@example.com");
  // ... none, or one from another CA, fails the handshake; plaintext too.
  EXPECT_EQ(InfoOverTls(**stack, d, "", "bob@example.com", &info).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(InfoOverTls(**stack, d, "rogue", "bob@example.com", &info).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  auto plain = spb::ServerService::NewStub(
      grpc::CreateChannel((*stack)->grpc_target(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  EXPECT_FALSE(plain->GetServerInfo(&ctx, {}, &info).ok());

  // sluicectl with --ca/--cert/--key.
  auto ctl = Process::Start({Runfile("cli/sluicectl"), "--host", (*stack)->grpc_target(), "--ca",
                             d + "/ca.pem", "--cert", d + "/gateway.pem", "--key",
                             d + "/gateway.key", "--email", "carol@example.com", "--json",
                             "server-info"});
  ASSERT_TRUE(ctl.ok());
  EXPECT_EQ((*ctl)->Wait(absl::Seconds(20)), 0) << (*ctl)->Output();
  EXPECT_NE((*ctl)->Output().find("carol@example.com"), std::string::npos) << (*ctl)->Output();
}

class JwtModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    idp_ = FakeHttpServer::Start();
    ASSERT_NE(idp_, nullptr);
    key_ = auth::testing::NewRsaKey("key-1");
    idp_->SetDefault("/jwks", {200, auth::testing::JwksJson({key_})});
    Stack::Options opts;
    opts.config_yaml = absl::StrCat(
        "auth:\n  mode: jwt\n  jwt:\n    jwks_url: ", idp_->Url("/jwks"),
        "\n    issuer: https://idp.example.com\n    audiences: [sluice]\n"
        "    groups_claim: groups\n"
        "access:\n  admins: []\n  admin_groups: [platform-admins]\n"
        "notification:\n  sender_groups: [deployers]\n");
    auto stack = Stack::Start(opts);
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = std::move(*stack);
  }
  std::string Token(const std::string& email, json extra = json::object()) {
    json claims = {{"email", email}, {"iss", "https://idp.example.com"}, {"aud", "sluice"},
                   {"exp", absl::ToUnixSeconds(absl::Now()) + 300}};
    claims.update(extra);
    return auth::testing::SignJwt(key_, claims);
  }
  HttpResponse Get(const std::string& path, std::vector<std::string> headers) {
    return Http("GET", stack_->http_base() + "/api/v1beta1" + path, "", headers);
  }
  std::unique_ptr<FakeHttpServer> idp_;
  auth::testing::TestKey key_;
  std::unique_ptr<Stack> stack_;
};

TEST_F(JwtModeTest, BearerTokensFromTheJwksAreTheOnlyIdentity) {
  auto ok = Get("/server-info", {"Authorization: Bearer " + Token("dana@example.com")});
  ASSERT_EQ(ok.status, 200) << ok.body << stack_->server().Output();
  EXPECT_EQ(ok.Json()["caller_email"], "dana@example.com");
  EXPECT_GE(idp_->Requests("/jwks").size(), 1u);

  // An identity header means nothing in jwt mode.
  auto header = Get("/server-info", {"X-Auth-Email: admin@example.com"});
  EXPECT_EQ(header.status, 401) << header.body;
  auto expired = Get("/server-info", {"Authorization: Bearer " +
                                      Token("dana@example.com",
                                            {{"exp", absl::ToUnixSeconds(absl::Now()) - 3600}})});
  EXPECT_EQ(expired.status, 401) << expired.body;
  EXPECT_NE(expired.Json().value("message", "").find("expired"), std::string::npos);
  auto audience = Get("/server-info", {"Authorization: Bearer " +
                                       Token("dana@example.com", {{"aud", "other-service"}})});
  EXPECT_EQ(audience.status, 401) << audience.body;
  auto forged = Get("/server-info", {"Authorization: Bearer " +
                                     auth::testing::SignJwt(auth::testing::NewRsaKey("key-1"),
                                                            {{"email", "root@example.com"},
                                                             {"iss", "https://idp.example.com"},
                                                             {"aud", "sluice"},
                                                             {"exp", absl::ToUnixSeconds(absl::Now()) + 300}})});
  EXPECT_EQ(forged.status, 401) << forged.body;
}

TEST_F(JwtModeTest, AdminGroupsComeFromTheGroupsClaim) {
  json policy = {{"id", "jwt-policy"},
                 {"steps", {{{"name", "a"}, {"strategy", "auto"}, {"approve_if", "true"}}}}};
  auto member = Http("POST", stack_->http_base() + "/api/v1beta1/policies", policy.dump(),
                     {"Authorization: Bearer " +
                      Token("ops@example.com", {{"groups", {"platform-admins"}}})});
  EXPECT_EQ(member.status, 200) << member.body;
  policy["id"] = "jwt-policy-2";
  auto other = Http("POST", stack_->http_base() + "/api/v1beta1/policies", policy.dump(),
                    {"Authorization: Bearer " + Token("dev@example.com", {{"groups", {"dev"}}})});
  EXPECT_EQ(other.status, 403) << other.body;

  // sluicectl --token (env SLUICE_TOKEN works the same).
  auto ctl = Process::Start({Runfile("cli/sluicectl"), "--host", stack_->grpc_target(), "--token",
                             Token("erin@example.com"), "--json", "server-info"});
  ASSERT_TRUE(ctl.ok());
  EXPECT_EQ((*ctl)->Wait(absl::Seconds(20)), 0) << (*ctl)->Output();
  EXPECT_NE((*ctl)->Output().find("erin@example.com"), std::string::npos) << (*ctl)->Output();
}

// notification.sender_groups and group:<name> in allowed_senders come from
// the groups claim too (security review round 2, F-M1).
TEST_F(JwtModeTest, SenderGroupsComeFromTheGroupsClaim) {
  auto call = [&](const std::string& method, const std::string& path, const json& body,
                  const std::string& token) {
    return Http(method, stack_->http_base() + "/api/v1beta1" + path, body.dump(),
                {"Authorization: Bearer " + token});
  };
  std::string admin = Token("tester@example.com");  // a notification admin
  for (const char* team : {"open", "narrow"}) {
    json r = {{"name", std::string("jwt-") + team}, {"type", "http"}, {"labels", {{"team", team}}},
              {"configurations", {{"url", "http://127.0.0.1:9/x"}}}};
    if (std::string(team) == "narrow") r["allowed_senders"] = {"group:oncall"};
    ASSERT_EQ(call("POST", "/receivers", r, admin).status, 200);
  }
  json to_open = {{"receivers", {{{"team", "open"}}}}, {"data", json::object()}};
  json to_narrow = {{"receivers", {{{"team", "narrow"}}}}, {"data", json::object()}};
  std::string deployer = Token("dev@example.com", {{"groups", {"deployers"}}});
  std::string oncall = Token("dev@example.com", {{"groups", {"deployers", "oncall"}}});
  EXPECT_EQ(call("POST", "/notifications", to_open, deployer).status, 200);
  EXPECT_EQ(call("POST", "/notifications", to_narrow, deployer).status, 403);
  EXPECT_EQ(call("POST", "/notifications", to_narrow, oncall).status, 200);
  auto outsider = call("POST", "/notifications", to_open,
                       Token("eve@example.com", {{"groups", {"dev"}}}));
  EXPECT_EQ(outsider.status, 403) << outsider.body;
  EXPECT_NE(outsider.body.find("notification.sender_groups"), std::string::npos) << outsider.body;
}

// Runs sluice-server with `config` until it exits; returns {exit code, output}.
std::pair<int, std::string> RunServer(const std::string& name, const std::string& config,
                                      std::map<std::string, std::string> env) {
  std::string path = TempPath(name + ".yaml");
  std::ofstream(path) << config;
  env.emplace("SLUICE_DB_DSN", "host=127.0.0.1 port=1 dbname=none connect_timeout=1");
  auto p = Process::Start({Runfile("server/sluice-server"), "--config", path, "--grpc_port", "0",
                           "--metrics_port", "0"},
                          env);
  if (!p.ok()) return {-1, ""};
  int code = (*p)->Wait(absl::Seconds(30));
  return {code, (*p)->Output()};
}

TEST(AuthModesStartTest, UnsafeConfigurationsRefuseToStart) {
  // insecure_dev believes anyone's header: only on loopback.
  auto [code, out] = RunServer("dev-open", "grpc_host: 0.0.0.0\nauth:\n  mode: insecure_dev\n", {});
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("insecure_dev"), std::string::npos) << out;
  EXPECT_NE(out.find("loopback"), std::string::npos) << out;
  // The default (header) mode without a proxy token or mTLS.
  auto [code2, out2] = RunServer("header-bare", "db:\n  connect_timeout_seconds: 1\n",
                                 {{"SLUICE_ENCRYPTION_KEY", std::string(64, 'a')}});
  EXPECT_NE(code2, 0) << out2;
  EXPECT_NE(out2.find("proxy_token"), std::string::npos) << out2;
}

}  // namespace
}  // namespace sluice::integration
