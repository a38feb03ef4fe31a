// Authentication of the SinkControl API (security review H6): a token in
// `authorization: Bearer` metadata, or mTLS.
#include <cstdlib>
#include <fstream>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/auth/tls.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "sink/control/control_service.h"

namespace sluice::sink {
namespace {

namespace pb = ::sluice::sink::v1beta1;

constexpr char kToken[] = "s3cret-control-token-0123456789";

struct Server {
  Env env{{{"SINK_TYPE", "log"},
           {"SOURCE_KAFKA_BROKERS", "127.0.0.1:1"},
           {"SOURCE_KAFKA_TOPIC", "orders"},
           {"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g"},
           {"INPUT_SCHEMA_DATA_TYPE", "json"}}};
  SinkConfig config;
  WorkerControl control;
  std::unique_ptr<ControlServer> server;

  explicit Server(ControlConfig c) {
    config = *ParseSinkConfig(env);
    c.port = 0;
    auto started = ControlServer::Start(c, {&env, &config, &control, nullptr});
    EXPECT_TRUE(started.ok()) << started.status();
    if (started.ok()) server = *std::move(started);
  }
  std::string target() const { return absl::StrCat("localhost:", server->port()); }
};

std::string WriteFile(const std::string& name, const std::string& content) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << content;
  return path;
}

// Calls `method` ("/pkg.Service/Method") with an empty request.
grpc::Status CallRaw(const std::shared_ptr<grpc::Channel>& channel, const std::string& method,
                     const std::string& authorization) {
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue cq;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  if (!authorization.empty()) ctx.AddMetadata("authorization", authorization);
  grpc::ByteBuffer request, response;
  grpc::Slice empty("", 0);
  request = grpc::ByteBuffer(&empty, 1);
  grpc::Status status;
  auto reader = stub.PrepareUnaryCall(&ctx, method, request, &cq);
  reader->StartCall();
  reader->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag;
  bool ok;
  cq.Next(&tag, &ok);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

std::vector<std::string> ControlMethods() {
  const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      "sluice.sink.v1beta1.SinkControl");
  std::vector<std::string> out;
  for (int i = 0; i < service->method_count(); ++i) {
    out.push_back(absl::StrCat("/", service->full_name(), "/", service->method(i)->name()));
  }
  return out;
}

TEST(ControlAuth, EveryMethodNeedsTheTokenButHealthDoesNot) {
  ControlConfig c;
  c.token_file = WriteFile("token", absl::StrCat(kToken, "\n"));
  Server s(c);
  auto channel = grpc::CreateChannel(s.target(), grpc::InsecureChannelCredentials());
  std::vector<std::string> methods = ControlMethods();
  ASSERT_EQ(methods.size(), 4u);  // GetStatus, Pause, Resume, TestFilter
  for (const std::string& m : methods) {
    for (std::string auth : {std::string(), std::string("Bearer wrong-token-0123456789"),
                             absl::StrCat("Basic ", kToken), std::string(kToken)}) {
      grpc::Status st = CallRaw(channel, m, auth);
      EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << m << " with '" << auth << "'";
      EXPECT_EQ(st.error_message().find(kToken), std::string::npos);
    }
  }
  EXPECT_FALSE(s.control.Paused()) << "an unauthenticated Pause took effect";

  // The right token works, and Pause acts.
  auto stub = pb::SinkControl::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
  pb::PauseResponse paused;
  ASSERT_TRUE(stub->Pause(&ctx, {}, &paused).ok());
  EXPECT_TRUE(s.control.Paused());
  grpc::ClientContext ctx2;
  ctx2.AddMetadata("authorization", absl::StrCat("bearer ", kToken));
  pb::GetStatusResponse status;
  EXPECT_TRUE(stub->GetStatus(&ctx2, {}, &status).ok());

  // Health stays open for probes.
  EXPECT_TRUE(CallRaw(channel, "/grpc.health.v1.Health/Check", "").ok());
}

TEST(ControlAuth, TokenFromTheEnvironmentAndShortTokensRefused) {
  setenv("SINK_CONTROL_TOKEN", kToken, 1);
  ControlConfig c;
  c.token_in_env = true;
  {
    Server s(c);
    auto channel = grpc::CreateChannel(s.target(), grpc::InsecureChannelCredentials());
    EXPECT_EQ(CallRaw(channel, "/sluice.sink.v1beta1.SinkControl/Resume", "").error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_TRUE(
        CallRaw(channel, "/sluice.sink.v1beta1.SinkControl/Resume", absl::StrCat("Bearer ", kToken))
            .ok());
  }
  setenv("SINK_CONTROL_TOKEN", "short", 1);
  c.port = 0;
  auto started = ControlServer::Start(c, {});
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.status().message().find("SINK_CONTROL_TOKEN"), std::string::npos);
  unsetenv("SINK_CONTROL_TOKEN");
}

// A CA, a server certificate for localhost/127.0.0.1 and a client
// certificate, made with the openssl command line.
struct Pki {
  std::string dir = ::testing::TempDir() + "/pki";
  std::string ca, server_cert, server_key, client_cert, client_key, other_cert, other_key;
  bool ok = false;
  Pki() {
    std::string script = absl::StrCat(
        "set -e; mkdir -p ", dir, "; cd ", dir, "\n",
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 "
        "-subj /CN=test-ca 2>/dev/null\n",
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 1 "
        "-subj /CN=other-ca 2>/dev/null\n",
        "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.ext\n",
        "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost "
        "2>/dev/null\n",
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem "
        "-days 1 -extfile san.ext 2>/dev/null\n",
        "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj /CN=operator "
        "2>/dev/null\n",
        "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem "
        "-days 1 2>/dev/null\n",
        "openssl req -newkey rsa:2048 -nodes -keyout other.key -out other.csr -subj /CN=intruder "
        "2>/dev/null\n",
        "openssl x509 -req -in other.csr -CA other-ca.pem -CAkey other-ca.key -CAcreateserial "
        "-out other.pem -days 1 2>/dev/null\n");
    std::string file = ::testing::TempDir() + "/make-pki.sh";
    std::ofstream(file) << script;
    ok = std::system(absl::StrCat("sh ", file).c_str()) == 0;
    ca = dir + "/ca.pem";
    server_cert = dir + "/server.pem";
    server_key = dir + "/server.key";
    client_cert = dir + "/client.pem";
    client_key = dir + "/client.key";
    other_cert = dir + "/other.pem";
    other_key = dir + "/other.key";
  }
};

std::shared_ptr<grpc::Channel> TlsChannel(const Pki& pki, const std::string& target,
                                          const std::string& cert, const std::string& key) {
  auth::TlsClientOptions o;
  o.enabled = true;
  o.ca_file = pki.ca;
  o.cert_file = cert;
  o.key_file = key;
  auto creds = auth::MakeChannelCredentials(o);
  EXPECT_TRUE(creds.ok()) << creds.status();
  return grpc::CreateChannel(target, *creds);
}

TEST(ControlAuth, MutualTlsAdmitsOnlyClientsOfTheConfiguredCa) {
  Pki pki;
  ASSERT_TRUE(pki.ok) << "openssl failed";
  ControlConfig c;
  c.host = "0.0.0.0";  // allowed: mTLS authenticates
  c.tls_cert_file = pki.server_cert;
  c.tls_key_file = pki.server_key;
  c.tls_client_ca_file = pki.ca;
  Server s(c);
  const std::string status = "/sluice.sink.v1beta1.SinkControl/GetStatus";
  EXPECT_TRUE(CallRaw(TlsChannel(pki, s.target(), pki.client_cert, pki.client_key), status, "").ok());
  // No client certificate, or one from another CA: the handshake fails.
  EXPECT_FALSE(CallRaw(TlsChannel(pki, s.target(), "", ""), status, "").ok());
  EXPECT_FALSE(CallRaw(TlsChannel(pki, s.target(), pki.other_cert, pki.other_key), status, "").ok());
  // Plaintext is not served.
  EXPECT_FALSE(
      CallRaw(grpc::CreateChannel(s.target(), grpc::InsecureChannelCredentials()), status, "").ok());
}

TEST(ControlAuth, ListenAddressBracketsIpv6) {
  EXPECT_EQ(ControlListenAddress("127.0.0.1", 8082), "127.0.0.1:8082");
  EXPECT_EQ(ControlListenAddress("::1", 8082), "[::1]:8082");
  EXPECT_EQ(ControlListenAddress("[::1]", 8082), "[::1]:8082");
}

}  // namespace
}  // namespace sluice::sink
