#include "common/trace/trace_context.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace sluice::trace {
namespace {

// The example of W3C Trace Context, section 3.2.
constexpr char kValid[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(ParseTraceparent, ValidVersion00) {
  auto ctx = ParseTraceparent(kValid);
  ASSERT_TRUE(ctx.has_value());
  EXPECT_EQ(ctx->TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(ctx->SpanIdHex(), "00f067aa0ba902b7");
  EXPECT_TRUE(ctx->sampled());
  EXPECT_EQ(FormatTraceparent(*ctx), kValid);
}

TEST(ParseTraceparent, NotSampled) {
  auto ctx = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  ASSERT_TRUE(ctx.has_value());
  EXPECT_FALSE(ctx->sampled());
}

TEST(ParseTraceparent, UnknownFlagBitsAreNotPropagated) {
  auto ctx = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03");
  ASSERT_TRUE(ctx.has_value());
  EXPECT_EQ(ctx->flags, 0x01);
}

TEST(ParseTraceparent, HigherVersionMayCarryMoreFields) {
  // Section 3.2.4.2: a parser of version 00 reads a higher version's first
  // four fields when the rest is separated by '-'.
  auto ctx = ParseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what");
  ASSERT_TRUE(ctx.has_value());
  EXPECT_EQ(ctx->TraceIdHex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_TRUE(ParseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
  EXPECT_FALSE(ParseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"));
}

TEST(ParseTraceparent, RefusesEachInvalidForm) {
  const char* invalid[] = {
      "",
      "00",
      // version ff is forbidden; a non-hex or upper-case version
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      // version 00 with trailing data
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ",
      // all-zero trace id, all-zero parent id
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      // upper case hex in each field
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A",
      // short and long ids (lengths shift the separators)
      "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e47366-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b77-01",
      // wrong separators, non-hex characters, a one-digit flags field
      "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
      "00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0z",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
  };
  for (const char* v : invalid) EXPECT_FALSE(ParseTraceparent(v).has_value()) << v;
  // Bounded: a huge value of a future version is refused without reading it.
  std::string huge = std::string("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-") +
                     std::string(300, 'a');
  EXPECT_FALSE(ParseTraceparent(huge).has_value());
}

TEST(SanitizeTracestate, KeepsPrintableAndBounded) {
  EXPECT_EQ(SanitizeTracestate("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"),
            "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
  EXPECT_EQ(SanitizeTracestate("a=b\n"), "");
  EXPECT_EQ(SanitizeTracestate(std::string(kMaxTracestateBytes + 1, 'a')), "");
}

TEST(NewIds, RandomAndNonZero) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    TraceContext ctx{NewTraceId(), NewSpanId(), 1, ""};
    EXPECT_TRUE(ctx.valid());
    seen.insert(ctx.TraceIdHex());
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(ContextScope, NestsAndRestores) {
  EXPECT_EQ(Current(), nullptr);
  EXPECT_EQ(CurrentTraceId(), "");
  TraceContext outer = *ParseTraceparent(kValid);
  {
    ContextScope a(outer);
    EXPECT_EQ(CurrentTraceId(), "4bf92f3577b34da6a3ce929d0e0e4736");
    TraceContext inner{NewTraceId(), NewSpanId(), 0, ""};
    {
      ContextScope b(inner);
      EXPECT_EQ(CurrentTraceId(), inner.TraceIdHex());
    }
    EXPECT_EQ(CurrentTraceId(), "4bf92f3577b34da6a3ce929d0e0e4736");
    {
      ContextScope c(inner);
      c.Dismiss();  // closes without restoring
    }
    EXPECT_EQ(CurrentTraceId(), inner.TraceIdHex());
  }
}

}  // namespace
}  // namespace sluice::trace
