// The gRPC sink against a real TLS gRPC server, with a throwaway CA and server
// certificate made here with openssl: SINK_GRPC_TLS_ENABLE and
// SINK_GRPC_ROOT_CA (base64 of the PEM, as Firehose's GrpcSinkFactory reads
// it) are honoured (issue 29, item 4).
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "sink/sinks/grpc/grpc_sink.h"
#include "sink/sinks/testdata/test_message.grpc.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/generated_pool.h"

namespace sluice::sink {
namespace {

// The grpc sink's TLS outcomes and goto Firehose's types (error_type_table.h;
// the other outcomes are in grpc_sink_test.cc).
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/grpc/client/GrpcClient.java:75-86 returns the empty response (UNAVAILABLE);
      // the default rule "true" gives GrpcSink.java:81 (was SINK_RETRYABLE_ERROR)
      {"handshake or channel failure, default rule", ErrorType::kDefaultError},
  });
  return *table;
}


using ::sluice::sink::testing::FindGenerated;
using ::sluice::sink::testing::PushResponse;
using ::sluice::sink::testing::TestMessage;
using ::sluice::sink::testing::TestSinkService;
using ::testing::HasSubstr;

std::string Dir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/grpc_tls_test");
}

bool Sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ca.pem signs server.pem (for 127.0.0.1 and localhost); other-ca.pem signs
// nothing here.
bool MakeCertificates(const std::string& d) {
  bool ok = Sh("rm -rf " + d + " && mkdir -p " + d);
  for (const char* ca : {"ca", "other-ca"}) {
    ok = ok && Sh(absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=", ca,
                               " -keyout ", d, "/", ca, ".key -out ", d, "/", ca, ".pem"));
  }
  std::ofstream(d + "/server.ext") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
  ok = ok && Sh(absl::StrCat("openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout ", d,
                             "/server.key -out ", d, "/server.csr"));
  ok = ok && Sh(absl::StrCat("openssl x509 -req -in ", d, "/server.csr -CA ", d, "/ca.pem -CAkey ",
                             d, "/ca.key -CAcreateserial -days 2 -extfile ", d,
                             "/server.ext -out ", d, "/server.pem"));
  return ok;
}

class CountingService final : public TestSinkService::Service {
 public:
  grpc::Status Push(grpc::ServerContext*, const TestMessage*, PushResponse* resp) override {
    ++calls;
    resp->set_success(true);
    return grpc::Status::OK;
  }
  std::atomic<int> calls{0};
};

class GrpcTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { certs_ok_ = MakeCertificates(Dir()); }

  void SetUp() override {
    ASSERT_TRUE(certs_ok_) << "openssl could not make the test certificates in " << Dir();
    grpc::SslServerCredentialsOptions opts;
    opts.pem_key_cert_pairs.push_back({Slurp(Dir() + "/server.key"), Slurp(Dir() + "/server.pem")});
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::SslServerCredentials(opts), &port_);
    b.RegisterService(&service_);
    server_ = b.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  std::map<std::string, std::string> Vars(std::map<std::string, std::string> extra) const {
    std::map<std::string, std::string> vars = {
        {"SINK_GRPC_SERVICE_HOST", "127.0.0.1"},
        {"SINK_GRPC_SERVICE_PORT", std::to_string(port_)},
        {"SINK_GRPC_METHOD_URL", "sluice.sink.testing.TestSinkService/Push"},
        {"SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS", "sluice.sink.testing.PushResponse"},
        // Every call of these tests is bounded: a handshake that cannot
        // succeed fails within 3 s.
        {"SINK_GRPC_ARG_DEADLINE_MS", "3000"}};
    for (auto& [k, v] : extra) vars[k] = v;
    return vars;
  }

  absl::StatusOr<std::unique_ptr<Sink>> MakeSink(std::map<std::string, std::string> extra) {
    env_ = Env(Vars(std::move(extra)));
    return CreateFromContext<GrpcSink>(SinkContext{&env_, &metrics_, &FindGenerated});
  }

  static Message Record(int64_t offset) {
    TestMessage pb;
    pb.set_order_number(absl::StrCat("o-", offset));
    Message m;
    m.offset = offset;
    m.value = pb.SerializeAsString();
    return m;
  }

  static std::string Base64Pem(const char* name) {
    return absl::Base64Escape(Slurp(absl::StrCat(Dir(), "/", name, ".pem")));
  }

  static bool certs_ok_;
  CountingService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  Env env_;
  NoopMetrics metrics_;
};

