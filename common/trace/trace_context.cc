#include "common/trace/trace_context.h"

#include <openssl/rand.h>

#include <algorithm>
#include <random>

#include "absl/strings/escaping.h"

namespace sluice::trace {
namespace {

// The current context: a copy in thread-local storage (see ContextScope).
thread_local TraceContext slot;
thread_local bool has_current = false;

bool IsLowerHex(absl::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

template <size_t N>
bool AllZero(const std::array<uint8_t, N>& a) {
  return std::all_of(a.begin(), a.end(), [](uint8_t b) { return b == 0; });
}

template <size_t N>
bool FromHex(absl::string_view hex, std::array<uint8_t, N>* out) {
  if (hex.size() != 2 * N || !IsLowerHex(hex)) return false;
  std::string bytes = absl::HexStringToBytes(hex);
  std::copy(bytes.begin(), bytes.end(), out->begin());
  return true;
}

template <size_t N>
std::string ToHex(const std::array<uint8_t, N>& a) {
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(a.data()), a.size()));
}

template <size_t N>
std::array<uint8_t, N> RandomNonZero() {
  std::array<uint8_t, N> out{};
  do {
    if (RAND_bytes(out.data(), static_cast<int>(N)) != 1) {
      // OpenSSL's CSPRNG failing is an outage of the process itself; an id
      // is still needed, and the kernel's generator serves it.
      std::random_device rd;
      for (auto& b : out) b = static_cast<uint8_t>(rd());
    }
  } while (AllZero(out));
  return out;
}

}  // namespace

bool TraceContext::valid() const { return !AllZero(trace_id) && !AllZero(span_id); }
std::string TraceContext::TraceIdHex() const { return ToHex(trace_id); }
std::string TraceContext::SpanIdHex() const { return ToHex(span_id); }

std::optional<TraceContext> ParseTraceparent(absl::string_view v) {
  // version "-" trace-id "-" parent-id "-" trace-flags: 2+1+32+1+16+1+2.
  constexpr size_t kV00Size = 55;
  if (v.size() < kV00Size || v.size() > 256) return std::nullopt;
  absl::string_view version = v.substr(0, 2);
  if (!IsLowerHex(version) || version == "ff") return std::nullopt;
  if (v[2] != '-' || v[35] != '-' || v[52] != '-') return std::nullopt;
  if (version == "00" && v.size() != kV00Size) return std::nullopt;
  // A future version may append fields, each after a '-' (section 3.2.4.2).
  if (v.size() > kV00Size && v[kV00Size] != '-') return std::nullopt;
  TraceContext ctx;
  std::array<uint8_t, 1> flags{};
  if (!FromHex(v.substr(3, 32), &ctx.trace_id) || !FromHex(v.substr(36, 16), &ctx.span_id) ||
      !FromHex(v.substr(53, 2), &flags)) {
    return std::nullopt;
  }
  if (!ctx.valid()) return std::nullopt;
  ctx.flags = flags[0];
  // Version 00 defines only the sampled bit (section 3.2.2.5); the others
  // are cleared so that flags this parser does not understand are never
  // passed on as if it did.
  ctx.flags &= 0x01;
  return ctx;
}

std::string FormatTraceparent(const TraceContext& ctx) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string flags = {kHex[ctx.flags >> 4], kHex[ctx.flags & 0xf]};
  return "00-" + ctx.TraceIdHex() + "-" + ctx.SpanIdHex() + "-" + flags;
}

std::string SanitizeTracestate(absl::string_view value) {
  if (value.size() > kMaxTracestateBytes) return "";
  for (char c : value) {
    if (c < 0x20 || c > 0x7e) return "";
  }
  return std::string(value);
}

SpanId NewSpanId() { return RandomNonZero<8>(); }
TraceId NewTraceId() { return RandomNonZero<16>(); }

const TraceContext* Current() { return has_current ? &slot : nullptr; }

std::string CurrentTraceId() { return has_current ? slot.TraceIdHex() : ""; }

std::string CurrentTraceparent() { return has_current ? FormatTraceparent(slot) : ""; }

ContextScope::ContextScope(const TraceContext& ctx) {
  if (has_current) previous_ = slot;
  slot = ctx;
  has_current = true;
}

ContextScope::~ContextScope() {
  if (dismissed_) return;
  has_current = previous_.has_value();
  if (previous_) slot = std::move(*previous_);
}

}  // namespace sluice::trace
