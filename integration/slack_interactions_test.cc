// The gateway's Slack interactivity URL (POST /slack/interactions, issue 44),
// through the real sluice-gateway binary:
//   - against a fake SlackInteractionService (no database): what the gateway
//     refuses before any call, and exactly what a call carries (the raw body,
//     the two Slack headers, the proxy token, no identity) and how its answer
//     and errors come back;
//   - against a real sluice-server: the form-encoded POST reaches the server.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "integration/harness.h"
#include "integration/process.h"
#include "integration/suite_stack.h"
#include "proto/sluice/slack/v1/interactions.grpc.pb.h"

namespace sluice::integration {
namespace {

using nlohmann::json;
using slack::v1::HandleInteractionRequest;
using slack::v1::HandleInteractionResponse;

constexpr char kForm[] = "application/x-www-form-urlencoded";
constexpr char kProxyToken[] = "slack-test-proxy-token-0123456789";

// One HandleInteraction call as the fake received it.
struct SeenCall {
  HandleInteractionRequest request;
  std::multimap<std::string, std::string> metadata;
};

// SlackInteractionService answering what the test sets, recording each call.
class FakeSlackInteractions final : public slack::v1::SlackInteractionService::Service {
 public:
  grpc::Status HandleInteraction(grpc::ServerContext* context, const HandleInteractionRequest* request,
                                 HandleInteractionResponse* response) override {
    absl::MutexLock lock(&mu_);
    SeenCall call{*request, {}};
    for (const auto& [k, v] : context->client_metadata()) {
      call.metadata.emplace(std::string(k.data(), k.size()), std::string(v.data(), v.size()));
    }
    calls_.push_back(std::move(call));
    if (!answer_.ok()) return answer_;
    response->set_response_json(response_json_);
    return grpc::Status::OK;
  }
  // The next calls answer `status`, or OK with `response_json`.
  void Answer(grpc::Status status, std::string response_json = "") {
    absl::MutexLock lock(&mu_);
    answer_ = std::move(status);
    response_json_ = std::move(response_json);
  }
  std::vector<SeenCall> TakeCalls() {
    absl::MutexLock lock(&mu_);
    return std::exchange(calls_, {});
  }

 private:
  absl::Mutex mu_;
  grpc::Status answer_ ABSL_GUARDED_BY(mu_);
  std::string response_json_ ABSL_GUARDED_BY(mu_);
  std::vector<SeenCall> calls_ ABSL_GUARDED_BY(mu_);
};

// Starts sluice-gateway against `backend` with the proxy token and `extra`
// flags; null (with a test failure) when it does not listen.
std::unique_ptr<Process> StartGateway(const std::string& backend, int http_port, int metrics_port,
                                      const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {Runfile("gateway/sluice-gateway"),
                                   "--http_host", "127.0.0.1",
                                   "--http_port", std::to_string(http_port),
                                   "--backend", backend,
                                   "--metrics_host", "127.0.0.1",
                                   "--metrics_port", std::to_string(metrics_port)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto p = Process::Start(argv, std::map<std::string, std::string>{{"SLUICE_PROXY_TOKEN", kProxyToken}});
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return nullptr;
  auto st = WaitForPort(http_port, absl::Seconds(20));
  EXPECT_TRUE(st.ok()) << (*p)->Output();
  return st.ok() ? std::move(*p) : nullptr;
}

// `r` is an rpcStatus body with this HTTP status and code whose message
// contains `text`.
void ExpectRpcStatus(const HttpResponse& r, long http, int code, const std::string& text = "") {
  EXPECT_EQ(r.status, http) << r.body;
  json body = r.Json();
  ASSERT_TRUE(body.is_object()) << r.body;
  EXPECT_EQ(body.size(), 3u) << r.body;
  EXPECT_EQ(body.value("code", -1), code) << r.body;
  EXPECT_TRUE(body["details"].is_array()) << r.body;
  EXPECT_NE(body.value("message", "").find(text), std::string::npos) << text << " in " << r.body;
  EXPECT_EQ(r.headers.count("content-type") ? r.headers.at("content-type") : "", "application/json");
}

class SlackInteractionsGatewayTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    fake_ = new FakeSlackInteractions();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(fake_);
    server_ = builder.BuildAndStart().release();
    ASSERT_NE(server_, nullptr);
    backend_ = new std::string(absl::StrCat("127.0.0.1:", port));
    http_port_ = FreePort();
    metrics_port_ = FreePort();
    gateway_ = StartGateway(*backend_, http_port_, metrics_port_).release();
    ASSERT_NE(gateway_, nullptr);
  }
  static void TearDownTestSuite() {
    delete gateway_;
    if (server_ != nullptr) server_->Shutdown();
    delete server_;
    delete fake_;
    delete backend_;
  }
  void SetUp() override {
    ASSERT_NE(gateway_, nullptr);
    fake_->Answer(grpc::Status::OK);
    fake_->TakeCalls();
  }
  static std::string Url(absl::string_view path = "/slack/interactions") {
    return absl::StrCat("http://127.0.0.1:", http_port_, path);
  }

