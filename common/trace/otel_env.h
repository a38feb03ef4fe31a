// Tracing set up from the standard OTEL_* environment variables (OTel spec,
// "Environment Variable Specification" and the OTLP exporter's
// "Configuration"), shared by sluice-server and sluice-sink.
#ifndef SLUICE_COMMON_TRACE_OTEL_ENV_H_
#define SLUICE_COMMON_TRACE_OTEL_ENV_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/trace/batch_processor.h"
#include "common/trace/otlp_exporter.h"
#include "common/trace/span.h"
#include "prometheus/registry.h"

namespace sluice::trace {

// What the OTEL_* variables ask for.
struct TracingConfig {
  // True when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
  // is set (and OTEL_TRACES_EXPORTER is not "none"). Otherwise spans are
  // not exported, but requests still get and propagate trace contexts.
  bool export_enabled = false;
  OtlpOptions otlp;  // target, insecure, headers, service_name
  Sampler sampler;   // OTEL_TRACES_SAMPLER(_ARG); default parentbased_always_on
  BatchOptions batch;  // OTEL_BSP_*
};

// Reads the variables through `getenv` (the process's by default):
//   OTEL_SERVICE_NAME                  default `default_service_name`
//   OTEL_TRACES_EXPORTER               otlp (default) | none
//   OTEL_EXPORTER_OTLP_PROTOCOL (and _TRACES_PROTOCOL)  grpc only
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT:
//       http://host:port (plaintext), https://host:port (TLS), or host:port
//       (TLS unless OTEL_EXPORTER_OTLP_(TRACES_)INSECURE=true)
//   OTEL_EXPORTER_OTLP_(TRACES_)HEADERS  k=v,k=v (values percent-decoded)
//   OTEL_TRACES_SAMPLER                always_on | always_off | traceidratio |
//       parentbased_always_on (default) | parentbased_always_off |
//       parentbased_traceidratio
//   OTEL_TRACES_SAMPLER_ARG            the ratio, 0..1 (default 1)
//   OTEL_BSP_MAX_QUEUE_SIZE 2048, OTEL_BSP_SCHEDULE_DELAY 5000 (ms),
//   OTEL_BSP_MAX_EXPORT_BATCH_SIZE 512 (at most the queue size),
//   OTEL_BSP_EXPORT_TIMEOUT 30000 (ms): positive integers.
// InvalidArgument naming the variable and the accepted values for any
// value that is not understood: a typo must not silently turn tracing off.
absl::StatusOr<TracingConfig> TracingConfigFromEnv(
    absl::string_view default_service_name,
    const std::function<const char*(const char*)>& getenv = [](const char* n) {
      return std::getenv(n);
    });

// The process's tracer provider while it lives: installs the config's
// sampler and, when exporting, a BatchProcessor over the OTLP exporter.
// The destructor flushes (bounded by one export timeout when the collector
// is down) and uninstalls.
class Tracing {
 public:
  // `registry` (may be null; outlives this) gets the dropped-spans counter
  // (common/metrics.h, RegisterSpansDroppedCounter).
  static std::unique_ptr<Tracing> Start(const TracingConfig& config,
                                        prometheus::Registry* registry);
  ~Tracing();
  // The batch processor, or nullptr when not exporting.
  BatchProcessor* processor() const { return processor_.get(); }

 private:
  Tracing() = default;
  std::shared_ptr<BatchProcessor> processor_;
};

}  // namespace sluice::trace

#endif  // SLUICE_COMMON_TRACE_OTEL_ENV_H_
