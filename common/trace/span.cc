#include "common/trace/span.h"

#include <atomic>
#include <limits>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace sluice::trace {
namespace {

struct Provider {
  absl::Mutex mu;
  Sampler sampler ABSL_GUARDED_BY(mu);
  std::shared_ptr<SpanProcessor> processor ABSL_GUARDED_BY(mu);
};

Provider& GlobalProvider() {
  static Provider* p = new Provider();  // never destroyed: spans may end at exit
  return *p;
}

}  // namespace

bool Sampler::ShouldSample(const TraceId& trace_id, const TraceContext* parent) const {
  if (parent_based && parent != nullptr) return parent->sampled();
  switch (root) {
    case Root::kAlwaysOn: return true;
    case Root::kAlwaysOff: return false;
    case Root::kTraceIdRatio: {
      uint64_t x = 0;
      for (int i = 8; i < 16; ++i) x = (x << 8) | trace_id[i];
      x &= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      return static_cast<double>(x) <
             ratio * static_cast<double>(std::numeric_limits<int64_t>::max());
    }
  }
  return true;
}

void SetTracerProvider(Sampler sampler, std::shared_ptr<SpanProcessor> processor) {
  Provider& p = GlobalProvider();
  absl::MutexLock lock(&p.mu);
  p.sampler = sampler;
  p.processor = std::move(processor);
}

Span Span::Start(absl::string_view name, SpanKind kind, const TraceContext* parent) {
  Span s;
  bool sampled;
  bool have_processor;
  const bool has_parent = parent != nullptr && parent->valid();
  s.data_.context.trace_id = has_parent ? parent->trace_id : NewTraceId();
  {
    Provider& p = GlobalProvider();
    absl::ReaderMutexLock lock(&p.mu);
    sampled = p.sampler.ShouldSample(s.data_.context.trace_id, has_parent ? parent : nullptr);
    have_processor = p.processor != nullptr;
  }
  s.data_.context.span_id = NewSpanId();
  s.data_.context.flags = sampled ? 0x01 : 0x00;
  if (has_parent) {
    s.data_.parent_span_id = parent->span_id;
    s.data_.context.tracestate = parent->tracestate;
  }
  s.recording_ = sampled && have_processor;
  if (s.recording_) {
    s.data_.name = std::string(name);
    s.data_.kind = kind;
    s.data_.start = absl::Now();
  }
  return s;
}

Span::Span(Span&& other) noexcept
    : data_(std::move(other.data_)), recording_(other.recording_), ended_(other.ended_) {
  other.ended_ = true;
}

void Span::SetAttribute(absl::string_view key, AttributeValue value) {
  if (!recording_ || ended_) return;
  data_.attributes.emplace_back(std::string(key), std::move(value));
}

void Span::SetStatus(SpanStatus status, absl::string_view message) {
  if (!recording_ || ended_) return;
  data_.status = status;
  data_.status_message = status == SpanStatus::kError ? std::string(message) : "";
}

void Span::End() {
  if (ended_) return;
  ended_ = true;
  if (!recording_) return;
  data_.end = absl::Now();
  std::shared_ptr<SpanProcessor> processor;
  {
    Provider& p = GlobalProvider();
    absl::ReaderMutexLock lock(&p.mu);
    processor = p.processor;
  }
  if (processor) processor->OnEnd(std::move(data_));
}

}  // namespace sluice::trace
