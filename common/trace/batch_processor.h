// The OTel SDK's batch span processor (OTel SDK spec, "Batching processor"):
// ended spans wait in a bounded queue and a background thread hands them to
// an exporter in batches. The request path only appends to the queue under
// a mutex; it never waits for an export. A full queue drops the span and
// counts it, so a collector that is down or slow costs dropped spans and at
// most max_queue_size spans of memory.
#ifndef SLUICE_COMMON_TRACE_BATCH_PROCESSOR_H_
#define SLUICE_COMMON_TRACE_BATCH_PROCESSOR_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/trace/span.h"
#include "prometheus/counter.h"

namespace sluice::trace {

// Sends a batch of spans somewhere (an OTLP collector). Called from one
// thread at a time. Must return within `timeout`; an error means the batch
// is lost (there is no retry).
class SpanExporter {
 public:
  virtual ~SpanExporter() = default;
  virtual absl::Status Export(const std::vector<SpanData>& batch, absl::Duration timeout) = 0;
};

// OTEL_BSP_* settings; the defaults are the OTel spec's.
struct BatchOptions {
  size_t max_queue_size = 2048;                         // OTEL_BSP_MAX_QUEUE_SIZE
  absl::Duration schedule_delay = absl::Milliseconds(5000);  // OTEL_BSP_SCHEDULE_DELAY
  size_t max_export_batch_size = 512;                   // OTEL_BSP_MAX_EXPORT_BATCH_SIZE
  absl::Duration export_timeout = absl::Milliseconds(30000);  // OTEL_BSP_EXPORT_TIMEOUT
};

// Counters of a BatchProcessor (also exported as Prometheus metrics when a
// counter is given).
struct BatchStats {
  uint64_t queued = 0;    // spans accepted into the queue
  uint64_t dropped = 0;   // spans refused because the queue was full
  uint64_t exported = 0;  // spans in batches the exporter accepted
  uint64_t failed = 0;    // spans in batches the exporter refused or timed out on
};

class BatchProcessor : public SpanProcessor {
 public:
  // Starts the export thread. `dropped` (may be null; outlives this) is
  // incremented for every span dropped on a full queue.
  BatchProcessor(std::unique_ptr<SpanExporter> exporter, BatchOptions options,
                 prometheus::Counter* dropped);
  // Shutdown().
  ~BatchProcessor() override;

  // Queues `span`, or drops and counts it when max_queue_size spans wait.
  void OnEnd(SpanData span) override;

  // Exports what is queued (at most one export_timeout per batch) and stops
  // the thread. Idempotent.
  void Shutdown();

  // A snapshot of the counters.
  BatchStats stats() const;
  // Spans waiting now.
  size_t queue_size() const;

 private:
  void Run();

  const std::unique_ptr<SpanExporter> exporter_;
  const BatchOptions options_;
  prometheus::Counter* const dropped_counter_;
  mutable absl::Mutex mu_;
  std::deque<SpanData> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  BatchStats stats_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace sluice::trace

#endif  // SLUICE_COMMON_TRACE_BATCH_PROCESSOR_H_
