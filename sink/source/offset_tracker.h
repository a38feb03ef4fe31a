// Which offsets may be committed after a batch. Rules (issue 7, Durability):
// a pushed message is committed, a filtered-out message is committed too, a
// failed message is never committed, and nothing after it in its partition
// is committed either (committing offset N means "everything below N is done").
#ifndef SLUICE_SINK_SOURCE_OFFSET_TRACKER_H_
#define SLUICE_SINK_SOURCE_OFFSET_TRACKER_H_

#include <cstdint>
#include <map>
#include <vector>

#include "sink/message.h"
#include "sink/source/consumer.h"

namespace sluice::sink {

// Tracks, per partition, the next offset to commit. Single-threaded (one per
// worker).
class OffsetTracker {
 public:
  // Records that every message of the polled `batch` has been handled
  // (pushed, filtered out or failed): BeginBatch + EndBatch.
  void MarkBatch(const std::vector<Message>& batch);

  // Records that the polled `batch` is being handled. Until EndBatch(),
  // nothing from the batch's first offset in each of its partitions on is
  // committable, so that a commit in the middle of a batch (a revoke served
  // while the retry decorator keeps the consumer polled, or the final commit
  // after an error escaped the batch) never covers records not yet handled.
  void BeginBatch(const std::vector<Message>& batch);

  // The batch begun last is handled; failures must already be recorded with
  // MarkFailed. Its offsets become committable.
  void EndBatch();

  // Records `failed`: their partitions are blocked at the lowest failed offset
  // until Forget() (a restart or a rebalance re-reads them). Failures of
  // partitions not tracked (forgotten by a revoke during the batch) are
  // ignored: the partition's new owner re-reads them.
  void MarkFailed(const std::vector<FailedMessage>& failed);

  // Offsets that advanced since the last TakePending() (or were handed back
  // by Retry), and marks them taken.
  std::vector<PartitionOffset> TakePending();

  // Hands back offsets whose commit failed (an async commit refused during
  // a rebalance): a partition whose last taken offset is still the failed
  // one is returned again by the next TakePending(). Later offsets, and
  // partitions no longer tracked, are left alone.
  void Retry(const std::vector<PartitionOffset>& failed);

  // Everything committable for `partitions` (taken or not), e.g. before a
  // revoke. Empty partitions are skipped.
  std::vector<PartitionOffset> CommittableFor(const std::vector<TopicPartition>& partitions) const;

  // Drops state of `partitions` (after they were revoked).
  void Forget(const std::vector<TopicPartition>& partitions);

  // Last offset handed out for commit, or -1.
  int64_t Committed(const TopicPartition& tp) const;

 private:
  struct State {
    int64_t next = -1;           // next offset to commit (highest handled + 1)
    int64_t blocked_at = -1;     // lowest failed offset, -1 when none
    int64_t taken = -1;          // last value returned by TakePending
    int64_t inflight_from = -1;  // first offset of the batch in hand, -1 when none
    bool retry = false;          // `taken` failed to commit: take it again
  };
  int64_t CommitOffset(const State& s) const {
    int64_t off = s.next;
    if (s.blocked_at >= 0 && s.blocked_at < off) off = s.blocked_at;
    if (s.inflight_from >= 0 && s.inflight_from < off) off = s.inflight_from;
    return off;
  }
  std::map<TopicPartition, State> state_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SOURCE_OFFSET_TRACKER_H_
