// Tracing end to end (issue 43, "Traces"): sluice-server started with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP TraceService served by this
// test. Direct gRPC calls (as grpcurl or an SDK makes them) carry a W3C
// traceparent; the audit row, the exported server span, the queued
// notification's delivery (its HTTP call's traceparent and its span) all
// keep that trace id; a hung collector costs dropped, counted spans and
// nothing else.
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include <atomic>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "integration/fake_http_server.h"
#include "integration/harness.h"
#include "integration/notification_helpers.h"
#include "integration/suite_stack.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.grpc.pb.h"
#include "proto/sluice/notification/v1beta1/notification.grpc.pb.h"

namespace sluice::integration {
namespace {

namespace otlp = opentelemetry::proto::collector::trace::v1;
namespace npb = sluice::notification::v1beta1;
using json = nlohmann::json;

constexpr char kTraceId[] = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr char kParentSpan[] = "00f067aa0ba902b7";

// An OTLP collector that records span names by hex trace id; when `hang`
// is set, each export waits 3 s (a collector that is up but stuck).
class Collector : public otlp::TraceService::Service {
 public:
  struct Span {
    std::string name, parent_span_id, service;
  };
  grpc::Status Export(grpc::ServerContext*, const otlp::ExportTraceServiceRequest* req,
                      otlp::ExportTraceServiceResponse*) override {
    if (hang.load()) absl::SleepFor(absl::Seconds(3));
    absl::MutexLock lock(&mu_);
    for (const auto& rs : req->resource_spans()) {
      std::string service = rs.resource().attributes_size() > 0
                                ? rs.resource().attributes(0).value().string_value()
                                : "";
      for (const auto& ss : rs.scope_spans()) {
        for (const auto& s : ss.spans()) {
          spans_.emplace(absl::BytesToHexString(s.trace_id()),
                         Span{s.name(), absl::BytesToHexString(s.parent_span_id()), service});
        }
      }
    }
    return grpc::Status::OK;
  }
  std::vector<Span> SpansOf(const std::string& trace_id) {
    absl::MutexLock lock(&mu_);
    std::vector<Span> out;
    auto [lo, hi] = spans_.equal_range(trace_id);
    for (auto it = lo; it != hi; ++it) out.push_back(it->second);
    return out;
  }
  // Waits until a span named `name` of `trace_id` arrived.
  std::optional<Span> WaitFor(const std::string& trace_id, const std::string& name) {
    absl::Time end = absl::Now() + absl::Seconds(20);
    while (absl::Now() < end) {
      for (const Span& s : SpansOf(trace_id)) {
        if (s.name == name) return s;
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
    return std::nullopt;
  }
  std::atomic<bool> hang{false};

 private:
  absl::Mutex mu_;
  std::multimap<std::string, Span> spans_ ABSL_GUARDED_BY(mu_);
};

class TraceTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() {
    collector_ = new Collector();
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &collector_port_);
    builder.RegisterService(collector_);
    collector_server_ = builder.BuildAndStart().release();
    ASSERT_NE(collector_port_, 0);
    Stack::Options opts;
    opts.config_yaml = "notification:\n  workers: 1\n  poll_interval_ms: 100\n";
    opts.server_env = {
        {"OTEL_EXPORTER_OTLP_ENDPOINT", absl::StrCat("http://127.0.0.1:", collector_port_)},
        {"OTEL_SERVICE_NAME", "sluice-trace-test"},
        {"OTEL_BSP_SCHEDULE_DELAY", "100"},
        {"OTEL_BSP_MAX_QUEUE_SIZE", "16"},
        {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "16"},
        {"OTEL_BSP_EXPORT_TIMEOUT", "1000"},
    };
    auto stack = Stack::Start(opts);
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = std::move(*stack).release();
  }
  static void TearDownTestSuite() {
    SuiteStackTest::TearDownTestSuite();
    collector_->hang = false;
    collector_server_->Shutdown();
    delete collector_server_;
    delete collector_;
  }
  // A direct gRPC context as `email` carrying `traceparent`.
  static std::unique_ptr<grpc::ClientContext> Traced(const std::string& traceparent) {
    auto ctx = stack_->GrpcContext("tester@example.com");
    ctx->AddMetadata("traceparent", traceparent);
    return ctx;
  }
  static std::unique_ptr<npb::NotificationService::Stub> Stub() {
    return npb::NotificationService::NewStub(
        grpc::CreateChannel(stack_->grpc_target(), grpc::InsecureChannelCredentials()));
  }
  static inline Collector* collector_ = nullptr;
  static inline grpc::Server* collector_server_ = nullptr;
  static inline int collector_port_ = 0;
  NotificationApi api_{stack_};
};

TEST_F(TraceTest, AuditRowAndServerSpanCarryTheCallersTrace) {
  npb::CreateReceiverRequest req;
  req.set_name("traced-receiver");
  req.set_type("http");
  (*req.mutable_configurations()->mutable_fields())["url"].set_string_value(
      "http://127.0.0.1:9/unused");
  npb::CreateReceiverResponse resp;
  auto ctx = Traced(absl::StrCat("00-", kTraceId, "-", kParentSpan, "-01"));
  grpc::Status st = Stub()->CreateReceiver(ctx.get(), req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();

  soci::session sql(soci::postgresql, stack_->database().dsn());
  std::string trace_id;
  soci::indicator ind;
  sql << "SELECT trace_id FROM audit_logs WHERE action LIKE 'receiver.%' ORDER BY id DESC LIMIT 1",
      soci::into(trace_id, ind);
  ASSERT_EQ(ind, soci::i_ok);
  EXPECT_EQ(trace_id, kTraceId);

  auto span = collector_->WaitFor(kTraceId,
                                  "/sluice.notification.v1beta1.NotificationService/CreateReceiver");
  ASSERT_TRUE(span.has_value());
  EXPECT_EQ(span->parent_span_id, kParentSpan);
  EXPECT_EQ(span->service, "sluice-trace-test");

  // A call without traceparent (through the gateway) gets a trace of its
  // own: its audit row has a trace id, not the one above.
  api_.CreateReceiver({{"name", "untraced"}, {"type", "http"},
                       {"configurations", {{"url", "http://127.0.0.1:9/unused"}}}});
  sql << "SELECT trace_id FROM audit_logs WHERE action LIKE 'receiver.%' ORDER BY id DESC LIMIT 1",
      soci::into(trace_id, ind);
  ASSERT_EQ(ind, soci::i_ok);
  EXPECT_EQ(trace_id.size(), 32u);
  EXPECT_NE(trace_id, kTraceId);
}

TEST_F(TraceTest, QueuedDeliveryContinuesTheRequestsTrace) {
  auto fake = FakeHttpServer::Start();
  ASSERT_NE(fake, nullptr);
  api_.CreateReceiver({{"name", "deliver-traced"}, {"type", "http"},
                       {"labels", {{"trace", "yes"}}},
                       {"configurations", {{"url", fake->Url("/hook")}}}});
  const std::string trace_id = "0af7651916cd43dd8448eb211c80319c";
  npb::PostNotificationRequest req;
  (*req.add_receivers()->mutable_fields())["trace"].set_string_value("yes");
  (*req.mutable_data()->mutable_fields())["msg"].set_string_value("hello");
  npb::PostNotificationResponse resp;
  auto ctx = Traced(absl::StrCat("00-", trace_id, "-b7ad6b7169203331-01"));
  grpc::Status st = Stub()->PostNotification(ctx.get(), req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  api_.WaitSettled(resp.notification_id());

  auto reqs = fake->Requests("/hook");
  ASSERT_EQ(reqs.size(), 1u);
  std::string sent = reqs[0].headers["traceparent"];
  std::vector<std::string> parts = absl::StrSplit(sent, '-');
  ASSERT_EQ(parts.size(), 4u) << sent;
  EXPECT_EQ(parts[1], trace_id);           // the request's trace, after the queue
  EXPECT_NE(parts[2], "b7ad6b7169203331");  // a span of this server's, not the caller's

  // The exported spans of that trace: the RPC, the delivery (its child) and
  // the HTTP call (the delivery's child, the span the receiver was told of).
  auto deliver = collector_->WaitFor(trace_id, "notification.deliver");
  auto http = collector_->WaitFor(trace_id, "HTTP POST");
  auto rpc = collector_->WaitFor(trace_id,
                                 "/sluice.notification.v1beta1.NotificationService/PostNotification");
  ASSERT_TRUE(deliver && http && rpc);
  EXPECT_EQ(rpc->parent_span_id, "b7ad6b7169203331");
}

// Runs last (gtest keeps file order): the collector hangs for good.
TEST_F(TraceTest, HungCollectorCostsDroppedCountedSpansOnly) {
  collector_->hang = true;
  // 60 requests, each 3+ spans, against a queue of 16 whose exports now
  // wait out the 1 s export timeout: most spans are dropped.
  absl::Duration slowest;
  for (int i = 0; i < 60; ++i) {
    absl::Time start = absl::Now();
    auto r = api_.Call("GET", "/receivers");
    ASSERT_EQ(r.status, 200) << r.body;
    slowest = std::max(slowest, absl::Now() - start);
  }
  EXPECT_LT(slowest, absl::Seconds(1)) << "a request waited on the exporter";
  auto metrics = Http("GET", absl::StrCat("http://127.0.0.1:", stack_->metrics_port(), "/metrics"));
  double dropped = -1;
  for (absl::string_view line : absl::StrSplit(metrics.body, '\n')) {
    if (absl::StartsWith(line, "sluice_trace_spans_dropped_total")) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      ASSERT_TRUE(absl::SimpleAtod(f.back(), &dropped)) << line;
    }
  }
  EXPECT_GT(dropped, 0) << metrics.body.substr(0, 2000);
}

}  // namespace
}  // namespace sluice::integration
