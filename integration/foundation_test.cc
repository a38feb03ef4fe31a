// End to end: real PostgreSQL, sluice-server and sluice-gateway processes.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "integration/harness.h"
#include "integration/suite_stack.h"
#include "proto/sluice/server/v1beta1/server.grpc.pb.h"
#include "third_party/grpc_reflection/reflection.grpc.pb.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

class FoundationTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() { StartSuiteStack(""); }
  std::string Url(absl::string_view path) { return absl::StrCat(stack_->http_base(), path); }
};

void ExpectRpcStatus(const HttpResponse& r, long http, int code) {
  EXPECT_EQ(r.status, http) << r.body;
  json body = r.Json();
  ASSERT_TRUE(body.is_object()) << r.body;
  // Exactly {"code", "message", "details"}.
  EXPECT_EQ(body.size(), 3u) << r.body;
  EXPECT_EQ(body.value("code", -1), code) << r.body;
  ASSERT_TRUE(body.contains("message") && body["message"].is_string()) << r.body;
  EXPECT_FALSE(body["message"].get<std::string>().empty());
  ASSERT_TRUE(body.contains("details") && body["details"].is_array()) << r.body;
  EXPECT_EQ(r.headers.count("content-type"), 1u);
}

TEST_F(FoundationTest, HealthIsServing) {
  auto r = Http("GET", Url("/healthz"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Json()["status"], "SERVING");
}

TEST_F(FoundationTest, ServesOpenApiDocument) {
  auto r = Http("GET", Url("/api/openapi.json"));
  ASSERT_EQ(r.status, 200);
  json doc = r.Json();
  EXPECT_EQ(doc["swagger"], "2.0");
  EXPECT_EQ(doc["info"]["title"], "Sluice API");
  EXPECT_TRUE(doc["paths"].contains("/api/v1beta1/server-info")) << r.body.substr(0, 500);
  EXPECT_TRUE(doc["paths"].contains("/api/v1beta1/echo"));
}

TEST_F(FoundationTest, UnknownRouteIsRpcStatusNotFound) {
  auto r = Http("GET", Url("/api/v1beta1/no-such-thing"));
  ExpectRpcStatus(r, 404, 5);
  auto r2 = Http("GET", Url("/"));
  ExpectRpcStatus(r2, 404, 5);
}

TEST_F(FoundationTest, WrongMethodIsRpcStatusUnimplemented) {
  auto r = Http("DELETE", Url("/api/v1beta1/server-info"));
  ExpectRpcStatus(r, 405, 12);
}

TEST_F(FoundationTest, MalformedJsonBodyIsInvalidArgument) {
  auto r = Http("POST", Url("/api/v1beta1/echo"), "{\"message\": ");
  ExpectRpcStatus(r, 400, 3);
  auto r2 = Http("POST", Url("/api/v1beta1/echo"), "{\"message\": 12}");
  ExpectRpcStatus(r2, 400, 3);
}

TEST_F(FoundationTest, AuthEmailHeaderReachesTheServer) {
  auto r = Http("GET", Url("/api/v1beta1/server-info"), "", {"X-Auth-Email: alice@example.com"});
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.Json();
  EXPECT_EQ(body["caller_email"], "alice@example.com");
  EXPECT_EQ(body["version"], "0.1.0");
  // Every call needs an identity now (finding C1): no header is a 401.
  auto anon = Http("GET", Url("/api/v1beta1/server-info"));
  ExpectRpcStatus(anon, 401, 16);
  auto echo = Http("POST", Url("/api/v1beta1/echo"), R"({"message":"hi"})",
                   {"X-Auth-Email: bob@example.com"});
  EXPECT_EQ(echo.Json()["message"], "hi");
  EXPECT_EQ(echo.Json()["caller_email"], "bob@example.com");
}

TEST_F(FoundationTest, NoGrpcMetadataHeadersLeak) {
  auto r = Http("GET", Url("/api/v1beta1/server-info"));
  for (const auto& [k, v] : r.headers) {
    EXPECT_NE(k.rfind("grpc-metadata-", 0), 0u) << k;
  }
}

TEST_F(FoundationTest, GrpcAndRestShareCodeAndMessage) {
  std::string big(5000, 'x');
  auto rest = Http("POST", Url("/api/v1beta1/echo"), json{{"message", big}}.dump(),
                   {"X-Auth-Email: a@example.com"});
  ExpectRpcStatus(rest, 400, 3);

  auto channel = grpc::CreateChannel(stack_->grpc_target(), grpc::InsecureChannelCredentials());
  auto stub = sluice::server::v1beta1::ServerService::NewStub(channel);
  auto ctx = stack_->GrpcContext("a@example.com");
  sluice::server::v1beta1::EchoRequest req;
  req.set_message(big);
  sluice::server::v1beta1::EchoResponse resp;
  grpc::Status st = stub->Echo(ctx.get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), rest.Json()["message"].get<std::string>());
  EXPECT_NE(st.error_message().find("message:"), std::string::npos);
}

