#include "sink/sinks/grpc/grpc_sink.h"

#include <algorithm>
#include <atomic>
#include <map>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "sink/sinks/testdata/test_message.grpc.pb.h"
#include "sink/sinks/testing/error_type_table.h"
#include "sink/sinks/testing/generated_pool.h"

namespace sluice::sink {
namespace {

// The grpc sink's outcomes and goto Firehose's types (error_type_table.h).
// A failed call returns the empty response (GrpcClient.java:75-86), which the
// retry rule then judges like a success=false answer.
::sluice::sink::testing::ErrorTypeTable& FirehoseTypes() {
  static auto* table = new ::sluice::sink::testing::ErrorTypeTable({
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/grpc/GrpcSink.java:79-81: SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE, default DEFAULT_ERROR
      {"success=false, rule true (default SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE)", ErrorType::kDefaultError},
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/grpc/GrpcSink.java:79-81
      {"success=false, rule true, SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE=SINK_RETRYABLE_ERROR", ErrorType::kSinkRetryableError},
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/grpc/GrpcSink.java:84 (was SINK_UNKNOWN_ERROR: sluice lacked the type)
      {"success=false, rule false", ErrorType::kSinkNonRetryableError},
      // the evaluator throws inside GrpcSink.execute; firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/AbstractSink.java:48-53
      // (was SINK_UNKNOWN_ERROR)
      {"rule evaluation error", ErrorType::kDefaultError},
      // firehose 857761c6 src/main/java/com/gotocompany/firehose/sink/grpc/client/GrpcClient.java:75-86 returns the empty response; the
      // default rule "true" gives GrpcSink.java:81 (was SINK_RETRYABLE/SINK_4XX by status)
      {"call failed (status), default rule", ErrorType::kDefaultError},
      // the same (UNAVAILABLE, GrpcClient.java:76) (was SINK_RETRYABLE_ERROR)
      {"server unreachable, default rule", ErrorType::kDefaultError},
  });
  return *table;
}


using ::sluice::sink::testing::FindGenerated;

using ::sluice::sink::testing::PushResponse;
using ::sluice::sink::testing::TestMessage;
using ::sluice::sink::testing::TestSinkService;
using ::testing::HasSubstr;

// Accepts orders unless their number says otherwise: "bad*" -> success=false,
// "down*" -> UNAVAILABLE, "invalid*" -> INVALID_ARGUMENT.
class FakeService final : public TestSinkService::Service {
 public:
  grpc::Status Push(grpc::ServerContext* ctx, const TestMessage* req, PushResponse* resp) override {
    ++calls;
    auto team = ctx->client_metadata().find("x-team");
    if (team != ctx->client_metadata().end()) last_team = std::string(team->second.data(), team->second.size());
    const std::string& o = req->order_number();
    if (absl::StartsWith(o, "down")) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "down");
    if (absl::StartsWith(o, "invalid")) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "invalid");
    }
    resp->set_success(!absl::StartsWith(o, "bad"));
    if (!resp->success()) resp->set_error("rejected " + o);
    // "bad-<code>": one error with that code, as Firehose's doc example.
    if (absl::StartsWith(o, "bad-")) resp->add_errors()->set_code(o.substr(4));
    return grpc::Status::OK;
  }
  std::atomic<int> calls{0};
  std::string last_team;
};

class GrpcSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    b.RegisterService(&service_);
    server_ = b.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override { server_->Shutdown(); }

  std::unique_ptr<Sink> MakeSink(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> vars = {
        {"SINK_GRPC_SERVICE_HOST", "127.0.0.1"},
        {"SINK_GRPC_SERVICE_PORT", std::to_string(port_)},
        {"SINK_GRPC_METHOD_URL", "sluice.sink.testing.TestSinkService/Push"},
        {"SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS", "sluice.sink.testing.PushResponse"}};
    for (auto& [k, v] : extra) vars[k] = v;
    env_ = Env(vars);
    auto sink = CreateFromContext<GrpcSink>(SinkContext{&env_, &metrics_, &FindGenerated});
    EXPECT_TRUE(sink.ok()) << sink.status();
    return sink.ok() ? *std::move(sink) : nullptr;
  }

  static Message Record(int64_t offset, const std::string& order) {
    TestMessage pb;
    pb.set_order_number(order);
    Message m;
    m.offset = offset;
    m.value = pb.SerializeAsString();
    return m;
  }

  FakeService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  Env env_;
  NoopMetrics metrics_;
};

TEST_F(GrpcSinkTest, SendsRawBytesAndChecksSuccess) {
  auto sink = MakeSink({{"SINK_GRPC_METADATA", "x-team:core"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, "A"), Record(2, "bad-1"), Record(3, "B")});
  EXPECT_EQ(service_.calls.load(), 3);
  EXPECT_EQ(service_.last_team, "core");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message.offset, 2);
  // SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION defaults to "true" and
  // _RETRY_ERROR_TYPE to DEFAULT_ERROR, as goto Firehose: retried.
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("success=false, rule true (default SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE)"));
  EXPECT_THAT(failed[0].error, HasSubstr("rejected bad-1"));
}

