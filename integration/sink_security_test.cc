// sluice-sink against the reproductions of the 2026-11 security review, end
// to end: the SinkControl API (H6) and a record that cannot be serialized
// (H5), with the real binary, the dev broker and real gRPC/HTTP peers.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>

#include <fstream>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/sink_harness.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "sink/sinks/testing/http_test_server.h"

namespace sluice::integration {
namespace {

namespace pb = ::sluice::sink::v1beta1;
using ::sluice::sink::testing::HttpTestServer;

constexpr char kToken[] = "control-token-for-the-e2e-test-42";

std::shared_ptr<grpc::Channel> Channel(const std::string& host, int port) {
  return grpc::CreateChannel(absl::StrCat(host, ":", port), grpc::InsecureChannelCredentials());
}

void WithToken(grpc::ClientContext* ctx) {
  ctx->AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
}

// An IPv4 address of this host that is not loopback, or "" when none.
std::string NonLoopbackAddress() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string out;
  for (ifaddrs* a = list; a != nullptr && out.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    auto* in = reinterpret_cast<sockaddr_in*>(a->ifa_addr);
    if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) continue;
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf));
    out = buf;
  }
  freeifaddrs(list);
  return out;
}

// H6: `grpcurl -plaintext pod:8082 .../GetStatus` showed SINK_HTTP_HEADERS in
// clear, Pause stopped the pipeline and TestFilter read topic data, all
// without credentials.
TEST(SinkSecurity, TokenProtectedControlApiRefusesAnonymousCallsAndMasksSecrets) {
  std::string dir = TempDir("sink_sec_control");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  std::string token_file = dir + "/control-token";
  std::ofstream(token_file) << kToken << "\n";
  auto env = SinkEnv(broker.bootstrap, "orders", "sec-group", SampleDescriptorUrl());
  int port = FreePort();
  env["SINK_CONTROL_PORT"] = std::to_string(port);
  env["SINK_CONTROL_HOST"] = "0.0.0.0";
  env["SINK_CONTROL_TOKEN_FILE"] = token_file;
  // Secrets a real deployment carries in readable variables.
  env["SINK_HTTP_HEADERS"] = "Authorization:Bearer eyJhbGciOi.secret.sig,X-Team:core";
  env["SINK_GRPC_METADATA"] = "x-api-key:k-123456,x-tenant:t1";
  env["SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS"] = "Authorization:Basic dXNlcjpwYXNz";
  env["SINK_JDBC_URL"] = "jdbc:postgresql://writer:pg-pass@db:5432/a?password=pg-pass2&ssl=true";
  auto sink = StartSink(env, dir + "/sink");
  auto channel = Channel("127.0.0.1", port);
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(15)))
      << sink->Stderr();
  auto stub = pb::SinkControl::NewStub(channel);

  // Anonymous, or with a wrong token: refused.
  for (std::string auth : {std::string(), std::string("Bearer not-the-token-0123456789")}) {
    {
      grpc::ClientContext ctx;
      if (!auth.empty()) ctx.AddMetadata("authorization", auth);
      pb::GetStatusResponse resp;
      grpc::Status s = stub->GetStatus(&ctx, {}, &resp);
      EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << s.error_message();
      EXPECT_EQ(resp.config_size(), 0);
    }
    {
      grpc::ClientContext ctx;
      if (!auth.empty()) ctx.AddMetadata("authorization", auth);
      pb::PauseResponse resp;
      EXPECT_EQ(stub->Pause(&ctx, {}, &resp).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    }
    {
      grpc::ClientContext ctx;
      if (!auth.empty()) ctx.AddMetadata("authorization", auth);
      pb::TestFilterRequest req;
      req.set_expression("true");
      req.set_next_records(1000);
      pb::TestFilterResponse resp;
      EXPECT_EQ(stub->TestFilter(&ctx, req, &resp).error_code(),
                grpc::StatusCode::UNAUTHENTICATED);
      EXPECT_EQ(resp.results_size(), 0) << "topic data leaked";
    }
  }
  // The refused Pause did nothing: records still flow.
  ProduceSamples(broker.bootstrap, "orders", 0, 20);
  EXPECT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=orders") == 20; },
                      absl::Seconds(30)))
      << sink->Stderr();

  // With the token: GetStatus works and masks secrets by name and by value.
  grpc::ClientContext ctx;
  WithToken(&ctx);
  pb::GetStatusResponse status;
  grpc::Status s = stub->GetStatus(&ctx, {}, &status);
  ASSERT_TRUE(s.ok()) << s.error_message();
  const auto& config = status.config();
  EXPECT_EQ(config.at("SINK_CONTROL_TOKEN_FILE"), "****");
  EXPECT_EQ(config.at("SINK_HTTP_HEADERS"), "Authorization:Bearer ****,X-Team:core");
  EXPECT_EQ(config.at("SINK_GRPC_METADATA"), "x-api-key:****,x-tenant:t1");
  EXPECT_EQ(config.at("SCHEMA_REGISTRY_STENCIL_FETCH_HEADERS"), "Authorization:Basic ****");
  EXPECT_EQ(config.at("SINK_JDBC_URL"),
            "jdbc:postgresql://writer:****@db:5432/a?password=****&ssl=true");
  EXPECT_EQ(config.at("SOURCE_KAFKA_TOPIC"), "orders");
  for (const auto& [k, v] : config) {
    for (const char* secret : {"eyJhbGciOi", "k-123456", "dXNlcjpwYXNz", "pg-pass", kToken}) {
      EXPECT_EQ(v.find(secret), std::string::npos) << k << " = " << v;
    }
  }
  // TestFilter with the token reads the records.
  {
    grpc::ClientContext tctx;
    WithToken(&tctx);
    pb::TestFilterRequest req;
    req.set_expression("sampleLogMessage.getAmountPaidCents() >= 0");
    req.add_records()->set_value("\x0a\x03" "abc");
    pb::TestFilterResponse resp;
    grpc::Status ts = stub->TestFilter(&tctx, req, &resp);
    EXPECT_TRUE(ts.ok()) << ts.error_message();
  }
  // Health stays open for Kubernetes' grpc probe.
  {
    grpc::ClientContext hctx;
    grpc::ByteBuffer request, response;
    grpc::Slice empty("", 0);
    request = grpc::ByteBuffer(&empty, 1);
    grpc::GenericStub generic(channel);
    grpc::CompletionQueue cq;
    grpc::Status hs;
    auto reader = generic.PrepareUnaryCall(&hctx, "/grpc.health.v1.Health/Check", request, &cq);
    reader->StartCall();
    reader->Finish(&response, &hs, reinterpret_cast<void*>(1));
    void* tag;
    bool ok;
    cq.Next(&tag, &ok);
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {
    }
    EXPECT_TRUE(hs.ok()) << hs.error_message();
  }
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