TEST_F(FoundationTest, ReflectionListsServices) {
  auto channel = grpc::CreateChannel(stack_->grpc_target(), grpc::InsecureChannelCredentials());
  auto stub = grpc::reflection::v1alpha::ServerReflection::NewStub(channel);
  grpc::ClientContext ctx;
  auto stream = stub->ServerReflectionInfo(&ctx);
  grpc::reflection::v1alpha::ServerReflectionRequest req;
  req.set_list_services("");
  ASSERT_TRUE(stream->Write(req));
  stream->WritesDone();
  grpc::reflection::v1alpha::ServerReflectionResponse resp;
  ASSERT_TRUE(stream->Read(&resp));
  std::set<std::string> names;
  for (const auto& s : resp.list_services_response().service()) names.insert(s.name());
  EXPECT_TRUE(names.count("sluice.server.v1beta1.ServerService"));
  EXPECT_TRUE(names.count("grpc.health.v1.Health"));
  EXPECT_TRUE(names.count("grpc.reflection.v1alpha.ServerReflection"));
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(FoundationTest, MetricsCountRpcsByMethodAndCode) {
  Http("GET", Url("/api/v1beta1/server-info"), "", {"X-Auth-Email: a@example.com"});
  auto r = Http("GET", absl::StrCat("http://127.0.0.1:", stack_->metrics_port(), "/metrics"));
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"GetServerInfo\""),
            std::string::npos)
      << r.body.substr(0, 2000);
  EXPECT_NE(r.body.find("grpc_server_handling_seconds_bucket"), std::string::npos);
}

TEST_F(FoundationTest, SluicectlServerInfo) {
  auto ctl = Process::Start({Runfile("cli/sluicectl"), "--host", stack_->grpc_target(), "--email",
                             "carol@example.com", "--json", "server-info"},
                            stack_->ClientEnv());
  ASSERT_TRUE(ctl.ok());
  EXPECT_EQ((*ctl)->Wait(absl::Seconds(20)), 0) << (*ctl)->Output();
  auto out = nlohmann::json::parse((*ctl)->Output(), nullptr, false);
  EXPECT_EQ(out["caller_email"], "carol@example.com") << (*ctl)->Output();

  auto down = Process::Start({Runfile("cli/sluicectl"), "--host", "127.0.0.1:1", "server-info"});
  ASSERT_TRUE(down.ok());
  EXPECT_EQ((*down)->Wait(absl::Seconds(40)), 1);
  EXPECT_NE((*down)->Output().find("error: 14:"), std::string::npos) << (*down)->Output();
}

// The gateway's /metrics (its own port): requests by route template, method
// and status code, and latency by route template. A path no route serves is
// "unmatched", so what clients send cannot grow the label set.
TEST_F(FoundationTest, GatewayMetricsCountRequestsByRouteTemplate) {
  const std::vector<std::string> alice = {"X-Auth-Email: alice@example.com"};
  ASSERT_EQ(Http("GET", Url("/api/v1beta1/server-info"), "", alice).status, 200);
  ASSERT_EQ(Http("GET", Url("/api/v1beta1/providers/987654"), "", alice).status, 404);
  ASSERT_EQ(Http("GET", Url("/api/v1beta1/providers/types"), "", alice).status, 200);
  ASSERT_EQ(Http("GET", Url("/api/v1beta1/no-such-thing-4711")).status, 404);
  ASSERT_EQ(Http("GET", Url("/ping")).status, 200);
  auto m = Http("GET", absl::StrCat("http://127.0.0.1:", stack_->gateway_metrics_port(), "/metrics"));
  ASSERT_EQ(m.status, 200) << m.body;
  for (const char* series : {
           R"(sluice_gateway_requests_total{code="200",method="GET",route="/api/v1beta1/server-info"})",
           R"(sluice_gateway_requests_total{code="404",method="GET",route="/api/v1beta1/providers/{id}"})",
           R"(sluice_gateway_requests_total{code="200",method="GET",route="/api/v1beta1/providers/types"})",
           R"(sluice_gateway_requests_total{code="404",method="GET",route="unmatched"})",
           R"(sluice_gateway_requests_total{code="200",method="GET",route="/ping"})",
           R"(sluice_gateway_request_duration_seconds_count{method="GET",route="/api/v1beta1/server-info"})",
       }) {
    EXPECT_NE(m.body.find(series), std::string::npos) << series << "\n" << m.body.substr(0, 3000);
  }
  EXPECT_EQ(m.body.find("no-such-thing-4711"), std::string::npos);
  EXPECT_EQ(m.body.find("987654"), std::string::npos);
}

// A client's W3C traceparent is taken up (the gateway continues that trace)
// and an invalid one is ignored: neither changes the answer.
TEST_F(FoundationTest, GatewayAcceptsTraceparentFromClients) {
  const std::string url = Url("/api/v1beta1/server-info");
  for (const char* tp : {"traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                         "traceparent: zz-not-a-trace", "traceparent: 00-0000-00-00"}) {
    auto r = Http("GET", url, "", {"X-Auth-Email: alice@example.com", tp});
    EXPECT_EQ(r.status, 200) << tp << " " << r.body;
  }
}

// Runs last in this suite (gtest runs in declaration order): it stops the server.
TEST_F(FoundationTest, ZBackendDownIsUnavailableAndShutdownIsClean) {
  int status = stack_->server().Stop(absl::Seconds(15));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << stack_->server().Output();
  EXPECT_NE(stack_->server().Output().find("msg=\"stopped\""), std::string::npos);
  auto r = Http("GET", Url("/api/v1beta1/server-info"));
  ExpectRpcStatus(r, 503, 14);
  auto health = Http("GET", Url("/healthz"));
  ExpectRpcStatus(health, 503, 14);
}

}  // namespace
}  // namespace sluice::integration