TEST_F(GrpcSinkTest, CelRetryRuleChoosesTheErrorType) {
  auto sink = MakeSink(
      {{"SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION",
        "sluice.sink.testing.PushResponse.success == false && "
        "sluice.sink.testing.PushResponse.errors.exists(e, int(e.code) >= 400 && int(e.code) <= 500)"},
       {"SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE", "SINK_RETRYABLE_ERROR"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, "bad-429"), Record(2, "bad-600"), Record(3, "ok"),
                            Record(4, "bad-x")});
  std::sort(failed.begin(), failed.end(),
            [](const auto& a, const auto& b) { return a.message.offset < b.message.offset; });
  ASSERT_EQ(failed.size(), 3u);
  EXPECT_EQ(failed[0].message.offset, 1);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("success=false, rule true, SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE=SINK_RETRYABLE_ERROR"));
  EXPECT_EQ(failed[1].message.offset, 2);
  EXPECT_EQ(failed[1].error_type, FirehoseTypes()("success=false, rule false")) << "not retryable";
  EXPECT_EQ(failed[2].message.offset, 4);
  EXPECT_EQ(failed[2].error_type, FirehoseTypes()("rule evaluation error"));
  EXPECT_THAT(failed[2].error, HasSubstr("int() cannot convert"));

  auto never = MakeSink({{"SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION", "false"}});
  ASSERT_NE(never, nullptr);
  failed = never->Push({Record(1, "bad-429")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("success=false, rule false"));
}

TEST_F(GrpcSinkTest, CelRetryRuleOutsideTheSubsetIsRefusedAtStart) {
  for (const auto& [var, value] : std::vector<std::pair<std::string, std::string>>{
           {"SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION", "sluice.sink.testing.PushResponse.error.startsWith('x')"},
           {"SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION", "has(sluice.sink.testing.PushResponse.error)"},
           {"SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION", "response.success == false"},
           {"SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION", "sluice.sink.testing.PushResponse.nope"},
           {"SINK_GRPC_RESPONSE_RETRY_CEL_EXPRESSION", "  "},
           {"SINK_GRPC_RESPONSE_RETRY_ERROR_TYPE", "SINK_NON_RETRYABLE_ERRORS"}}) {
    env_ = Env(std::map<std::string, std::string>{
        {"SINK_GRPC_SERVICE_HOST", "127.0.0.1"},
        {"SINK_GRPC_SERVICE_PORT", std::to_string(port_)},
        {"SINK_GRPC_METHOD_URL", "sluice.sink.testing.TestSinkService/Push"},
        {"SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS", "sluice.sink.testing.PushResponse"},
        {var, value}});
    auto c = GrpcSinkConfig::FromEnv(env_, SinkContext{&env_, &metrics_, &FindGenerated});
    EXPECT_FALSE(c.ok()) << value;
    EXPECT_THAT(c.status().message(), HasSubstr(var)) << value;
  }
}

TEST_F(GrpcSinkTest, CallErrorsAreClassified) {
  auto sink = MakeSink();
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, "down"), Record(2, "invalid"), Record(3, "ok")});
  ASSERT_EQ(failed.size(), 2u);
  std::map<int64_t, ErrorType> by_offset;
  for (const auto& f : failed) by_offset[f.message.offset] = f.error_type;
  EXPECT_EQ(by_offset[1], FirehoseTypes()("server unreachable, default rule"));
  EXPECT_EQ(by_offset[2], FirehoseTypes()("call failed (status), default rule"));
}

TEST_F(GrpcSinkTest, UnknownMethodIs4xx) {
  auto sink = MakeSink({{"SINK_GRPC_METHOD_URL", "sluice.sink.testing.TestSinkService/Nope"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, "A")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("call failed (status), default rule"));
}

TEST_F(GrpcSinkTest, UnreachableServerIsRetryable) {
  server_->Shutdown();
  auto sink = MakeSink({{"SINK_GRPC_ARG_DEADLINE_MS", "2000"}});
  ASSERT_NE(sink, nullptr);
  auto failed = sink->Push({Record(1, "A")});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].error_type, FirehoseTypes()("server unreachable, default rule"));
}

TEST(GrpcSinkConfigTest, ErrorsNameTheVariable) {
  NoopMetrics metrics;
  std::map<std::string, std::string> base = {
      {"SINK_GRPC_SERVICE_HOST", "h"},
      {"SINK_GRPC_SERVICE_PORT", "1"},
      {"SINK_GRPC_METHOD_URL", "a.B/C"},
      {"SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS", "sluice.sink.testing.PushResponse"}};
  for (const char* missing : {"SINK_GRPC_SERVICE_HOST", "SINK_GRPC_SERVICE_PORT",
                              "SINK_GRPC_METHOD_URL", "SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS"}) {
    auto vars = base;
    vars.erase(missing);
    Env env(vars);
    auto c = GrpcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
    ASSERT_FALSE(c.ok()) << missing;
    EXPECT_THAT(c.status().message(), HasSubstr(missing));
  }
  auto vars = base;
  vars["SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";  // no success
  Env env(vars);
  auto c = GrpcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("success"));
  vars = base;
  vars["SINK_GRPC_METHOD_URL"] = "nomethod";
  Env env2(vars);
  c = GrpcSinkConfig::FromEnv(env2, SinkContext{&env2, &metrics, &FindGenerated});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("SINK_GRPC_METHOD_URL"));
}