TEST(SinkSecurity, NonLoopbackBindWithoutAuthenticationIsRefused) {
  std::string dir = TempDir("sink_sec_bind");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto env = SinkEnv(broker.bootstrap, "orders", "bind-group", SampleDescriptorUrl());
  int port = FreePort();
  env["SINK_CONTROL_PORT"] = std::to_string(port);
  env["SINK_CONTROL_HOST"] = "0.0.0.0";
  auto sink = StartSink(env, dir + "/sink");
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 2) << "a configuration error" << sink->Stderr();
  std::string err = sink->Stderr();
  for (const char* name : {"SINK_CONTROL_HOST", "SINK_CONTROL_TOKEN_FILE", "SINK_CONTROL_TOKEN",
                           "SINK_CONTROL_TLS_CLIENT_CA_FILE"}) {
    EXPECT_NE(err.find(name), std::string::npos) << name << ": " << err;
  }
  EXPECT_FALSE(WaitForPort(port, absl::Milliseconds(300)).ok()) << "the port was opened";
}

TEST(SinkSecurity, TheControlApiListensOnLoopbackByDefault) {
  std::string ip = NonLoopbackAddress();
  std::string dir = TempDir("sink_sec_loopback");
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto env = SinkEnv(broker.bootstrap, "orders", "loop-group", SampleDescriptorUrl());
  int port = FreePort();
  env["SINK_CONTROL_PORT"] = std::to_string(port);
  auto sink = StartSink(env, dir + "/sink");
  auto local = Channel("127.0.0.1", port);
  ASSERT_TRUE(local->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(15)))
      << sink->Stderr();
  grpc::ClientContext ctx;
  pb::GetStatusResponse status;
  EXPECT_TRUE(pb::SinkControl::NewStub(local)->GetStatus(&ctx, {}, &status).ok())
      << "loopback needs no token";
  if (ip.empty()) {
    GTEST_LOG_(INFO) << "no non-loopback IPv4 address here; skipping the remote check";
  } else {
    auto remote = Channel(ip, port);
    EXPECT_FALSE(
        remote->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(2)))
        << "reachable on " << ip;
  }
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << sink->Stderr();
}