bool GrpcTlsTest::certs_ok_ = false;

// Before issue 29 the TLS variables were ignored: the sink spoke plaintext to
// this server and every call failed.
TEST_F(GrpcTlsTest, TlsWithTheRightRootCaDelivers) {
  auto sink = MakeSink({{"SINK_GRPC_TLS_ENABLE", "true"}, {"SINK_GRPC_ROOT_CA", Base64Pem("ca")}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({Record(1), Record(2), Record(3)});
  EXPECT_TRUE(failed.empty()) << failed.front().error;
  EXPECT_EQ(service_.calls.load(), 3);
}

TEST_F(GrpcTlsTest, PlaintextAgainstATlsServerFailsRetryable) {
  auto sink = MakeSink({});  // SINK_GRPC_TLS_ENABLE defaults to false, as Firehose's
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({Record(1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("handshake or channel failure, default rule")) << failed[0].error;
  EXPECT_EQ(service_.calls.load(), 0);
}

TEST_F(GrpcTlsTest, WrongRootCaFailsTheHandshake) {
  auto sink =
      MakeSink({{"SINK_GRPC_TLS_ENABLE", "true"}, {"SINK_GRPC_ROOT_CA", Base64Pem("other-ca")}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({Record(1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("handshake or channel failure, default rule")) << failed[0].error;
  EXPECT_EQ(service_.calls.load(), 0);
}

// Without a root CA the system roots are used, which do not know this CA.
TEST_F(GrpcTlsTest, TlsWithoutRootCaUsesSystemRoots) {
  auto sink = MakeSink({{"SINK_GRPC_TLS_ENABLE", "true"}});
  ASSERT_TRUE(sink.ok()) << sink.status();
  auto failed = (*sink)->Push({Record(1)});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("handshake or channel failure, default rule")) << failed[0].error;
  EXPECT_EQ(service_.calls.load(), 0);
}

// Sluice also takes the PEM text itself, or a path to a PEM file (a mounted
// secret), besides Firehose's base64.
TEST_F(GrpcTlsTest, RootCaAsPemTextOrPathDelivers) {
  for (const std::string& value : {Slurp(Dir() + "/ca.pem"), Dir() + "/ca.pem"}) {
    auto sink = MakeSink({{"SINK_GRPC_TLS_ENABLE", "true"}, {"SINK_GRPC_ROOT_CA", value}});
    ASSERT_TRUE(sink.ok()) << sink.status();
    EXPECT_TRUE((*sink)->Push({Record(1)}).empty()) << value;
  }
  EXPECT_EQ(service_.calls.load(), 2);
}

TEST_F(GrpcTlsTest, BadRootCaIsRefusedAtStartNamingTheVariable) {
  for (const std::string& value :
       {std::string("/nonexistent/ca.pem"), absl::Base64Escape("not a certificate"),
        std::string("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
        Dir() + "/server.csr"}) {
    auto sink = MakeSink({{"SINK_GRPC_TLS_ENABLE", "true"}, {"SINK_GRPC_ROOT_CA", value}});
    ASSERT_FALSE(sink.ok()) << value;
    EXPECT_EQ(sink.status().code(), absl::StatusCode::kInvalidArgument) << sink.status();
    EXPECT_THAT(sink.status().message(), HasSubstr("SINK_GRPC_ROOT_CA")) << value;
  }
  auto sink = MakeSink({{"SINK_GRPC_TLS_ENABLE", "yes please"}});
  ASSERT_FALSE(sink.ok());
  EXPECT_THAT(sink.status().message(), HasSubstr("SINK_GRPC_TLS_ENABLE"));
}

}  // namespace
}  // namespace sluice::sink
