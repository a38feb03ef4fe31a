// Offsets kept beside the sink's own writes (SINK_JDBC_EXACTLY_ONCE_ENABLE):
// the rows a batch produced and the consumed offsets commit in ONE
// transaction of the sink's database, and a partition assigned to the worker
// starts at the offset stored there, not at the group's committed offset.
// The worker drives it (worker.h); the JDBC sink implements it. One per
// worker thread, never shared.
#ifndef SLUICE_SINK_SOURCE_OFFSET_STORE_H_
#define SLUICE_SINK_SOURCE_OFFSET_STORE_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sink/source/consumer.h"

namespace sluice::sink {

class OffsetStore {
 public:
  virtual ~OffsetStore() = default;

  // The stored next offsets of `partitions` for this consumer group;
  // partitions with none stored are left out. Remembers each answer (or its
  // absence) as the value the next Commit of that partition expects.
  // Unavailable when the database cannot be read.
  virtual absl::StatusOr<std::vector<PartitionOffset>> Load(
      const std::vector<TopicPartition>& partitions) = 0;

  // Stores `offsets` (next offsets to read) in the transaction that holds
  // everything the sink wrote since the last Commit or Rollback, and
  // commits it: rows and offsets become visible together or not at all.
  // Each partition's stored offset is compared with the one last loaded or
  // committed through this store (a fence against a member that lost the
  // partition). Errors, after which nothing may be assumed committed and
  // the caller reloads (Load) and re-reads from there:
  // - Aborted: a stored offset changed under us (another member committed
  //   the partition); nothing was committed;
  // - FailedPrecondition: a partition was never loaded; nothing committed;
  // - Unavailable: the transaction or connection was lost; the outcome of
  //   a COMMIT whose answer was lost is unknown.
  virtual absl::Status Commit(const std::vector<PartitionOffset>& offsets) = 0;

  // Discards everything the sink wrote since the last Commit or Rollback.
  virtual void Rollback() = 0;

  // Forgets what Load remembered for `partitions` (revoked or lost).
  virtual void Forget(const std::vector<TopicPartition>& partitions) = 0;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SOURCE_OFFSET_STORE_H_
