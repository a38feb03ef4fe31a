// The exporter against a real in-process OTLP TraceService (gRPC) server,
// and the server interceptor under a real gRPC server.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/trace/testing/span_recorder.h"
#include "common/metrics.h"
#include "common/trace/batch_processor.h"
#include "common/trace/grpc_server_tracing.h"
#include "common/trace/otel_env.h"
#include "common/trace/span.h"
#include "gtest/gtest.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.grpc.pb.h"
#include "prometheus/registry.h"

namespace sluice::trace {
namespace {

namespace otlp = opentelemetry::proto::collector::trace::v1;

// A collector: records every Export request it gets.
class Collector : public otlp::TraceService::Service {
 public:
  grpc::Status Export(grpc::ServerContext* ctx, const otlp::ExportTraceServiceRequest* req,
                      otlp::ExportTraceServiceResponse*) override {
    absl::MutexLock lock(&mu_);
    requests_.push_back(*req);
    auto key = ctx->client_metadata().find("api-key");
    if (key != ctx->client_metadata().end()) {
      api_key_ = std::string(key->second.data(), key->second.size());
    }
    return grpc::Status::OK;
  }
  std::vector<otlp::ExportTraceServiceRequest> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  int SpanCount() {
    absl::MutexLock lock(&mu_);
    int n = 0;
    for (const auto& r : requests_) n += r.resource_spans(0).scope_spans(0).spans_size();
    return n;
  }
  std::string api_key() {
    absl::MutexLock lock(&mu_);
    return api_key_;
  }

 private:
  absl::Mutex mu_;
  std::vector<otlp::ExportTraceServiceRequest> requests_ ABSL_GUARDED_BY(mu_);
  std::string api_key_ ABSL_GUARDED_BY(mu_);
};

// Starts `service` on 127.0.0.1:<free port>, with the tracing interceptor
// when `traced`.
std::unique_ptr<grpc::Server> Serve(grpc::Service* service, bool traced, int* port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), port);
  builder.RegisterService(service);
  if (traced) {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> f;
    f.push_back(NewServerTracingInterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(f));
  }
  return builder.BuildAndStart();
}

