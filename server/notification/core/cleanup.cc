#include "server/notification/core/cleanup.h"

namespace sluice::notification {

absl::StatusOr<int64_t> CleanupQueue(NotificationRepository& queue, absl::Time now,
                                     absl::Duration retention) {
  // A zero retention would delete a message a worker has just published,
  // before anyone could read its outcome.
  if (retention <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("notification.queue_retention_seconds: must be > 0");
  }
  return queue.DeletePublished(now - retention);
}

}  // namespace sluice::notification
