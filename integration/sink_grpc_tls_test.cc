// sluice-sink with SINK_TYPE=grpc against a real TLS gRPC server, end to end
// through the dev broker (issue 29, item 4): Firehose's SINK_GRPC_TLS_ENABLE
// and SINK_GRPC_ROOT_CA (base64 of the CA PEM) deliver, and a ROOT_CA that is
// no certificate stops the sink at start naming the variable. Certificates
// are made here with openssl.
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <google/protobuf/descriptor.pb.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "integration/process.h"
#include "integration/sink_harness.h"

namespace sluice::integration {
namespace {

bool Sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ca.pem and server.pem/.key (for 127.0.0.1) in `d`.
bool MakeCertificates(const std::string& d) {
  bool ok = Sh(absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=ca ",
                            "-keyout ", d, "/ca.key -out ", d, "/ca.pem"));
  std::ofstream(d + "/server.ext") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
  ok = ok && Sh(absl::StrCat("openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout ", d,
                             "/server.key -out ", d, "/server.csr"));
  return ok && Sh(absl::StrCat("openssl x509 -req -in ", d, "/server.csr -CA ", d,
                               "/ca.pem -CAkey ", d, "/ca.key -CAcreateserial -days 2 -extfile ",
                               d, "/server.ext -out ", d, "/server.pem"));
}

// A descriptor set with sluice.itest.PushResult { bool success = 1; }, the
// response class, served beside the sample schema.
std::string WriteResponseDescriptor(const std::string& dir) {
  google::protobuf::FileDescriptorSet set;
  auto* file = set.add_file();
  file->set_name("sluice_itest_push_result.proto");
  file->set_package("sluice.itest");
  file->set_syntax("proto3");
  auto* msg = file->add_message_type();
  msg->set_name("PushResult");
  auto* field = msg->add_field();
  field->set_name("success");
  field->set_number(1);
  field->set_type(google::protobuf::FieldDescriptorProto::TYPE_BOOL);
  field->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
  std::string path = dir + "/push_result.desc";
  std::ofstream(path, std::ios::binary) << set.SerializeAsString();
  return "file://" + path;
}

// Answers every unary call with PushResult{success: true} and counts them.
class AcceptAll final : public grpc::CallbackGenericService {
 public:
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    class Reactor final : public grpc::ServerGenericBidiReactor {
     public:
      explicit Reactor(std::atomic<int>* calls) : calls_(calls) { StartRead(&request_); }
      void OnReadDone(bool ok) override {
        if (!ok) {
          Finish(grpc::Status::OK);
          return;
        }
        ++*calls_;
        static const char kSuccess[] = {0x08, 0x01};
        grpc::Slice slice(kSuccess, sizeof(kSuccess));
        response_ = grpc::ByteBuffer(&slice, 1);
        StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
      }
      void OnDone() override { delete this; }

     private:
      std::atomic<int>* calls_;
      grpc::ByteBuffer request_, response_;
    };
    return new Reactor(&calls);
  }
  std::atomic<int> calls{0};
};

class SinkGrpcTls : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("sink_grpc_tls");
    ASSERT_TRUE(MakeCertificates(dir_)) << "openssl failed in " << dir_;
    grpc::SslServerCredentialsOptions opts;
    opts.pem_key_cert_pairs.push_back({Slurp(dir_ + "/server.key"), Slurp(dir_ + "/server.pem")});
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::SslServerCredentials(opts), &port_);
    b.RegisterCallbackGenericService(&service_);
    server_ = b.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  std::map<std::string, std::string> Env(const std::string& bootstrap, const std::string& group) {
    auto env = SinkEnv(bootstrap, "orders", group,
                       absl::StrCat(SampleDescriptorUrl(), ",", WriteResponseDescriptor(dir_)));
    env["SINK_TYPE"] = "grpc";
    env["SINK_GRPC_SERVICE_HOST"] = "127.0.0.1";
    env["SINK_GRPC_SERVICE_PORT"] = std::to_string(port_);
    env["SINK_GRPC_METHOD_URL"] = "sluice.itest.Orders/Push";
    env["SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS"] = "sluice.itest.PushResult";
    env["SINK_GRPC_ARG_DEADLINE_MS"] = "3000";
    env["SINK_GRPC_TLS_ENABLE"] = "true";
    env["SINK_GRPC_ROOT_CA"] = absl::Base64Escape(Slurp(dir_ + "/ca.pem"));
    env["SINK_GRPC_ARG_KEEPALIVE_TIME_MS"] = "30000";
    return env;
  }

  std::string dir_;
  AcceptAll service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

TEST_F(SinkGrpcTls, FirehoseTlsVariablesDeliverAndCommit) {
  DevBroker broker = DevBroker::Start({"orders:1"}, dir_);
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  auto sink = StartSink(Env(broker.bootstrap, "tls-group"), dir_ + "/sink");
  EXPECT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "tls-group", "orders", 1) == 20; },
                      absl::Seconds(45)))
      << sink->Stderr();
  EXPECT_EQ(service_.calls.load(), 20) << sink->Stderr();
}

TEST_F(SinkGrpcTls, RootCaThatIsNoCertificateStopsTheSinkNamingIt) {
  DevBroker broker = DevBroker::Start({"orders:1"}, dir_);
  auto env = Env(broker.bootstrap, "bad-ca-group");
  env["SINK_GRPC_ROOT_CA"] = absl::Base64Escape("not a certificate");
  auto sink = StartSink(env, dir_ + "/sink");
  EXPECT_NE(sink->Wait(absl::Seconds(30)), -1) << "the sink did not stop";
  EXPECT_NE(sink->Stderr().find("SINK_GRPC_ROOT_CA"), std::string::npos) << sink->Stderr();
  EXPECT_EQ(service_.calls.load(), 0);
}

}  // namespace
}  // namespace sluice::integration
