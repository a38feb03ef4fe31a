// sluice-sink with SINK_TYPE=grpc against a real gRPC server, end to end
// through the dev broker (issue 29, item 4): goto Firehose's
// SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION and _RESPONSE_RETRY_ERROR_TYPE
// decide whether a success=false response is retried; an expression outside
// the supported CEL subset stops the sink at start naming the variable.
#include <signal.h>

#include <atomic>
#include <fstream>
#include <string>

#include <google/protobuf/descriptor.pb.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "integration/process.h"
#include "integration/sink_harness.h"

namespace sluice::integration {
namespace {

namespace pb = google::protobuf;

// sluice.itest.PushResult { bool success = 1; repeated Err errors = 2; } with
// Err { string code = 1; }: the shape of Firehose's grpc-sink.md example.
std::string WriteResponseDescriptor(const std::string& dir) {
  pb::FileDescriptorSet set;
  auto* file = set.add_file();
  file->set_name("sluice_itest_push_result.proto");
  file->set_package("sluice.itest");
  file->set_syntax("proto3");
  auto* err = file->add_message_type();
  err->set_name("Err");
  auto* code = err->add_field();
  code->set_name("code");
  code->set_number(1);
  code->set_type(pb::FieldDescriptorProto::TYPE_STRING);
  code->set_label(pb::FieldDescriptorProto::LABEL_OPTIONAL);
  auto* msg = file->add_message_type();
  msg->set_name("PushResult");
  auto* success = msg->add_field();
  success->set_name("success");
  success->set_number(1);
  success->set_type(pb::FieldDescriptorProto::TYPE_BOOL);
  success->set_label(pb::FieldDescriptorProto::LABEL_OPTIONAL);
  auto* errors = msg->add_field();
  errors->set_name("errors");
  errors->set_number(2);
  errors->set_type(pb::FieldDescriptorProto::TYPE_MESSAGE);
  errors->set_type_name(".sluice.itest.Err");
  errors->set_label(pb::FieldDescriptorProto::LABEL_REPEATED);
  std::string path = dir + "/push_result.desc";
  std::ofstream(path, std::ios::binary) << set.SerializeAsString();
  return "file://" + path;
}

// Answers the first `failures` calls with PushResult{success: false,
// errors: [{code: <code>}]}, then success: true; counts the calls.
class Answers final : public grpc::CallbackGenericService {
 public:
  Answers(int failures, std::string code) : failures_(failures), code_(std::move(code)) {}
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    class Reactor final : public grpc::ServerGenericBidiReactor {
     public:
      explicit Reactor(Answers* owner) : owner_(owner) { StartRead(&request_); }
      void OnReadDone(bool ok) override {
        if (!ok) {
          Finish(grpc::Status::OK);
          return;
        }
        int n = ++owner_->calls;
        std::string bytes;
        if (n <= owner_->failures_) {
          std::string err = absl::StrCat("\x0a", std::string(1, static_cast<char>(owner_->code_.size())),
                                         owner_->code_);
          bytes = absl::StrCat("\x12", std::string(1, static_cast<char>(err.size())), err);
        } else {
          bytes = std::string("\x08\x01", 2);
        }
        grpc::Slice slice(bytes.data(), bytes.size());
        response_ = grpc::ByteBuffer(&slice, 1);
        StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
      }
      void OnDone() override { delete this; }

     private:
      Answers* owner_;
      grpc::ByteBuffer request_, response_;
    };
    return new Reactor(this);
  }
  std::atomic<int> calls{0};

