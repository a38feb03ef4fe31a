// Spans: timed operations of a trace, ended into the process's span
// processor (common/trace/batch_processor.h) when one is installed and the
// span is sampled. Without a processor, spans still give every request a
// trace context (ids for logs, audit rows and outbound `traceparent`) and
// cost two RAND_bytes calls and a clock read.
#ifndef SLUICE_COMMON_TRACE_SPAN_H_
#define SLUICE_COMMON_TRACE_SPAN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/trace/trace_context.h"

namespace sluice::trace {

// OTLP's Span.SpanKind values (opentelemetry/proto/trace/v1/trace.proto).
enum class SpanKind { kInternal = 1, kServer = 2, kClient = 3, kProducer = 4, kConsumer = 5 };

// OTLP's Status.StatusCode values: unset, ok, error.
enum class SpanStatus { kUnset = 0, kOk = 1, kError = 2 };

// An attribute value: a string, an integer, a boolean or a double.
using AttributeValue = std::variant<std::string, int64_t, bool, double>;

// A finished span as handed to a SpanProcessor.
struct SpanData {
  TraceContext context;      // this span's trace id, span id, flags, tracestate
  SpanId parent_span_id{};   // all zeros for a root span
  std::string name;          // e.g. "/sluice.access.v1beta1.PolicyService/CreatePolicy"
  SpanKind kind = SpanKind::kInternal;
  absl::Time start;
  absl::Time end;
  std::vector<std::pair<std::string, AttributeValue>> attributes;
  SpanStatus status = SpanStatus::kUnset;
  std::string status_message;  // only with kError
};

// Receives every sampled span when it ends. OnEnd runs on the thread that
// ended the span, on the request path: it must not block.
class SpanProcessor {
 public:
  virtual ~SpanProcessor() = default;
  virtual void OnEnd(SpanData span) = 0;
};

// The sampling decision for a new root span or a child of a remote parent
// (OTel SDK spec, "Sampling"; names as in OTEL_TRACES_SAMPLER).
struct Sampler {
  enum class Root { kAlwaysOn, kAlwaysOff, kTraceIdRatio };
  Root root = Root::kAlwaysOn;
  double ratio = 1.0;         // kTraceIdRatio: the share of traces sampled, [0, 1]
  bool parent_based = true;   // a parent's sampled flag decides when there is one

  // Whether a span of `trace_id` is sampled; `parent` is the remote or local
  // parent, if any. TraceIdRatio compares the trace id's last 8 bytes, so
  // every service with the same ratio makes the same decision.
  bool ShouldSample(const TraceId& trace_id, const TraceContext* parent) const;
};

// Installs the process's sampler and processor (nullptr: none; spans are
// then dropped at End). Call at start-up before serving, and again with
// nullptr before the processor is destroyed. Not thread-safe against spans
// ending concurrently with the change.
void SetTracerProvider(Sampler sampler, std::shared_ptr<SpanProcessor> processor);

// An operation being timed. Movable, not copyable; ends (once) at End() or
// destruction. Not thread-safe: one thread uses a span at a time.
class Span {
 public:
  // A span whose parent is `parent` (a remote context from `traceparent`, a
  // stored one, or nullptr to start a new trace). The trace id and flags
  // come from the parent; the span id is new.
  static Span Start(absl::string_view name, SpanKind kind, const TraceContext* parent);
  // A span whose parent is the current thread's context (trace::Current()),
  // or a new trace when there is none.
  static Span StartChild(absl::string_view name, SpanKind kind) {
    return Start(name, kind, Current());
  }

  Span(Span&& other) noexcept;
  Span& operator=(Span&& other) = delete;
  Span(const Span&) = delete;
  ~Span() { End(); }

  // This span's context: what a child's `traceparent` carries.
  const TraceContext& context() const { return data_.context; }
  bool recording() const { return recording_; }

  // Attributes and status are kept only on a sampled span (recording()).
  void SetAttribute(absl::string_view key, AttributeValue value);
  void SetStatus(SpanStatus status, absl::string_view message = "");
  // Ends the span and hands it to the processor; later calls do nothing.
  void End();

 private:
  Span() = default;
  SpanData data_;
  bool recording_ = false;
  bool ended_ = false;
};

// A span that is also the current thread's context while it lives: what is
// logged, audited or called out under it belongs to it.
class ScopedSpan {
 public:
  ScopedSpan(absl::string_view name, SpanKind kind, const TraceContext* parent)
      : span_(Span::Start(name, kind, parent)), scope_(span_.context()) {}
  // The span, for attributes and status; it ends when this scope does.
  Span& span() { return span_; }

 private:
  Span span_;
  ContextScope scope_;
};

}  // namespace sluice::trace

#endif  // SLUICE_COMMON_TRACE_SPAN_H_