TEST(GrpcSinkConfigTest, CallsAlwaysHaveADeadline) {
  // Review M4: Firehose's default 0 meant no deadline, so one hung call
  // stalled the worker forever.
  NoopMetrics metrics;
  std::map<std::string, std::string> base = {
      {"SINK_GRPC_SERVICE_HOST", "h"},
      {"SINK_GRPC_SERVICE_PORT", "1"},
      {"SINK_GRPC_METHOD_URL", "a.B/C"},
      {"SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS", "sluice.sink.testing.PushResponse"}};
  auto deadline = [&](const char* value) -> absl::StatusOr<int64_t> {
    auto vars = base;
    if (value != nullptr) vars["SINK_GRPC_ARG_DEADLINE_MS"] = value;
    Env env(vars);
    auto c = GrpcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
    if (!c.ok()) return c.status();
    return c->deadline_ms;
  };
  EXPECT_EQ(*deadline(nullptr), 10000);
  EXPECT_EQ(*deadline("0"), 10000) << "Firehose's 0 = none is replaced";
  EXPECT_EQ(*deadline("2500"), 2500);
  auto negative = deadline("-1");
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), HasSubstr("SINK_GRPC_ARG_DEADLINE_MS"));
}

// Firehose's SINK_GRPC_ARG_KEEPALIVE_TIME_MS (default Long.MAX_VALUE = off,
// at least 10000 as grpc-java) and _TIMEOUT_MS (default 20000) become
// channel arguments.
TEST(GrpcSinkConfigTest, KeepaliveBecomesChannelArguments) {
  NoopMetrics metrics;
  auto args_of = [&](std::map<std::string, std::string> extra)
      -> absl::StatusOr<std::map<std::string, int>> {
    std::map<std::string, std::string> vars = {
        {"SINK_GRPC_SERVICE_HOST", "h"},
        {"SINK_GRPC_SERVICE_PORT", "1"},
        {"SINK_GRPC_METHOD_URL", "a.B/C"},
        {"SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS", "sluice.sink.testing.PushResponse"}};
    for (auto& [k, v] : extra) vars[k] = v;
    Env env(vars);
    auto c = GrpcSinkConfig::FromEnv(env, SinkContext{&env, &metrics, &FindGenerated});
    if (!c.ok()) return c.status();
    grpc::ChannelArguments args = GrpcChannelArguments(*c);
    grpc_channel_args raw = args.c_channel_args();
    std::map<std::string, int> out;
    for (size_t i = 0; i < raw.num_args; ++i) {
      if (raw.args[i].type == GRPC_ARG_INTEGER) out[raw.args[i].key] = raw.args[i].value.integer;
    }
    return out;
  };
  auto defaults = args_of({});
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->count(GRPC_ARG_KEEPALIVE_TIME_MS), 0u) << "no pings by default";
  EXPECT_EQ((*defaults)[GRPC_ARG_KEEPALIVE_TIMEOUT_MS], 20000);
  auto set = args_of({{"SINK_GRPC_ARG_KEEPALIVE_TIME_MS", "30000"},
                      {"SINK_GRPC_ARG_KEEPALIVE_TIMEOUT_MS", "5000"}});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ((*set)[GRPC_ARG_KEEPALIVE_TIME_MS], 30000);
  EXPECT_EQ((*set)[GRPC_ARG_KEEPALIVE_TIMEOUT_MS], 5000);
  auto small = args_of({{"SINK_GRPC_ARG_KEEPALIVE_TIME_MS", "500"}});
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ((*small)[GRPC_ARG_KEEPALIVE_TIME_MS], 10000);
  auto firehose_max = args_of({{"SINK_GRPC_ARG_KEEPALIVE_TIME_MS", "9223372036854775807"}});
  ASSERT_TRUE(firehose_max.ok()) << firehose_max.status();
  EXPECT_EQ(firehose_max->count(GRPC_ARG_KEEPALIVE_TIME_MS), 0u);
  for (const char* var : {"SINK_GRPC_ARG_KEEPALIVE_TIME_MS", "SINK_GRPC_ARG_KEEPALIVE_TIMEOUT_MS"}) {
    for (const char* bad : {"0", "-5", "soon"}) {
      auto r = args_of({{var, bad}});
      ASSERT_FALSE(r.ok()) << var << "=" << bad;
      EXPECT_THAT(r.status().message(), HasSubstr(var));
    }
  }
}

}  // namespace
}  // namespace sluice::sink
