// A real OpenTelemetry Collector for tests and benchmarks
// (scripts/install-otelcol.sh builds it from the collector's Go modules): it
// takes OTLP/gRPC on a free port and exports every span as OTLP/JSON to an
// HTTP server of the caller's process (SpanSink), which keeps them.
#ifndef SLUICE_INTEGRATION_OTEL_COLLECTOR_H_
#define SLUICE_INTEGRATION_OTEL_COLLECTOR_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "integration/process.h"
#include "sink/sinks/testing/http_test_server.h"

namespace sluice::integration {

// A span as the collector exported it (ids in lower-case hex).
struct Span {
  std::string service, trace_id, span_id, parent_id, name;
};

// The OTLP/HTTP endpoint the collector exports to (encoding: json): keeps
// every span it is sent.
class SpanSink {
 public:
  SpanSink();
  // "http://127.0.0.1:<port>"
  std::string url() const;
  std::vector<Span> Spans() const;
  // The spans of one trace.
  std::vector<Span> OfTrace(const std::string& trace_id) const;

 private:
  void Add(const std::string& body);
  mutable absl::Mutex mu_;
  std::vector<Span> spans_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<sluice::sink::testing::HttpTestServer> server_;
};

// $SLUICE_OTELCOL, else scripts/install-otelcol.sh's binary.
std::string CollectorBinary();

// Starts the collector: OTLP/gRPC on 127.0.0.1:`grpc_port`, a 200 ms batch,
// OTLP/JSON to `sink`, its own telemetry off. Waits until the port accepts;
// nullptr (and a test failure) when it cannot start.
std::unique_ptr<Process> StartCollector(const SpanSink& sink, int grpc_port);

// The OTEL_* variables that send a program's spans to 127.0.0.1:`grpc_port`
// (insecure, 200 ms batches).
std::map<std::string, std::string> OtelEnv(int grpc_port);

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_OTEL_COLLECTOR_H_
