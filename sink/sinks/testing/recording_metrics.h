// A Metrics implementation for tests that records every call.
#ifndef SLUICE_SINK_SINKS_TESTING_RECORDING_METRICS_H_
#define SLUICE_SINK_SINKS_TESTING_RECORDING_METRICS_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "sink/metrics.h"

namespace sluice::sink::testing {

// Thread-safe recorder of Increment/Observe/Gauge calls.
class RecordingMetrics : public Metrics {
 public:
  struct Call {
    std::string kind;  // "increment", "observe", "gauge"
    std::string name;
    Tags tags;
    double value;
  };

  void Increment(absl::string_view name, const Tags& tags, double n = 1) override {
    Add("increment", name, tags, n);
  }
  void Observe(absl::string_view name, const Tags& tags, double value) override {
    Add("observe", name, tags, value);
  }
  void Gauge(absl::string_view name, const Tags& tags, double value) override {
    Add("gauge", name, tags, value);
  }

  // Sum of the increments of `name` whose tags include `tag` (all when empty).
  double Sum(absl::string_view name, const std::pair<std::string, std::string>& tag = {}) const {
    absl::MutexLock l(&mu_);
    double total = 0;
    for (const Call& c : calls_) {
      if (c.kind != "increment" || c.name != name) continue;
      bool match = tag.first.empty();
      for (const auto& t : c.tags) match = match || t == tag;
      if (match) total += c.value;
    }
    return total;
  }

  // The values observed for `name`, in order.
  std::vector<double> Observed(absl::string_view name) const {
    absl::MutexLock l(&mu_);
    std::vector<double> out;
    for (const Call& c : calls_) {
      if (c.kind == "observe" && c.name == name) out.push_back(c.value);
    }
    return out;
  }

  std::vector<Call> calls() const {
    absl::MutexLock l(&mu_);
    return calls_;
  }

 private:
  void Add(const char* kind, absl::string_view name, const Tags& tags, double v) {
    absl::MutexLock l(&mu_);
    calls_.push_back(Call{kind, std::string(name), tags, v});
  }
  mutable absl::Mutex mu_;
  std::vector<Call> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_RECORDING_METRICS_H_
