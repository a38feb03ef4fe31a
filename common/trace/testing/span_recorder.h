// A span processor for tests: keeps every span that ends, in the order they
// end. Install it with trace::SetTracerProvider(trace::Sampler{}, recorder).
#ifndef SLUICE_COMMON_TRACE_TESTING_SPAN_RECORDER_H_
#define SLUICE_COMMON_TRACE_TESTING_SPAN_RECORDER_H_

#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/trace/span.h"

namespace sluice::trace::testing {

class SpanRecorder : public SpanProcessor {
 public:
  // Keeps `span` (SpanProcessor; called from whichever thread ends it).
  void OnEnd(SpanData span) override {
    absl::MutexLock lock(&mu);
    spans.push_back(std::move(span));
  }
  // Held while reading `spans`.
  absl::Mutex mu;
  // Every ended span, oldest first.
  std::vector<SpanData> spans ABSL_GUARDED_BY(mu);
};

}  // namespace sluice::trace::testing

#endif  // SLUICE_COMMON_TRACE_TESTING_SPAN_RECORDER_H_