bool WaitFor(const std::function<bool()>& done, absl::Duration limit) {
  absl::Time end = absl::Now() + limit;
  while (!done()) {
    if (absl::Now() > end) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

TracingConfig ConfigFor(int port) {
  TracingConfig c;
  c.export_enabled = true;
  c.otlp.target = "127.0.0.1:" + std::to_string(port);
  c.otlp.insecure = true;
  c.otlp.service_name = "sluice-test";
  c.otlp.headers = {{"api-key", "secret"}};
  c.batch.schedule_delay = absl::Milliseconds(20);
  c.batch.export_timeout = absl::Milliseconds(300);
  return c;
}

TEST(OtlpExport, CollectorReceivesSpansWithResourceAndIds) {
  Collector collector;
  int port = 0;
  auto server = Serve(&collector, false, &port);
  ASSERT_NE(port, 0);
  prometheus::Registry registry;
  auto tracing = Tracing::Start(ConfigFor(port), &registry);
  auto parent = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  std::string span_id;
  {
    Span s = Span::Start("HTTP POST", SpanKind::kClient, &*parent);
    s.SetAttribute("http.request.method", std::string("POST"));
    s.SetAttribute("http.response.status_code", int64_t{204});
    s.SetStatus(SpanStatus::kError, "boom");
    span_id = s.context().SpanIdHex();
  }
  ASSERT_TRUE(WaitFor([&] { return collector.SpanCount() == 1; }, absl::Seconds(10)));
  auto req = collector.requests().at(0);
  const auto& rs = req.resource_spans(0);
  ASSERT_EQ(rs.resource().attributes_size(), 1);
  EXPECT_EQ(rs.resource().attributes(0).key(), "service.name");
  EXPECT_EQ(rs.resource().attributes(0).value().string_value(), "sluice-test");
  const auto& span = rs.scope_spans(0).spans(0);
  EXPECT_EQ(span.name(), "HTTP POST");
  EXPECT_EQ(span.kind(), opentelemetry::proto::trace::v1::Span::SPAN_KIND_CLIENT);
  EXPECT_EQ(span.trace_id(), std::string(reinterpret_cast<const char*>(parent->trace_id.data()), 16));
  EXPECT_EQ(span.parent_span_id(),
            std::string(reinterpret_cast<const char*>(parent->span_id.data()), 8));
  TraceContext got;
  std::copy(span.span_id().begin(), span.span_id().end(), got.span_id.begin());
  EXPECT_EQ(got.SpanIdHex(), span_id);
  EXPECT_GT(span.end_time_unix_nano(), 0u);
  EXPECT_GE(span.end_time_unix_nano(), span.start_time_unix_nano());
  EXPECT_EQ(span.attributes_size(), 2);
  EXPECT_EQ(span.attributes(1).value().int_value(), 204);
  EXPECT_EQ(span.status().code(), opentelemetry::proto::trace::v1::Status::STATUS_CODE_ERROR);
  EXPECT_EQ(collector.api_key(), "secret");
  server->Shutdown();
}

TEST(OtlpExport, CollectorDownCostsOnlyDroppedSpansWithBoundedMemory) {
  Collector collector;
  int port = 0;
  auto server = Serve(&collector, false, &port);
  ASSERT_NE(port, 0);
  TracingConfig config = ConfigFor(port);
  config.batch.max_queue_size = 100;
  config.batch.max_export_batch_size = 10;
  prometheus::Registry registry;
  auto tracing = Tracing::Start(config, &registry);
  { Span s = Span::Start("before", SpanKind::kInternal, nullptr); }
  ASSERT_TRUE(WaitFor([&] { return collector.SpanCount() == 1; }, absl::Seconds(10)));
  server->Shutdown();
  server.reset();

  // The request path: 20,000 spans end while nothing listens. Each End()
  // only appends to the bounded queue; none waits for an export.
  constexpr int kSpans = 20000;
  size_t max_queue = 0;
  absl::Time start = absl::Now();
  for (int i = 0; i < kSpans; ++i) {
    Span s = Span::Start("while down", SpanKind::kInternal, nullptr);
    s.SetAttribute("i", int64_t{i});
    s.End();
    if (i % 100 == 0) max_queue = std::max(max_queue, tracing->processor()->queue_size());
  }
  absl::Duration took = absl::Now() - start;
  std::printf("%d spans ended with the collector down in %s (%.2f us per span)\n", kSpans,
              absl::FormatDuration(took).c_str(), absl::ToDoubleMicroseconds(took) / kSpans);
  EXPECT_LT(took, absl::Seconds(5));
  EXPECT_LE(max_queue, 100u);
  EXPECT_LE(tracing->processor()->queue_size(), 100u);
  BatchStats stats = tracing->processor()->stats();
  // The exporter fails fast on a refused connection, so the queue drains
  // between batches; still most spans find it full.
  EXPECT_GT(stats.dropped, static_cast<uint64_t>(kSpans) / 4);
  EXPECT_EQ(stats.exported, 1u);
  EXPECT_EQ(stats.queued + stats.dropped, static_cast<uint64_t>(kSpans) + 1);
  prometheus::Counter& dropped = RegisterSpansDroppedCounter(registry);
  EXPECT_EQ(static_cast<uint64_t>(dropped.Value()), stats.dropped);
  // Failed exports are bounded by the export timeout; shutdown gives up at
  // the first failure instead of trying every queued batch.
  absl::Time stop = absl::Now();
  tracing.reset();
  EXPECT_LT(absl::Now() - stop, absl::Seconds(3));
  EXPECT_EQ(collector.SpanCount(), 1);
}

// An application service: records the current trace context its handler
// runs under.
class ContextProbe : public otlp::TraceService::Service {
 public:
  grpc::Status Export(grpc::ServerContext*, const otlp::ExportTraceServiceRequest*,
                      otlp::ExportTraceServiceResponse*) override {
    absl::MutexLock lock(&mu_);
    const TraceContext* c = Current();
    seen_.push_back(c == nullptr ? TraceContext{} : *c);
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "down");
  }
  std::vector<TraceContext> seen() {
    absl::MutexLock lock(&mu_);
    return seen_;
  }

 private:
  absl::Mutex mu_;
  std::vector<TraceContext> seen_ ABSL_GUARDED_BY(mu_);
};

using Recorder = ::sluice::trace::testing::SpanRecorder;

TEST(ServerTracing, HandlerRunsUnderAServerSpanContinuingTraceparent) {
  auto recorder = std::make_shared<Recorder>();
  SetTracerProvider(Sampler{}, recorder);
  ContextProbe probe;
  int port = 0;
  auto server = Serve(&probe, true, &port);
  auto stub = otlp::TraceService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  auto call = [&](const std::vector<std::pair<std::string, std::string>>& md) {
    grpc::ClientContext ctx;
    for (const auto& [k, v] : md) ctx.AddMetadata(k, v);
    otlp::ExportTraceServiceRequest req;
    otlp::ExportTraceServiceResponse resp;
    return stub->Export(&ctx, req, &resp);
  };
  const std::string tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  EXPECT_EQ(call({{"traceparent", tp}, {"tracestate", "congo=t61rcWkgMzE"}}).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  call({});                                              // no traceparent: a new trace
  call({{"traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}});  // invalid
  call({{"traceparent", tp}, {"traceparent", tp}});      // repeated: invalid
  server->Shutdown();
  SetTracerProvider(Sampler{}, nullptr);

  auto seen = probe.seen();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_NE(seen[0].SpanIdHex(), "00f067aa0ba902b7");
  EXPECT_EQ(seen[0].tracestate, "congo=t61rcWkgMzE");
  for (int i = 1; i < 4; ++i) {
    EXPECT_TRUE(seen[i].valid()) << i;
    EXPECT_NE(seen[i].TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736") << i;
    EXPECT_NE(seen[i].TraceIdHex(), seen[0].TraceIdHex()) << i;
  }
  EXPECT_NE(seen[1].TraceIdHex(), seen[2].TraceIdHex());

  absl::MutexLock lock(&recorder->mu);
  ASSERT_EQ(recorder->spans.size(), 4u);
  const SpanData* first = nullptr;
  for (const auto& s : recorder->spans) {
    if (s.context.span_id == seen[0].span_id) first = &s;
  }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->name, "/opentelemetry.proto.collector.trace.v1.TraceService/Export");
  EXPECT_EQ(first->kind, SpanKind::kServer);
  TraceContext parent_ids;
  parent_ids.span_id = first->parent_span_id;
  EXPECT_EQ(parent_ids.SpanIdHex(), "00f067aa0ba902b7");
  EXPECT_EQ(first->status, SpanStatus::kError);  // UNAVAILABLE is a server error
}

}  // namespace
}  // namespace sluice::trace
