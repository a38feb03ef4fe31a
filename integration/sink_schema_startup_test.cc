// The start-up schema fetch, end to end with the real sluice-sink (issue 29,
// item 6): SIGTERM while the fetch is retrying ends the process in bounded
// time, and a plain descriptor URL under the default VERSION_BASED_REFRESH
// says in the log what to set.
#include <signal.h>

#include <cstdio>
#include <memory>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/fake_http_server.h"
#include "integration/sink_harness.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"

namespace sluice::integration {
namespace {

namespace pb = ::sluice::sink::v1beta1;

TEST(SinkSchemaStartup, SigtermDuringSchemaFetchRetriesExitsPromptly) {
  std::string dir = TempDir("sink_schema_sigterm");
  auto http = FakeHttpServer::Start();
  ASSERT_NE(http, nullptr);
  // A descriptor file on a web server that is not there (yet).
  http->SetDefault("/stencil/orders.desc", {404, "not found"});
  http->SetDefault("/stencil/orders.desc/versions", {404, "not found"});
  // No broker is needed: the sink never gets past the schema fetch.
  auto env = SinkEnv("127.0.0.1:9", "orders", "schema-sigterm",
                     http->Url("/stencil/orders.desc"));
  env["SCHEMA_REGISTRY_STENCIL_ENABLE"] = "true";
  env.erase("SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY");  // Firehose's default
  env.erase("SCHEMA_REGISTRY_STENCIL_FETCH_BACKOFF_MIN_MS");  // 60 s, then 120 s
  env.erase("SCHEMA_REGISTRY_STENCIL_FETCH_RETRIES");
  const int port = FreePort();
  env["SINK_CONTROL_PORT"] = std::to_string(port);
  auto sink = StartSink(env, dir + "/sink");
  ASSERT_TRUE(WaitFor([&] { return sink->Stderr().find("retrying in") != std::string::npos; },
                      absl::Seconds(20)))
      << sink->Stderr();
  // The control API already answers, and says the sink has not started and why.
  auto channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials());
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(5)))
      << sink->Stderr();
  auto stub = pb::SinkControl::NewStub(channel);
  pb::GetStatusResponse status;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::Status rpc = stub->GetStatus(&ctx, {}, &status);
  ASSERT_TRUE(rpc.ok()) << rpc.error_message() << "\n" << sink->Stderr();
  EXPECT_FALSE(status.started());
  EXPECT_NE(status.not_started_reason().find("HTTP 404"), std::string::npos)
      << status.not_started_reason();
  EXPECT_NE(status.not_started_reason().find("SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY=LONG_POLLING"),
            std::string::npos)
      << status.not_started_reason();
  // The log names the variable to set for a plain descriptor URL.
  EXPECT_NE(sink->Stderr().find("SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY=LONG_POLLING"),
            std::string::npos)
      << sink->Stderr();
  const absl::Time start = absl::Now();
  sink->Signal(SIGTERM);
  const int code = sink->Wait(absl::Seconds(30));
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  std::printf("SIGTERM during the start-up schema fetch: exited %d after %.1f s\n", code, seconds);
  RecordProperty("sigterm_schema_fetch_exit_ms", static_cast<int>(seconds * 1000));
  ASSERT_NE(code, -1) << "still running 30 s after SIGTERM\n" << sink->Stderr();
  EXPECT_EQ(code, 0) << sink->Stderr();
  EXPECT_LT(seconds, 15) << sink->Stderr();
  // About 0.2 s without a control client; with one connected the control
  // server's 2 s shutdown grace adds to it.
  EXPECT_LT(seconds, 5) << sink->Stderr();
  EXPECT_NE(sink->Stderr().find("stopped during the start-up schema fetch"), std::string::npos)
      << sink->Stderr();
}

}  // namespace
}  // namespace sluice::integration