  static inline FakeSlackInteractions* fake_ = nullptr;
  static inline grpc::Server* server_ = nullptr;
  static inline std::string* backend_ = nullptr;
  static inline Process* gateway_ = nullptr;
  static inline int http_port_ = 0, metrics_port_ = 0;
};

// The call carries the body's bytes as sent, the two Slack headers, the hop
// proof once and the gateway's traceparent, and no header a client could
// name someone with; the answer's response_json is the body.
TEST_F(SlackInteractionsGatewayTest, ForwardsRawBodyAndSlackHeadersWithHopProofButNoIdentity) {
  // Percent escapes, '+' and a raw '%2B' must arrive undecoded: the signature covers the bytes.
  const std::string body =
      "payload=%7B%22type%22%3A%22block_actions%22%2C%22text%22%3A%22a+b%2Bc%22%7D&extra=%E2%9C%93";
  fake_->Answer(grpc::Status::OK, R"({"response_action":"clear"})");
  auto r = Http("POST", Url(), body,
                {absl::StrCat("Content-Type: ", kForm), "X-Slack-Request-Timestamp: 1531420618",
                 "X-Slack-Signature: v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
                 "X-Auth-Email: mallory@example.com", "Grpc-Metadata-X-Auth-Email: mallory@example.com",
                 "Authorization: Bearer not-forwarded", "X-Sluice-Proxy-Token: client-copy",
                 "Idempotency-Key: k1"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"response_action":"clear"})");
  EXPECT_EQ(r.headers["content-type"], "application/json");

  auto calls = fake_->TakeCalls();
  ASSERT_EQ(calls.size(), 1u);
  const SeenCall& c = calls[0];
  EXPECT_EQ(c.request.body(), body);
  EXPECT_EQ(c.request.timestamp(), "1531420618");
  EXPECT_EQ(c.request.signature(),
            "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503");
  auto tokens = c.metadata.equal_range("x-sluice-proxy-token");
  ASSERT_EQ(std::distance(tokens.first, tokens.second), 1);
  EXPECT_EQ(tokens.first->second, kProxyToken);
  EXPECT_EQ(c.metadata.count("traceparent"), 1u);
  for (const auto& [key, value] : c.metadata) {
    EXPECT_FALSE(key == "x-auth-email" || key == "authorization" || key == "idempotency-key" ||
                 absl::StartsWith(key, "grpc-metadata") || absl::StartsWith(key, "x-forwarded") ||
                 absl::StrContains(value, "mallory"))
        << key << ": " << value;
  }
}

// Slack's own shape: charset utf-8 on the type; an empty response_json is an
// empty 200.
TEST_F(SlackInteractionsGatewayTest, EmptyResponseJsonIsAnEmpty200) {
  auto r = Http("POST", Url(), "payload=%7B%7D",
                {"Content-Type: application/x-www-form-urlencoded; charset=utf-8"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(fake_->TakeCalls().size(), 1u);
}

// The server's refusals come back as on every other route.
TEST_F(SlackInteractionsGatewayTest, ServerErrorsMapAsOnOtherRoutes) {
  const std::vector<std::string> form = {absl::StrCat("Content-Type: ", kForm)};
  fake_->Answer(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "X-Slack-Signature does not match"));
  ExpectRpcStatus(Http("POST", Url(), "payload=%7B%7D", form), 401, 16, "X-Slack-Signature");
  fake_->Answer(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no payload"));
  ExpectRpcStatus(Http("POST", Url(), "x=1", form), 400, 3, "no payload");
  fake_->Answer(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "not configured"));
  ExpectRpcStatus(Http("POST", Url(), "x=1", form), 400, 9, "not configured");
  EXPECT_EQ(fake_->TakeCalls().size(), 3u);
}

// What the gateway refuses itself, without calling the server.
TEST_F(SlackInteractionsGatewayTest, RefusalsBeforeAnyCall) {
  const std::string form = absl::StrCat("Content-Type: ", kForm);
  // Any other type, named; the writeGuard's JSON is no exception here.
  ExpectRpcStatus(Http("POST", Url(), R"({"payload":{}})"), 415, 3, "\"application/json\"");
  ExpectRpcStatus(Http("POST", Url(), "payload=x", {"Content-Type: text/plain"}), 415, 3,
                  "\"text/plain\"");
  ExpectRpcStatus(Http("POST", Url(), "payload=x", {"Content-Type: multipart/form-data; boundary=b"}),
                  415, 3, "multipart/form-data");
  ExpectRpcStatus(
      Http("POST", Url(), "payload=x", {"Content-Type: application/x-www-form-urlencoded; charset=latin1"}),
      415, 3, "charset=latin1");
  ExpectRpcStatus(Http("POST", Url(), "", {"Content-Type:"}), 415, 3, kForm);
  // POST only.
  for (const char* method : {"GET", "PUT", "DELETE", "PATCH"}) {
    auto r = Http(method, Url(), "", {form});
    ExpectRpcStatus(r, 405, 12, absl::StrCat("method ", method, " not allowed for /slack/interactions"));
    EXPECT_EQ(r.headers["allow"], "POST");
  }
  // 1 MiB, announced or found while reading a chunked body.
  const std::string big = "payload=" + std::string((1 << 20) - 7, 'a');
  ExpectRpcStatus(Http("POST", Url(), big, {form}), 413, 8, "1048577 bytes exceeds the limit of 1048576");
  ExpectRpcStatus(Http("POST", Url(), big, {form, "Transfer-Encoding: chunked"}), 413, 8,
                  "more than 1048576 bytes");
  // Another site's page: refused as every write.
  ExpectRpcStatus(Http("POST", Url(), "payload=x", {form, "Origin: https://evil.example"}), 403, 7,
                  "https://evil.example");
  ExpectRpcStatus(Http("POST", Url(), "payload=x", {form, "Sec-Fetch-Site: cross-site"}), 403, 7,
                  "cross-site");
  EXPECT_TRUE(fake_->TakeCalls().empty());

  // Exactly 1 MiB is accepted.
  EXPECT_EQ(Http("POST", Url(), big.substr(1), {form}).status, 200);
  auto calls = fake_->TakeCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].request.body().size(), 1u << 20);
}

