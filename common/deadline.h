#ifndef SLUICE_COMMON_DEADLINE_H_
#define SLUICE_COMMON_DEADLINE_H_

// The deadline of the RPC the current thread serves (review M4: a server-side
// deadline for every RPC). The gRPC handler wrapper (auth::WithCaller) opens a
// CallDeadlineScope; the blocking steps under it, the database pool's lease
// wait and every HTTP request of common/http_client, wait at most until it.
// A sync gRPC handler cannot be pre-empted, so the deadline bounds the waits,
// not arbitrary computation. Thread-local: work handed to another thread does
// not inherit it.

#include "absl/time/time.h"

namespace sluice {

// Sets the current thread's call deadline for its lifetime and restores the
// previous one (scopes nest; the inner deadline is never later than the
// outer one).
class CallDeadlineScope {
 public:
  explicit CallDeadlineScope(absl::Time deadline);
  ~CallDeadlineScope();
  CallDeadlineScope(const CallDeadlineScope&) = delete;
  CallDeadlineScope& operator=(const CallDeadlineScope&) = delete;

 private:
  absl::Time previous_;
};

// The current thread's call deadline; absl::InfiniteFuture() outside a call
// (background jobs, start-up).
absl::Time CallDeadline();

// min(`limit`, time left before CallDeadline()); zero or negative once the
// deadline has passed. `limit` is the step's own timeout.
absl::Duration TimeLeft(absl::Duration limit);

}  // namespace sluice

#endif  // SLUICE_COMMON_DEADLINE_H_
