#include "sink/metrics_prometheus.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "prometheus/text_serializer.h"

namespace sluice::sink {

absl::StatusOr<std::unique_ptr<PrometheusMetrics>> PrometheusMetrics::Create(int port, Tags global) {
  auto m = std::unique_ptr<PrometheusMetrics>(new PrometheusMetrics());
  m->global_ = std::move(global);
  if (port > 0) {
    try {
      m->exposer_ = std::make_unique<prometheus::Exposer>(absl::StrCat("0.0.0.0:", port));
      m->exposer_->RegisterCollectable(m->registry_);
      m->port_ = port;
    } catch (const std::exception& e) {
      return absl::UnavailableError(
          absl::StrCat("METRIC_PROMETHEUS_PORT ", port, ": cannot serve /metrics: ", e.what()));
    }
  }
  return m;
}

std::map<std::string, std::string> PrometheusMetrics::Labels(const Tags& tags) const {
  std::map<std::string, std::string> out;
  for (const Tags* list : {&global_, &tags}) {
    for (const auto& [k, v] : *list) out[k] = v;
  }
  return out;
}

void PrometheusMetrics::Increment(absl::string_view name, const Tags& tags, double n) {
  if (n <= 0) return;
  prometheus::Family<prometheus::Counter>* family;
  {
    absl::MutexLock l(&mu_);
    auto& f = counters_[std::string(name)];
    if (f == nullptr) f = &prometheus::BuildCounter().Name(std::string(name)).Register(*registry_);
    family = f;
  }
  family->Add(Labels(tags)).Increment(n);
}

void PrometheusMetrics::Observe(absl::string_view name, const Tags& tags, double value) {
  prometheus::Family<prometheus::Histogram>* family;
  {
    absl::MutexLock l(&mu_);
    auto& f = histograms_[std::string(name)];
    if (f == nullptr) f = &prometheus::BuildHistogram().Name(std::string(name)).Register(*registry_);
    family = f;
  }
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000};
  family->Add(Labels(tags), kBuckets).Observe(value);
}

void PrometheusMetrics::Gauge(absl::string_view name, const Tags& tags, double value) {
  prometheus::Family<prometheus::Gauge>* family;
  {
    absl::MutexLock l(&mu_);
    auto& f = gauges_[std::string(name)];
    if (f == nullptr) f = &prometheus::BuildGauge().Name(std::string(name)).Register(*registry_);
    family = f;
  }
  family->Add(Labels(tags)).Set(value);
}

std::string PrometheusMetrics::Scrape() const {
  prometheus::TextSerializer s;
  return s.Serialize(registry_->Collect());
}

}  // namespace sluice::sink
