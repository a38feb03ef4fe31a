// W3C Trace Context (https://www.w3.org/TR/trace-context/, level 1): the
// `traceparent` header's ids and the current thread's trace context.
//
// Why a thread-local: the context must reach every log line, audit row and
// outbound HTTP call made while serving a request, and those sit many calls
// below the gRPC handler (handler → core service → provider plugin →
// common/http_client). Threading an explicit argument through every
// interface would touch hundreds of signatures; a scoped thread-local, set
// by the server interceptor for exactly the handler's run (sync gRPC runs a
// call's hooks and handler on one thread) and restored on scope exit, is
// the same choice common/deadline.h made for the call deadline. Work handed
// to another thread does not inherit it: a queue stores the traceparent
// with its row and restores it when delivering.
#ifndef SLUICE_COMMON_TRACE_TRACE_CONTEXT_H_
#define SLUICE_COMMON_TRACE_TRACE_CONTEXT_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace sluice::trace {

// gRPC metadata keys and HTTP header names (lower case, as gRPC requires).
inline constexpr char kTraceparentHeader[] = "traceparent";
inline constexpr char kTracestateHeader[] = "tracestate";

using TraceId = std::array<uint8_t, 16>;  // W3C trace-id, 16 bytes
using SpanId = std::array<uint8_t, 8>;    // W3C parent-id / span id, 8 bytes

// One span's position in a trace: what `traceparent` carries, plus the
// vendor `tracestate` passed through unchanged.
struct TraceContext {
  TraceId trace_id{};
  SpanId span_id{};
  uint8_t flags = 0;       // trace-flags; bit 0 is "sampled" (section 3.2.2.5)
  std::string tracestate;  // as received, "" when absent (bounded, see below)

  // Both ids non-zero (an all-zero id is invalid, section 3.2.2.3/3.2.2.4).
  bool valid() const;
  bool sampled() const { return (flags & 0x01) != 0; }
  std::string TraceIdHex() const;  // 32 lowercase hex characters
  std::string SpanIdHex() const;   // 16 lowercase hex characters
};

// The longest `tracestate` kept (W3C allows 32 members of up to 256 bytes;
// 512 bytes is what the spec asks every vendor to propagate at least). A
// longer one is dropped, not truncated (section 3.3.1.5 allows either).
inline constexpr size_t kMaxTracestateBytes = 512;

// Parses a `traceparent` value strictly (section 3.2 with the version 00
// rules of 3.2.4): "vv-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>",
// lowercase hex only, version ff refused, neither id all zeros. Version 00
// must be exactly 55 characters; a higher version may carry more fields
// after a '-' (only the first four are read). Any value over 256 bytes is
// refused. nullopt for anything invalid: the caller then starts a new trace
// (section 3.2.2, "if the header is invalid ... start a new trace").
std::optional<TraceContext> ParseTraceparent(absl::string_view value);

// "00-<trace-id>-<span-id>-<flags>" for `ctx` (always version 00).
std::string FormatTraceparent(const TraceContext& ctx);

// `value` if it is a plausible tracestate (printable ASCII, at most
// kMaxTracestateBytes), else "".
std::string SanitizeTracestate(absl::string_view value);

// A random non-zero span id (OpenSSL RAND_bytes).
SpanId NewSpanId();
// A random non-zero trace id (OpenSSL RAND_bytes).
TraceId NewTraceId();

// The current thread's trace context, or nullptr outside any scope. Valid
// until the thread's innermost scope closes.
const TraceContext* Current();

// The current trace id as 32 hex characters, "" outside any scope.
std::string CurrentTraceId();

// FormatTraceparent(*Current()), "" outside any scope: what a queued row
// stores so that its later delivery continues the trace (tracestate is not
// kept).
std::string CurrentTraceparent();

// Makes a copy of `ctx` the current thread's context for its lifetime and
// restores the previous one (scopes nest). The thread holds a copy, never a
// pointer, so a scope closed on another thread (or never) leaves a stale
// context at worst, not a dangling one.
class ContextScope {
 public:
  explicit ContextScope(const TraceContext& ctx);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

  // Makes the destructor restore nothing: for a scope that must close on a
  // thread other than the one that opened it.
  void Dismiss() { dismissed_ = true; }

 private:
  std::optional<TraceContext> previous_;
  bool dismissed_ = false;
};

}  // namespace sluice::trace

#endif  // SLUICE_COMMON_TRACE_TRACE_CONTEXT_H_