// The form rule holds on this path only: elsewhere a form is still 415.
TEST_F(SlackInteractionsGatewayTest, OtherPathsKeepTheJsonRule) {
  const std::string form = absl::StrCat("Content-Type: ", kForm);
  ExpectRpcStatus(Http("POST", Url("/slack/interactions/x"), "payload=x", {form}), 415, 3, kForm);
  ExpectRpcStatus(Http("POST", Url("/slack/interactionsx"), "payload=x", {form}), 415, 3, kForm);
  ExpectRpcStatus(Http("POST", Url("/api/v1beta1/echo"), "payload=x", {form}), 415, 3, kForm);
  EXPECT_TRUE(fake_->TakeCalls().empty());
}

// The route label is the path; the span is named after it.
TEST_F(SlackInteractionsGatewayTest, MetricsLabelTheRouteByItsPath) {
  ASSERT_EQ(Http("POST", Url(), "payload=x", {absl::StrCat("Content-Type: ", kForm)}).status, 200);
  ASSERT_EQ(Http("GET", Url()).status, 405);
  auto m = Http("GET", absl::StrCat("http://127.0.0.1:", metrics_port_, "/metrics"));
  ASSERT_EQ(m.status, 200);
  for (const char* series : {
           R"(sluice_gateway_requests_total{code="200",method="POST",route="/slack/interactions"})",
           R"(sluice_gateway_requests_total{code="405",method="GET",route="/slack/interactions"})",
           R"(sluice_gateway_request_duration_seconds_count{method="POST",route="/slack/interactions"})",
       }) {
    EXPECT_NE(m.body.find(series), std::string::npos) << series;
  }
}

