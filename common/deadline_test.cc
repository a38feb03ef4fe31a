#include "common/deadline.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(CallDeadline, InfiniteOutsideACallAndTheLimitIsKept) {
  EXPECT_EQ(CallDeadline(), absl::InfiniteFuture());
  EXPECT_EQ(TimeLeft(absl::Seconds(5)), absl::Seconds(5));
}

TEST(CallDeadline, ScopeCapsTheLimitAndRestoresOnExit) {
  {
    CallDeadlineScope call(absl::Now() + absl::Seconds(2));
    absl::Duration left = TimeLeft(absl::Seconds(10));
    EXPECT_LE(left, absl::Seconds(2));
    EXPECT_GT(left, absl::Seconds(1));
    EXPECT_EQ(TimeLeft(absl::Milliseconds(100)), absl::Milliseconds(100));
    {
      // A later inner deadline does not extend the outer one.
      CallDeadlineScope inner(absl::Now() + absl::Hours(1));
      EXPECT_LE(TimeLeft(absl::Seconds(10)), absl::Seconds(2));
    }
    EXPECT_LE(TimeLeft(absl::Seconds(10)), absl::Seconds(2));
  }
  EXPECT_EQ(CallDeadline(), absl::InfiniteFuture());
}

TEST(CallDeadline, PassedDeadlineLeavesNoTime) {
  CallDeadlineScope call(absl::Now() - absl::Milliseconds(1));
  EXPECT_LE(TimeLeft(absl::Seconds(10)), absl::ZeroDuration());
}

}  // namespace
}  // namespace sluice
