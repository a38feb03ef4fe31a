// Prometheus metrics for gRPC servers: a /metrics HTTP endpoint
// (prometheus-cpp's Exposer) and a server interceptor that counts RPCs and
// observes their latency by method and code. Names follow go-grpc-prometheus
// (grpc_server_handled_total, grpc_server_handling_seconds) so that standard
// dashboards work.
#ifndef SLUICE_COMMON_METRICS_H_
#define SLUICE_COMMON_METRICS_H_

#include <memory>
#include <string>

#include <grpcpp/support/server_interceptor.h>

#include "absl/status/statusor.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace sluice {

// Owns the registry and, when started on a port, the /metrics endpoint.
class MetricsServer {
 public:
  // Serves /metrics on 0.0.0.0:`port`. Port 0 disables the endpoint (the
  // registry still works). Unavailable when the port cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Create(int port);

  // The registry every component adds its families to.
  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  // A gRPC interceptor factory recording grpc_server_handled_total
  // {grpc_service, grpc_method, grpc_code} and grpc_server_handling_seconds
  // {grpc_service, grpc_method}. The factory must outlive the server.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> NewGrpcInterceptorFactory();

  // The port actually bound (0 when disabled).
  int port() const { return port_; }

 private:
  MetricsServer() = default;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

// Registers (once per registry; later calls return the same counter)
// sluice_trace_spans_dropped_total: spans the trace exporter dropped because
// its queue (OTEL_BSP_MAX_QUEUE_SIZE) was full, e.g. while the collector is
// down (common/trace/batch_processor.h).
prometheus::Counter& RegisterSpansDroppedCounter(prometheus::Registry& registry);

}  // namespace sluice

#endif  // SLUICE_COMMON_METRICS_H_