// --slack_interactions_path moves the handler; empty turns it off; a path
// that would shadow the gateway's own is refused at start.
TEST_F(SlackInteractionsGatewayTest, PathFlag) {
  const std::string form = absl::StrCat("Content-Type: ", kForm);
  int port = FreePort();
  auto moved = StartGateway(*backend_, port, 0, {"--slack_interactions_path=/hooks/slack"});
  ASSERT_NE(moved, nullptr);
  auto base = absl::StrCat("http://127.0.0.1:", port);
  EXPECT_EQ(Http("POST", base + "/hooks/slack", "payload=x", {form}).status, 200);
  ExpectRpcStatus(Http("POST", base + "/slack/interactions", "payload=x", {form}), 415, 3, kForm);
  EXPECT_EQ(fake_->TakeCalls().size(), 1u);

  int port2 = FreePort();
  auto off = StartGateway(*backend_, port2, 0, {"--slack_interactions_path="});
  ASSERT_NE(off, nullptr);
  auto base2 = absl::StrCat("http://127.0.0.1:", port2);
  ExpectRpcStatus(Http("POST", base2 + "/slack/interactions", "payload=x", {form}), 415, 3, kForm);
  ExpectRpcStatus(Http("POST", base2 + "/slack/interactions", "{}"), 404, 5);
  EXPECT_TRUE(fake_->TakeCalls().empty());

  for (const char* bad : {"/api/slack", "/healthz", "slack", "/slack/", "/slack?x=1"}) {
    auto p = Process::Start({Runfile("gateway/sluice-gateway"), "--http_port",
                             std::to_string(FreePort()), "--metrics_port", "0",
                             absl::StrCat("--slack_interactions_path=", bad)});
    ASSERT_TRUE(p.ok());
    EXPECT_NE((*p)->Wait(absl::Seconds(20)), 0) << bad;
    EXPECT_NE((*p)->Output().find("--slack_interactions_path"), std::string::npos)
        << bad << ": " << (*p)->Output();
  }
}

// Through the real server (auth mode header, the stack's proxy token).
class SlackInteractionsStackTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() { StartSuiteStack(""); }
};

// A form-encoded POST reaches sluice-server's SlackInteractionService (not
// refused by the gateway, not by the server's hop check): a server without
// access.slack_interactions says so (400 / FAILED_PRECONDITION naming the
// setting). The configured path is integration:slack_approvals_test's.
TEST_F(SlackInteractionsStackTest, FormPostReachesTheServer) {
  auto r = Http("POST", absl::StrCat(stack_->http_base(), "/slack/interactions"), "payload=%7B%7D",
                {absl::StrCat("Content-Type: ", kForm)});
  ExpectRpcStatus(r, 400, 9, "access.slack_interactions");
}

}  // namespace
}  // namespace sluice::integration
