// Exports spans to an OpenTelemetry collector over OTLP/gRPC
// (opentelemetry.proto.collector.trace.v1.TraceService/Export), with the
// protoc-generated stubs of third_party/opentelemetry_proto.
#ifndef SLUICE_COMMON_TRACE_OTLP_EXPORTER_H_
#define SLUICE_COMMON_TRACE_OTLP_EXPORTER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/trace/batch_processor.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace sluice::trace {

// Where and how to send spans.
struct OtlpOptions {
  // gRPC target "host:port" (the scheme of OTEL_EXPORTER_OTLP_ENDPOINT
  // already stripped, see ParseOtlpEndpoint).
  std::string target;
  bool insecure = true;  // plaintext; false: TLS with the system roots
  // Extra request metadata (OTEL_EXPORTER_OTLP_HEADERS), keys lower case.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string service_name;  // resource attribute service.name
};

// The OTLP request for `batch` from service `service_name`: one
// ResourceSpans with service.name, one ScopeSpans named "sluice".
opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest ToOtlpRequest(
    const std::vector<SpanData>& batch, const std::string& service_name);

// A SpanExporter calling TraceService/Export with a deadline of the export
// timeout. The channel connects lazily and reconnects on its own; an export
// to a collector that is down fails after at most the timeout.
std::unique_ptr<SpanExporter> NewOtlpGrpcExporter(const OtlpOptions& options);

}  // namespace sluice::trace

#endif  // SLUICE_COMMON_TRACE_OTLP_EXPORTER_H_
