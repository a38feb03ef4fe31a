#include "integration/otel_collector.h"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "integration/harness.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {

using nlohmann::json;
using sluice::sink::testing::HttpTestServer;

SpanSink::SpanSink() {
  auto s = HttpTestServer::StartWithResponses([this](const sink::testing::HttpRequest& r) {
    Add(r.body);
    return HttpTestServer::Response{};
  });
  if (!s.ok()) {
    ADD_FAILURE() << s.status();
    return;
  }
  server_ = std::move(*s);
}

std::string SpanSink::url() const { return server_ ? server_->url() : ""; }

std::vector<Span> SpanSink::Spans() const {
  absl::MutexLock l(&mu_);
  return spans_;
}

std::vector<Span> SpanSink::OfTrace(const std::string& trace_id) const {
  std::vector<Span> out;
  for (const auto& s : Spans()) {
    if (s.trace_id == trace_id) out.push_back(s);
  }
  return out;
}

void SpanSink::Add(const std::string& body) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return;
  absl::MutexLock l(&mu_);
  for (const auto& rs : doc.value("resourceSpans", json::array())) {
    std::string service;
    for (const auto& a : rs["resource"].value("attributes", json::array())) {
      if (a.value("key", "") == "service.name") service = a["value"].value("stringValue", "");
    }
    for (const auto& ss : rs.value("scopeSpans", json::array())) {
      for (const auto& sp : ss.value("spans", json::array())) {
        spans_.push_back({service, sp.value("traceId", ""), sp.value("spanId", ""),
                          sp.value("parentSpanId", ""), sp.value("name", "")});
      }
    }
  }
}

std::string CollectorBinary() {
  const char* env = std::getenv("SLUICE_OTELCOL");
  return env && *env ? env : "/var/cache/sluice/go/bin/sluice-otelcol";
}

std::unique_ptr<Process> StartCollector(const SpanSink& sink, int grpc_port) {
  std::string dir = TempDir(absl::StrCat("otelcol-", grpc_port));
  std::string config = dir + "/config.yaml";
  std::ofstream(config) << "receivers:\n"
                           "  otlp:\n"
                           "    protocols:\n"
                           "      grpc:\n"
                           "        endpoint: 127.0.0.1:" << grpc_port << "\n"
                           "processors:\n"
                           "  batch:\n"
                           "    timeout: 200ms\n"
                           "exporters:\n"
                           "  otlphttp:\n"
                           "    endpoint: " << sink.url() << "\n"
                           "    encoding: json\n"
                           "    compression: none\n"
                           "service:\n"
                           "  telemetry:\n"
                           "    metrics:\n"
                           "      level: none\n"
                           "  pipelines:\n"
                           "    traces:\n"
                           "      receivers: [otlp]\n"
                           "      processors: [batch]\n"
                           "      exporters: [otlphttp]\n";
  auto p = Process::Start({CollectorBinary(), "--config", config}, {}, dir + "/collector.log");
  if (!p.ok()) {
    ADD_FAILURE() << p.status();
    return nullptr;
  }
  if (auto st = WaitForPort(grpc_port, absl::Seconds(30)); !st.ok()) {
    ADD_FAILURE() << "the collector did not listen: " << (*p)->Output();
    return nullptr;
  }
  return std::move(*p);
}

std::map<std::string, std::string> OtelEnv(int grpc_port) {
  return {{"OTEL_EXPORTER_OTLP_ENDPOINT", absl::StrCat("http://127.0.0.1:", grpc_port)},
          {"OTEL_EXPORTER_OTLP_INSECURE", "true"},
          {"OTEL_BSP_SCHEDULE_DELAY", "200"}};
}

}  // namespace sluice::integration
