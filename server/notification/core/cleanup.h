// The `cleanup_queue` job (Siren's job of that name): deletes published
// messages older than the retention from the delivery queue.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_CLEANUP_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_CLEANUP_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/notification/core/repository.h"

namespace sluice::notification {

// Siren's default threshold for published messages (`siren job run
// cleanup_queue --published 168h`).
inline constexpr absl::Duration kDefaultQueueRetention = absl::Hours(168);

// Deletes the messages published before now - `retention` and returns how
// many. Enqueued, pending, failed and expired messages stay (they are what
// an operator looks at). InvalidArgument for a retention ≤ 0.
absl::StatusOr<int64_t> CleanupQueue(NotificationRepository& queue, absl::Time now,
                                     absl::Duration retention);

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_CLEANUP_H_
