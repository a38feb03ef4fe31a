#include "sink/control/control_service.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "grpcpp/health_check_service_interface.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "sink/sample/sample_gen.h"

namespace sluice::sink {
namespace {

namespace pb = ::sluice::sink::v1beta1;

struct Fixture {
  Env env{{{"SINK_TYPE", "log"},
           {"SOURCE_KAFKA_BROKERS", "127.0.0.1:1"},
           {"SOURCE_KAFKA_TOPIC", "orders"},
           {"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g"},
           {"INPUT_SCHEMA_PROTO_CLASS", "io.sluice.sample.SampleProto$SampleLogMessage"},
           {"SCHEMA_REGISTRY_STENCIL_URLS", "file://sink/sample/sample_cc.desc"},
           {"FILTER_ENGINE", "JEXL"},
           {"FILTER_DATA_SOURCE", "MESSAGE"},
           {"FILTER_JEXL_EXPRESSION", "sampleLogMessage.getDriverId() == \"driver-1\""},
           {"FILTER_SCHEMA_PROTO_CLASS", "sluice.sample.SampleLogMessage"},
           {"SINK_JDBC_PASSWORD", "hunter2"},
           {"SINK_HTTP_HEADERS", "Authorization:Bearer abc.def, X-Team:core"},
           {"SINK_JDBC_URL", "jdbc:postgresql://w:pw@db/a?password=pw2"},
           {"SINK_HTTPV2_HEADERS_TEMPLATE", R"({"X-Api-Key":"header-template-secret-456"})"},
           {"SINK_HTTPV2_QUERY_TEMPLATE", R"({"api_key":"query-template-secret-789"})"},
           {"HOME", "/root"}}};
  SinkConfig config;
  WorkerControl control;
  std::unique_ptr<SchemaRegistry> registry;
  std::unique_ptr<ControlServer> server;
  std::unique_ptr<pb::SinkControl::Stub> stub;
  std::shared_ptr<grpc::Channel> channel;

  // `control` is SINK_CONTROL_*; the port is always 0 (a free one).
  explicit Fixture(ControlConfig control_config = {}) {
    config = *ParseSinkConfig(env);
    registry = *SchemaRegistry::Create(config.schema);
    control_config.port = 0;
    auto started = ControlServer::Start(control_config, {&env, &config, &control, registry.get()});
    EXPECT_TRUE(started.ok()) << started.status();
    server = *std::move(started);
    channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()),
                                  grpc::InsecureChannelCredentials());
    stub = pb::SinkControl::NewStub(channel);
  }
};

TEST(ControlService, StatusMasksSecretsAndReportsState) {
  Fixture fx;
  fx.control.ReportPartitions(0, {PartitionStatus{{"orders", 1}, 10, 12, 20, 8, false}});
  fx.control.AddCounts({.consumed = 5, .filtered = 2});
  fx.control.SetLastError("boom");
  grpc::ClientContext ctx;
  pb::GetStatusResponse resp;
  ASSERT_TRUE(fx.stub->GetStatus(&ctx, {}, &resp).ok());
  EXPECT_EQ(resp.config().at("SINK_JDBC_PASSWORD"), "****");
  // Secrets inside readable values (review H6).
  EXPECT_EQ(resp.config().at("SINK_HTTP_HEADERS"), "Authorization:Bearer ****, X-Team:core");
  EXPECT_EQ(resp.config().at("SINK_JDBC_URL"), "jdbc:postgresql://w:****@db/a?password=****");
  // And inside the HTTPV2 JSON templates (review R3-L1).
  EXPECT_EQ(resp.config().at("SINK_HTTPV2_HEADERS_TEMPLATE"), R"({"X-Api-Key":"****"})");
  EXPECT_EQ(resp.config().at("SINK_HTTPV2_QUERY_TEMPLATE"), R"({"api_key":"****"})");
  EXPECT_EQ(resp.config().at("SOURCE_KAFKA_TOPIC"), "orders");
  EXPECT_EQ(resp.config().count("HOME"), 0u);
  EXPECT_EQ(resp.sink_type(), "log");
  EXPECT_EQ(resp.consumer_group(), "g");
  ASSERT_EQ(resp.partitions_size(), 1);
  EXPECT_EQ(resp.partitions(0).lag(), 8);
  EXPECT_EQ(resp.partitions(0).committed_offset(), 10);
  EXPECT_EQ(resp.counters().consumed(), 5);
  EXPECT_EQ(resp.counters().filtered(), 2);
  EXPECT_EQ(resp.last_error(), "boom");
  EXPECT_NE(resp.filter_expression().find("driver-1"), std::string::npos);
}

