// The metrics sink components report to. The worker wires an implementation
// that emits both StatsD (dogstatsd tags) and Prometheus; tests use
// NoopMetrics or a recording fake. Metric names are Firehose's
// (e.g. firehose_sink_http_response_code_total) so dashboards keep working.
#ifndef SLUICE_SINK_METRICS_H_
#define SLUICE_SINK_METRICS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace sluice::sink {

// Tag list in emission order, e.g. {{"type", "http"}, {"error_type", "SINK_5XX_ERROR"}}.
using Tags = std::vector<std::pair<std::string, std::string>>;

// Thread-safe metric reporting.
class Metrics {
 public:
  virtual ~Metrics() = default;
  // Adds `n` to counter `name` with `tags`.
  virtual void Increment(absl::string_view name, const Tags& tags, double n = 1) = 0;
  // Records one observation (milliseconds for *_milliseconds names).
  virtual void Observe(absl::string_view name, const Tags& tags, double value) = 0;
  // Sets gauge `name` (e.g. consumer lag per partition).
  virtual void Gauge(absl::string_view name, const Tags& tags, double value) = 0;
};

// Discards everything.
class NoopMetrics : public Metrics {
 public:
  void Increment(absl::string_view, const Tags&, double) override {}
  void Observe(absl::string_view, const Tags&, double) override {}
  void Gauge(absl::string_view, const Tags&, double) override {}
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_METRICS_H_