// H5: one record with bytes \xff\xfe, INPUT_SCHEMA_DATA_TYPE=json,
// SINK_HTTP_DATA_FORMAT=json, no template: nlohmann's dump() threw on the
// worker thread and the sink restarted forever on the same record. JSON input
// is now parsed in the decode stage, so the record fails there as a
// DESERIALIZATION_ERROR; the http sink's own guard (a body that cannot be
// serialized fails alone as INVALID_MESSAGE_ERROR) is covered by
// HttpSinkSecurityTest.InvalidUtf8ValueFailsThatRecordAsInvalidMessage.
std::map<std::string, std::string> PoisonEnv(const std::string& bootstrap, const std::string& topic,
                                             const std::string& group, const std::string& url) {
  auto env = JsonSinkEnv(bootstrap, topic, group);
  env["SINK_TYPE"] = "http";
  env["SINK_HTTP_SERVICE_URL"] = url;
  env["SINK_HTTP_DATA_FORMAT"] = "json";
  return env;
}

TEST(SinkSecurity, AnUnserializableRecordGoesToTheDlqAndTheRestIsDelivered) {
  std::string dir = TempDir("sink_sec_poison_dlq");
  DevBroker broker = DevBroker::Start({"raw:1", "raw-dlq:1"}, dir);
  auto http = HttpTestServer::Start();
  ASSERT_TRUE(http.ok());
  ProduceRaw(broker.bootstrap, "raw", 0, {R"({"n":0})", "\xff\xfe", R"({"n":2})"});
  auto env = PoisonEnv(broker.bootstrap, "raw", "poison-dlq", (*http)->url() + "/in");
  env["DLQ_SINK_ENABLE"] = "true";
  env["DLQ_WRITER_TYPE"] = "KAFKA";
  env["DLQ_KAFKA_BROKERS"] = broker.bootstrap;
  env["DLQ_KAFKA_TOPIC"] = "raw-dlq";
  env["ERROR_TYPES_FOR_DLQ"] = "DESERIALIZATION_ERROR";
  env["ERROR_TYPES_FOR_FAILING"] = "INVALID_MESSAGE_ERROR";
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "poison-dlq", "raw", 1) == 3; },
                      absl::Seconds(30)))
      << sink->Stderr();
  auto dead = ReadAll(broker.bootstrap, "raw-dlq", 1, absl::Seconds(10));
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].value, "\xff\xfe");
  EXPECT_EQ(dead[0].headers["error_type"], "DESERIALIZATION_ERROR");
  EXPECT_EQ(dead[0].headers["source_topic"], "raw");
  EXPECT_EQ(dead[0].headers["source_offset"], "1");
  std::string delivered;
  for (const auto& r : (*http)->requests()) delivered += r.body;
  EXPECT_NE(delivered.find(R"({\"n\":0})"), std::string::npos) << delivered;
  EXPECT_NE(delivered.find(R"({\"n\":2})"), std::string::npos) << delivered;
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0) << "still running, stopped cleanly: "
                                              << sink->Stderr();
}

TEST(SinkSecurity, AnUnserializableRecordStopsTheSinkCleanlyByDefault) {
  std::string dir = TempDir("sink_sec_poison_stop");
  DevBroker broker = DevBroker::Start({"raw:1"}, dir);
  auto http = HttpTestServer::Start();
  ASSERT_TRUE(http.ok());
  ProduceRaw(broker.bootstrap, "raw", 0, {R"({"n":0})", "\xff\xfe", R"({"n":2})"});
  auto env = PoisonEnv(broker.bootstrap, "raw", "poison-stop", (*http)->url() + "/in");
  env["SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS"] = "1";  // the good record first, alone
  // DESERIALIZATION_ERROR is in the default ERROR_TYPES_FOR_FAILING: a clean
  // stop (exit 1, not an abort), twice in a row, naming the record.
  for (int run = 0; run < 2; ++run) {
    auto sink = StartSink(env, absl::StrCat(dir, "/sink", run));
    EXPECT_EQ(sink->Wait(absl::Seconds(30)), 1) << "run " << run << ": " << sink->Stderr();
    std::string err = sink->Stderr();
    EXPECT_NE(err.find("DESERIALIZATION_ERROR (in ERROR_TYPES_FOR_FAILING) for topic raw "
                       "partition 0 offset 1: JSON input"),
              std::string::npos)
        << err;
    EXPECT_EQ(err.find("terminate called"), std::string::npos) << err;
    EXPECT_EQ(Committed(broker.bootstrap, "poison-stop", "raw", 1)[0], 1)
        << "the record before is committed, the poison record is not";
  }
}

}  // namespace
}  // namespace sluice::integration