 private:
  const int failures_;
  const std::string code_;
};

class SinkGrpcRetry : public ::testing::Test {
 protected:
  void Start(int failures, const std::string& code) {
    dir_ = TempDir(absl::StrCat("sink_grpc_retry_",
                                ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    service_ = std::make_unique<Answers>(failures, code);
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    b.RegisterCallbackGenericService(service_.get());
    server_ = b.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    broker_ = DevBroker::Start({"orders:1"}, dir_);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }
  std::map<std::string, std::string> Env(const std::string& group) {
    auto env = SinkEnv(broker_.bootstrap, "orders", group,
                       absl::StrCat(SampleDescriptorUrl(), ",", WriteResponseDescriptor(dir_)));
    env["SINK_TYPE"] = "grpc";
    env["SINK_GRPC_SERVICE_HOST"] = "127.0.0.1";
    env["SINK_GRPC_SERVICE_PORT"] = std::to_string(port_);
    env["SINK_GRPC_METHOD_URL"] = "sluice.itest.Orders/Push";
    env["SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS"] = "sluice.itest.PushResult";
    env["SINK_GRPC_ARG_DEADLINE_MS"] = "3000";
    env["RETRY_EXPONENTIAL_BACKOFF_INITIAL_MS"] = "10";
    return env;
  }

  std::string dir_;
  DevBroker broker_;
  std::unique_ptr<Answers> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

TEST_F(SinkGrpcRetry, MatchingRuleRetriesUntilDelivered) {
  Start(/*failures=*/3, "503");
  ProduceSamples(broker_.bootstrap, "orders", 0, 10);
  auto env = Env("retry");
  env["SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION"] =
      "sluice.itest.PushResult.success == false && "
      "sluice.itest.PushResult.errors.exists(e, int(e.code) >= 500 && int(e.code) <= 599)";
  env["SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE"] = "SINK_RETRYABLE_ERROR";
  // Only ERROR_TYPES_FOR_RETRY types are retried (ErrorHandler.java:38-39): a
  // rule that were ignored (SINK_NON_RETRYABLE_ERROR, GrpcSink.java:84) would
  // send the 3 records to the DLQ.
  env["DLQ_SINK_ENABLE"] = "true";
  env["ERROR_TYPES_FOR_DLQ"] = "SINK_NON_RETRYABLE_ERROR";
  auto sink = StartSink(env, dir_ + "/sink");
  EXPECT_TRUE(WaitFor([&] { return CommittedSum(broker_.bootstrap, "retry", "orders", 1) == 10; },
                      absl::Seconds(45)))
      << sink->Stderr();
  EXPECT_EQ(service_->calls.load(), 13) << "10 records + 3 retried answers: " << sink->Stderr();
  EXPECT_EQ(sink->Stderr().find("DLQ: topic="), std::string::npos) << sink->Stderr();
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST_F(SinkGrpcRetry, RuleThatDoesNotMatchIsNotRetried) {
  Start(/*failures=*/1000, "400");
  ProduceSamples(broker_.bootstrap, "orders", 0, 10);
  auto env = Env("no-retry");
  env["SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION"] =
      "sluice.itest.PushResult.errors.exists(e, int(e.code) >= 500)";
  // LOG writer: not-retryable failures land there once their type is listed
  // (ERROR_TYPES_FOR_DLQ is empty by default, ErrorConfig.java:13-16).
  env["DLQ_SINK_ENABLE"] = "true";
  env["ERROR_TYPES_FOR_DLQ"] = "SINK_NON_RETRYABLE_ERROR";
  auto sink = StartSink(env, dir_ + "/sink");
  EXPECT_TRUE(WaitFor([&] { return CommittedSum(broker_.bootstrap, "no-retry", "orders", 1) == 10; },
                      absl::Seconds(45)))
      << sink->Stderr();
  EXPECT_EQ(service_->calls.load(), 10) << "no retries: " << sink->Stderr();
  EXPECT_NE(sink->Stderr().find("SINK_NON_RETRYABLE_ERROR"), std::string::npos) << sink->Stderr();
  EXPECT_NE(sink->Stderr().find("DLQ: topic="), std::string::npos) << sink->Stderr();
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST_F(SinkGrpcRetry, ExpressionOutsideTheSubsetStopsTheStartNamingIt) {
  Start(0, "");
  auto env = Env("bad-rule");
  env["SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION"] = "sluice.itest.PushResult.errors.map(e, e.code)";
  auto sink = StartSink(env, dir_ + "/sink");
  EXPECT_EQ(sink->Wait(absl::Seconds(30)), 2) << sink->Stderr();
  EXPECT_NE(sink->Stderr().find("SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION"), std::string::npos)
      << sink->Stderr();
  EXPECT_EQ(service_->calls.load(), 0);
}

}  // namespace
}  // namespace sluice::integration
