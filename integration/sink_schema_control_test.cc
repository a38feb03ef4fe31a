// Schema refresh over HTTP without a restart, and the SinkControl gRPC API
// of a running sluice-sink.
#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <set>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "integration/sink_harness.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "third_party/grpc_reflection/reflection.grpc.pb.h"
#include "sink/sample/sample_gen.h"

namespace sluice::integration {
namespace {

namespace pb = ::sluice::sink::v1beta1;

void Copy(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to + ".tmp", std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
  out.close();
  std::rename((to + ".tmp").c_str(), to.c_str());
}

TEST(SinkSchema, RefreshPicksUpANewFieldWithoutRestart) {
  std::string dir = TempDir("sink_schema");
  std::string www = dir + "/www";
  mkdir(www.c_str(), 0755);
  Copy("sink/sample/sample_cc.desc", www + "/sample.desc");
  int port = FreePort();
  auto http = StartChild({"/usr/bin/python3", "-m", "http.server", std::to_string(port), "--bind",
                          "127.0.0.1", "--directory", www},
                         {}, dir + "/http");
  std::string url = absl::StrCat("http://127.0.0.1:", port, "/sample.desc");
  ASSERT_TRUE(WaitFor([&] { return system(("curl -sf -o /dev/null " + url).c_str()) == 0; },
                      absl::Seconds(10)));
  DevBroker broker = DevBroker::Start({"orders:1"}, dir);
  auto env = SinkEnv(broker.bootstrap, "orders", "schema-group", url);
  env["SCHEMA_REGISTRY_STENCIL_CACHE_AUTO_REFRESH"] = "true";
  env["SCHEMA_REGISTRY_STENCIL_CACHE_TTL_MS"] = "300";
  auto sink = StartSink(env, dir + "/sink");
  ProduceSamples(broker.bootstrap, "orders", 0, 5, /*v2=*/true);
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=orders") == 5; },
                      absl::Seconds(30)))
      << sink->Stderr();
  EXPECT_EQ(CountLines(sink->Output(), "vehicle_type"), 0) << "v1 does not know field 10";

  Copy("sink/sample/testdata/sample_v2_cc.desc", www + "/sample.desc");
  ASSERT_TRUE(WaitFor([&] { return sink->Stderr().find("loaded a new schema") != std::string::npos; },
                      absl::Seconds(10)));
  ProduceSamples(broker.bootstrap, "orders", 100, 5, /*v2=*/true);
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=orders") == 10; },
                      absl::Seconds(20)));
  EXPECT_EQ(CountLines(sink->Output(), "vehicle_type: \"bike\""), 5) << sink->Output();
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0);
  http->Signal(SIGTERM);
  http->Wait(absl::Seconds(5));
}

TEST(SinkControl, StatusPauseResumeAndTestFilter) {
  std::string dir = TempDir("sink_control");
  DevBroker broker = DevBroker::Start({"orders:2"}, dir);
  auto env = SinkEnv(broker.bootstrap, "orders", "control-group", SampleDescriptorUrl());
  int port = FreePort();
  env["SINK_CONTROL_PORT"] = std::to_string(port);
  env["SINK_HTTP_PASSWORD"] = "hunter2";
  env["FILTER_ENGINE"] = "JEXL";
  env["FILTER_DATA_SOURCE"] = "MESSAGE";
  env["FILTER_SCHEMA_PROTO_CLASS"] = "sluice.sample.SampleLogMessage";
  env["FILTER_JEXL_EXPRESSION"] = "sampleLogMessage.getAmountPaidCents() >= 0";
  auto sink = StartSink(env, dir + "/sink");
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials());
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(15)))
      << sink->Stderr();
  auto stub = pb::SinkControl::NewStub(channel);
  {
    // Reflection (for grpcurl) lists the control API and the health service.
    auto refl = grpc::reflection::v1alpha::ServerReflection::NewStub(channel);
    grpc::ClientContext ctx;
    auto stream = refl->ServerReflectionInfo(&ctx);
    grpc::reflection::v1alpha::ServerReflectionRequest req;
    req.set_list_services("");
    ASSERT_TRUE(stream->Write(req));
    stream->WritesDone();
    grpc::reflection::v1alpha::ServerReflectionResponse resp;
    ASSERT_TRUE(stream->Read(&resp));
    std::set<std::string> names;
    for (const auto& s : resp.list_services_response().service()) names.insert(s.name());
    EXPECT_TRUE(names.count("sluice.sink.v1beta1.SinkControl"));
    EXPECT_TRUE(names.count("grpc.health.v1.Health"));
    EXPECT_TRUE(stream->Finish().ok());
  }
  ProduceSamples(broker.bootstrap, "orders", 0, 100);
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=orders") == 100; },
                      absl::Seconds(30)));

  pb::GetStatusResponse status;
  ASSERT_TRUE(WaitFor(
      [&] {
        grpc::ClientContext ctx;
        status.Clear();
        if (!stub->GetStatus(&ctx, {}, &status).ok()) return false;
        int64_t committed = 0;
        for (const auto& p : status.partitions()) committed += std::max<int64_t>(0, p.committed_offset());
        return status.partitions_size() == 2 && committed == 100;
      },
      absl::Seconds(10)))
      << status.DebugString();
  EXPECT_EQ(status.config().at("SINK_HTTP_PASSWORD"), "****");
  EXPECT_EQ(status.counters().consumed(), 100);
  EXPECT_EQ(status.consumer_group(), "control-group");
  for (const auto& p : status.partitions()) EXPECT_EQ(p.lag(), 0) << p.DebugString();

  {
    grpc::ClientContext ctx;
    pb::PauseResponse r;
    ASSERT_TRUE(stub->Pause(&ctx, {}, &r).ok());
  }
  absl::SleepFor(absl::Milliseconds(500));  // the workers apply it within a poll slice
  ProduceSamples(broker.bootstrap, "orders", 100, 50);
  absl::SleepFor(absl::Seconds(2));
  EXPECT_EQ(CountLines(sink->Output(), "topic=orders"), 100) << "paused: nothing consumed";
  {
    grpc::ClientContext ctx;
    status.Clear();
    ASSERT_TRUE(stub->GetStatus(&ctx, {}, &status).ok());
    EXPECT_TRUE(status.paused());
  }

  // TestFilter reads the next records (the 50 not yet consumed) without committing.
  pb::TestFilterRequest req;
  req.set_expression("sampleLogMessage.getDriverId() == \"driver-3\"");
  req.set_next_records(50);
  req.set_timeout_ms(10000);
  pb::TestFilterResponse tf;
  {
    grpc::ClientContext ctx;
    grpc::Status s = stub->TestFilter(&ctx, req, &tf);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  ASSERT_EQ(tf.results_size(), 50);
  int kept = 0;
  for (const auto& r : tf.results()) kept += r.kept() ? 1 : 0;
  EXPECT_EQ(kept, 5);  // records 103, 113, ..., 143
  EXPECT_EQ(CommittedSum(broker.bootstrap, "control-group", "orders", 2), 100);

  {
    grpc::ClientContext ctx;
    pb::ResumeResponse r;
    ASSERT_TRUE(stub->Resume(&ctx, {}, &r).ok());
  }
  ASSERT_TRUE(WaitFor([&] { return CountLines(sink->Output(), "topic=orders") == 150; },
                      absl::Seconds(15)));
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "control-group", "orders", 2) == 150; },
                      absl::Seconds(10)));
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0);
}

}  // namespace
}  // namespace sluice::integration
