// StatsD metrics over UDP with dogstatsd tags (METRIC_STATSD_HOST/PORT/TAGS),
// as Firehose emits them: counters `name:n|c|#k:v,...`, gauges `|g`,
// *_milliseconds observations as timings `|ms`, other observations `|h`.
#ifndef SLUICE_SINK_METRICS_STATSD_H_
#define SLUICE_SINK_METRICS_STATSD_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sink/config.h"
#include "sink/metrics.h"

namespace sluice::sink {

// Renders one dogstatsd line, e.g. "firehose_sink_messages_total:3|c|#type:SUCCESS,team:x".
// `global` tags follow the call's tags.
std::string StatsdLine(absl::string_view name, double value, absl::string_view type,
                       const Tags& tags, const Tags& global);

// Fire-and-forget UDP sender; thread-safe (one datagram per call).
class StatsdMetrics : public Metrics {
 public:
  // Resolves host:port once. InvalidArgument naming METRIC_STATSD_HOST when
  // the host does not resolve.
  static absl::StatusOr<std::unique_ptr<StatsdMetrics>> Create(const MetricConfig& config);
  ~StatsdMetrics() override;

  void Increment(absl::string_view name, const Tags& tags, double n) override;
  void Observe(absl::string_view name, const Tags& tags, double value) override;
  void Gauge(absl::string_view name, const Tags& tags, double value) override;

 private:
  StatsdMetrics(int fd, Tags global) : fd_(fd), global_(std::move(global)) {}
  void Send(const std::string& line);
  int fd_;
  Tags global_;
};

// Sends every call to each of `targets` (not owned).
class FanoutMetrics : public Metrics {
 public:
  explicit FanoutMetrics(std::vector<Metrics*> targets) : targets_(std::move(targets)) {}
  void Increment(absl::string_view name, const Tags& tags, double n) override {
    for (Metrics* m : targets_) m->Increment(name, tags, n);
  }
  void Observe(absl::string_view name, const Tags& tags, double value) override {
    for (Metrics* m : targets_) m->Observe(name, tags, value);
  }
  void Gauge(absl::string_view name, const Tags& tags, double value) override {
    for (Metrics* m : targets_) m->Gauge(name, tags, value);
  }

 private:
  std::vector<Metrics*> targets_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_METRICS_STATSD_H_
