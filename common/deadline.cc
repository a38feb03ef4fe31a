#include "common/deadline.h"

#include <algorithm>

#include "absl/time/clock.h"

namespace sluice {
namespace {
thread_local absl::Time current_deadline = absl::InfiniteFuture();
}  // namespace

CallDeadlineScope::CallDeadlineScope(absl::Time deadline) : previous_(current_deadline) {
  current_deadline = std::min(previous_, deadline);
}

CallDeadlineScope::~CallDeadlineScope() { current_deadline = previous_; }

absl::Time CallDeadline() { return current_deadline; }

absl::Duration TimeLeft(absl::Duration limit) {
  if (current_deadline == absl::InfiniteFuture()) return limit;
  return std::min(limit, current_deadline - absl::Now());
}

}  // namespace sluice
