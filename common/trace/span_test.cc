#include "common/trace/span.h"

#include <map>
#include <string>

#include "common/trace/otel_env.h"
#include "gtest/gtest.h"

namespace sluice::trace {
namespace {

class Recorder : public SpanProcessor {
 public:
  void OnEnd(SpanData span) override { spans.push_back(std::move(span)); }
  std::vector<SpanData> spans;
};

constexpr char kParent[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(Span, ChildOfRemoteParentKeepsTraceIdAndNamesParent) {
  auto recorder = std::make_shared<Recorder>();
  SetTracerProvider(Sampler{}, recorder);
  auto parent = ParseTraceparent(kParent);
  parent->tracestate = "congo=t61rcWkgMzE";
  {
    Span s = Span::Start("/pkg.Svc/Method", SpanKind::kServer, &*parent);
    EXPECT_EQ(s.context().TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736");
    EXPECT_NE(s.context().SpanIdHex(), "00f067aa0ba902b7");
    EXPECT_TRUE(s.context().sampled());
    EXPECT_EQ(s.context().tracestate, "congo=t61rcWkgMzE");
    s.SetAttribute("rpc.system", std::string("grpc"));
  }
  SetTracerProvider(Sampler{}, nullptr);
  ASSERT_EQ(recorder->spans.size(), 1u);
  const SpanData& d = recorder->spans[0];
  EXPECT_EQ(d.name, "/pkg.Svc/Method");
  EXPECT_EQ(d.kind, SpanKind::kServer);
  TraceContext parent_ids;
  parent_ids.span_id = d.parent_span_id;
  EXPECT_EQ(parent_ids.SpanIdHex(), "00f067aa0ba902b7");
  EXPECT_LE(d.start, d.end);
  ASSERT_EQ(d.attributes.size(), 1u);
}

TEST(Span, StartChildUsesTheCurrentContextAndScopedSpanSetsIt) {
  auto recorder = std::make_shared<Recorder>();
  SetTracerProvider(Sampler{}, recorder);
  {
    ScopedSpan root("root", SpanKind::kInternal, nullptr);
    EXPECT_EQ(CurrentTraceId(), root.span().context().TraceIdHex());
    Span child = Span::StartChild("HTTP GET", SpanKind::kClient);
    EXPECT_EQ(child.context().trace_id, root.span().context().trace_id);
  }
  EXPECT_EQ(Current(), nullptr);
  SetTracerProvider(Sampler{}, nullptr);
  ASSERT_EQ(recorder->spans.size(), 2u);
  EXPECT_EQ(recorder->spans[0].parent_span_id, recorder->spans[1].context.span_id);
}

TEST(Sampler, ParentBasedFollowsTheParentsFlag) {
  auto recorder = std::make_shared<Recorder>();
  SetTracerProvider(Sampler{}, recorder);
  auto unsampled = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  {
    Span s = Span::Start("x", SpanKind::kServer, &*unsampled);
    EXPECT_FALSE(s.context().sampled());
    EXPECT_FALSE(s.recording());
  }
  SetTracerProvider(Sampler{}, nullptr);
  EXPECT_TRUE(recorder->spans.empty());
}

TEST(Sampler, RootSamplers) {
  TraceId low{}, high{};
  high.fill(0xff);
  low[15] = 1;
  Sampler off{Sampler::Root::kAlwaysOff, 1.0, true};
  EXPECT_FALSE(off.ShouldSample(low, nullptr));
  Sampler half{Sampler::Root::kTraceIdRatio, 0.5, false};
  EXPECT_TRUE(half.ShouldSample(low, nullptr));
  EXPECT_FALSE(half.ShouldSample(high, nullptr));
  Sampler zero{Sampler::Root::kTraceIdRatio, 0.0, false};
  EXPECT_FALSE(zero.ShouldSample(low, nullptr));
  // Not parent-based: the ratio decides even under a sampled parent.
  auto parent = ParseTraceparent(kParent);
  EXPECT_FALSE(zero.ShouldSample(low, &*parent));
}

// The environment as a map, for TracingConfigFromEnv.
std::function<const char*(const char*)> Env(const std::map<std::string, std::string>& m) {
  return [m](const char* n) -> const char* {
    auto it = m.find(n);
    return it == m.end() ? nullptr : it->second.c_str();
  };
}

TEST(OtelEnv, DefaultsWithoutEndpoint) {
  auto c = TracingConfigFromEnv("sluice-server", Env({}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->export_enabled);
  EXPECT_EQ(c->otlp.service_name, "sluice-server");
  EXPECT_EQ(c->sampler.root, Sampler::Root::kAlwaysOn);
  EXPECT_TRUE(c->sampler.parent_based);
  EXPECT_EQ(c->batch.max_queue_size, 2048u);
  EXPECT_EQ(c->batch.schedule_delay, absl::Milliseconds(5000));
  EXPECT_EQ(c->batch.max_export_batch_size, 512u);
  EXPECT_EQ(c->batch.export_timeout, absl::Milliseconds(30000));
}

TEST(OtelEnv, ReadsEveryVariable) {
  auto c = TracingConfigFromEnv(
      "sluice-server",
      Env({{"OTEL_SERVICE_NAME", "access-api"},
           {"OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector:4317"},
           {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:4317/"},
           {"OTEL_EXPORTER_OTLP_HEADERS", "Api-Key=a%20b, x=y"},
           {"OTEL_TRACES_SAMPLER", "parentbased_traceidratio"},
           {"OTEL_TRACES_SAMPLER_ARG", "0.25"},
           {"OTEL_BSP_MAX_QUEUE_SIZE", "100"},
           {"OTEL_BSP_SCHEDULE_DELAY", "50"},
           {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "10"},
           {"OTEL_BSP_EXPORT_TIMEOUT", "700"}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->export_enabled);
  EXPECT_EQ(c->otlp.service_name, "access-api");
  EXPECT_EQ(c->otlp.target, "127.0.0.1:4317");  // the traces endpoint wins
  EXPECT_TRUE(c->otlp.insecure);
  ASSERT_EQ(c->otlp.headers.size(), 2u);
  EXPECT_EQ(c->otlp.headers[0].first, "api-key");
  EXPECT_EQ(c->otlp.headers[0].second, "a b");
  EXPECT_EQ(c->sampler.root, Sampler::Root::kTraceIdRatio);
  EXPECT_DOUBLE_EQ(c->sampler.ratio, 0.25);
  EXPECT_EQ(c->batch.max_queue_size, 100u);
  EXPECT_EQ(c->batch.schedule_delay, absl::Milliseconds(50));
  EXPECT_EQ(c->batch.max_export_batch_size, 10u);
  EXPECT_EQ(c->batch.export_timeout, absl::Milliseconds(700));
}

TEST(OtelEnv, EndpointWithoutSchemeIsTlsUnlessInsecure) {
  auto tls = TracingConfigFromEnv("s", Env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4317"}}));
  ASSERT_TRUE(tls.ok());
  EXPECT_FALSE(tls->otlp.insecure);
  auto plain = TracingConfigFromEnv("s", Env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4317"},
                                              {"OTEL_EXPORTER_OTLP_INSECURE", "true"}}));
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->otlp.insecure);
  auto none = TracingConfigFromEnv("s", Env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4317"},
                                             {"OTEL_TRACES_EXPORTER", "none"}}));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->export_enabled);
}

TEST(OtelEnv, RefusesInvalidValuesNamingTheVariable) {
  const std::pair<const char*, const char*> bad[] = {
      {"OTEL_TRACES_SAMPLER", "sometimes"},
      {"OTEL_TRACES_SAMPLER_ARG", "1.5"},
      {"OTEL_BSP_MAX_QUEUE_SIZE", "0"},
      {"OTEL_BSP_SCHEDULE_DELAY", "5s"},
      {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "-1"},
      {"OTEL_BSP_EXPORT_TIMEOUT", "abc"},
      {"OTEL_EXPORTER_OTLP_ENDPOINT", "grpc://collector:4317"},
      {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces"},
      {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"},
      {"OTEL_EXPORTER_OTLP_HEADERS", "novalue"},
      {"OTEL_EXPORTER_OTLP_INSECURE", "yes"},
      {"OTEL_TRACES_EXPORTER", "jaeger"},
  };
  for (const auto& [name, value] : bad) {
    std::map<std::string, std::string> env = {{name, value}};
    env.emplace("OTEL_TRACES_SAMPLER", "traceidratio");  // so that _ARG is read
    env.emplace("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4317");  // so that INSECURE is read
    auto c = TracingConfigFromEnv("s", Env(env));
    ASSERT_FALSE(c.ok()) << name << "=" << value;
    EXPECT_TRUE(absl::IsInvalidArgument(c.status()));
    EXPECT_NE(c.status().message().find(name), std::string::npos) << c.status();
  }
  auto batch = TracingConfigFromEnv(
      "s", Env({{"OTEL_BSP_MAX_QUEUE_SIZE", "10"}, {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "20"}}));
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"), std::string::npos);
}

}  // namespace
}  // namespace sluice::trace
