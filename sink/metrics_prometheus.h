// The same metrics as StatsD on a Prometheus /metrics endpoint
// (METRIC_PROMETHEUS_PORT; 0 disables it), via prometheus-cpp. Counters,
// gauges, and histograms (millisecond buckets) are created on first use.
#ifndef SLUICE_SINK_METRICS_PROMETHEUS_H_
#define SLUICE_SINK_METRICS_PROMETHEUS_H_

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "sink/metrics.h"

namespace sluice::sink {

class PrometheusMetrics : public Metrics {
 public:
  // Serves /metrics on 0.0.0.0:`port` (0: no endpoint, registry only).
  // `global` labels are added to every series (METRIC_STATSD_TAGS).
  // Unavailable when the port cannot be bound.
  static absl::StatusOr<std::unique_ptr<PrometheusMetrics>> Create(int port, Tags global);

  void Increment(absl::string_view name, const Tags& tags, double n) override;
  void Observe(absl::string_view name, const Tags& tags, double value) override;
  void Gauge(absl::string_view name, const Tags& tags, double value) override;

  // The bound port (useful with port 0 in tests is not supported: 0 disables).
  int port() const { return port_; }
  // Text exposition of the registry (what /metrics serves).
  std::string Scrape() const;

 private:
  PrometheusMetrics() = default;
  std::map<std::string, std::string> Labels(const Tags& tags) const;

  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();
  std::unique_ptr<prometheus::Exposer> exposer_;
  Tags global_;
  int port_ = 0;
  absl::Mutex mu_;
  std::map<std::string, prometheus::Family<prometheus::Counter>*> counters_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, prometheus::Family<prometheus::Gauge>*> gauges_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, prometheus::Family<prometheus::Histogram>*> histograms_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_METRICS_PROMETHEUS_H_