TEST(ControlService, PauseAndResume) {
  Fixture fx;
  grpc::ClientContext c1, c2;
  pb::PauseResponse p;
  ASSERT_TRUE(fx.stub->Pause(&c1, {}, &p).ok());
  EXPECT_TRUE(fx.control.Paused());
  pb::ResumeResponse r;
  ASSERT_TRUE(fx.stub->Resume(&c2, {}, &r).ok());
  EXPECT_FALSE(fx.control.Paused());
}

TEST(ControlService, TestFilterWithConfiguredAndGivenExpressions) {
  Fixture fx;
  pb::TestFilterRequest req;
  for (int i = 0; i < 3; ++i) req.add_records()->set_value(sample::SampleBytes(i, 0));
  req.add_records()->set_value("\xff\xff");
  grpc::ClientContext c1;
  pb::TestFilterResponse resp;
  ASSERT_TRUE(fx.stub->TestFilter(&c1, req, &resp).ok());
  EXPECT_EQ(resp.variable(), "sampleLogMessage");
  ASSERT_EQ(resp.results_size(), 4);
  EXPECT_FALSE(resp.results(0).kept());
  EXPECT_TRUE(resp.results(1).kept());
  EXPECT_NE(resp.results(1).message_text().find("driver-1"), std::string::npos);
  EXPECT_FALSE(resp.results(3).error().empty());

  req.set_expression("sampleLogMessage.getStatus() == \"ONLINE\"");
  grpc::ClientContext c2;
  ASSERT_TRUE(fx.stub->TestFilter(&c2, req, &resp).ok());
  EXPECT_TRUE(resp.results(0).kept());
  EXPECT_FALSE(resp.results(1).kept());

  req.set_expression("sampleLogMessage.getStatus() == ");
  grpc::ClientContext c3;
  grpc::Status s = fx.stub->TestFilter(&c3, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("column"), std::string::npos) << s.error_message();
}

// JSON input has no schema registry: TestFilter evaluates JEXL over the JSON
// record, bound as `message`.
TEST(ControlService, TestFilterOverJsonRecords) {
  Env env{{{"SINK_TYPE", "log"},
           {"SOURCE_KAFKA_BROKERS", "127.0.0.1:1"},
           {"SOURCE_KAFKA_TOPIC", "rides"},
           {"SOURCE_KAFKA_CONSUMER_GROUP_ID", "g"},
           {"INPUT_SCHEMA_DATA_TYPE", "json"}}};
  auto config = ParseSinkConfig(env);
  ASSERT_TRUE(config.ok()) << config.status();
  WorkerControl control;
  ControlConfig cc;
  cc.port = 0;
  auto server = ControlServer::Start(cc, {&env, &*config, &control, /*registry=*/nullptr});
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = pb::SinkControl::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string((*server)->port()), grpc::InsecureChannelCredentials()));
  pb::TestFilterRequest req;
  req.set_expression("message.getDriver().getName() == 'ana'");
  req.add_records()->set_value(R"({"driver": {"name": "ana"}})");
  req.add_records()->set_value(R"({"driver": {"name": "bo"}})");
  req.add_records()->set_value("{");
  grpc::ClientContext ctx;
  pb::TestFilterResponse resp;
  grpc::Status s = stub->TestFilter(&ctx, req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(resp.variable(), "message");
  ASSERT_EQ(resp.results_size(), 3);
  EXPECT_TRUE(resp.results(0).kept());
  EXPECT_EQ(resp.results(0).message_text(), R"({"driver":{"name":"ana"}})");
  EXPECT_FALSE(resp.results(1).kept());
  EXPECT_NE(resp.results(2).error().find("JSON input"), std::string::npos) << resp.results(2).error();
}

}  // namespace
}  // namespace sluice::sink
