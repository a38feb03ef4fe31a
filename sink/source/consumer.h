// The Kafka consumer as the worker sees it: a thin interface so that the
// worker loop and commit rules can be tested without a broker. The real
// implementation is KafkaConsumer (librdkafka); tests use fakes.
#ifndef SLUICE_SINK_SOURCE_CONSUMER_H_
#define SLUICE_SINK_SOURCE_CONSUMER_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "sink/message.h"

namespace sluice::sink {

// A topic partition, ordered by (topic, partition).
struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  bool operator<(const TopicPartition& o) const {
    return std::tie(topic, partition) < std::tie(o.topic, o.partition);
  }
  bool operator==(const TopicPartition& o) const {
    return topic == o.topic && partition == o.partition;
  }
};

// An offset to commit: the offset of the NEXT record to read (Kafka's rule).
struct PartitionOffset {
  TopicPartition tp;
  int64_t offset = 0;
};

// Per-partition state reported by GetStatus and the lag gauge.
struct PartitionStatus {
  TopicPartition tp;
  int64_t committed = -1;       // last offset this worker committed (-1: none yet)
  int64_t position = -1;        // next offset to fetch (-1: unknown)
  int64_t high_watermark = -1;  // log end offset (-1: unknown)
  int64_t lag = -1;             // high_watermark - position (-1: unknown)
  bool paused = false;
};

// Called on the worker thread, inside Poll, around a rebalance.
class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  // Before `partitions` are taken away: commit what is done for them.
  virtual void OnPartitionsRevoked(const std::vector<TopicPartition>& partitions) = 0;
  // After `partitions` were assigned.
  virtual void OnPartitionsAssigned(const std::vector<TopicPartition>& partitions) = 0;
  // A rebalance completed and `partitions` (possibly none, under the
  // cooperative protocol) are about to be assigned: this member holds the
  // new generation, and the added partitions' positions are not fetched
  // yet. The place to commit what a revoke could not (the dev broker
  // refuses commits while the group joins). The default does nothing.
  virtual void BeforePartitionsAssigned(const std::vector<TopicPartition>& partitions) {
    (void)partitions;
  }
  // Where `partitions`, about to be assigned, start: the returned offsets
  // (next offsets to read) replace the group's committed ones before any
  // record of theirs is fetched (set in the assignment itself, for both
  // the eager and the cooperative protocol). Partitions left out start at
  // the committed offset, or per auto.offset.reset. Called after
  // BeforePartitionsAssigned. The default returns none.
  virtual std::vector<PartitionOffset> StartOffsets(const std::vector<TopicPartition>& partitions) {
    (void)partitions;
    return {};
  }
  // `partitions` were lost (this member was expelled from the group, e.g.
  // after session.timeout.ms): another member may already own them, so
  // nothing can be committed for them. The default forgets nothing.
  virtual void OnPartitionsLost(const std::vector<TopicPartition>& partitions) { (void)partitions; }
};

// One group member. Owned and used by a single worker thread.
class Consumer {
 public:
  virtual ~Consumer() = default;

  // Appends up to `max_records` records to `out`: waits at most `timeout` for
  // the first, then takes what is already fetched. An empty result is not an
  // error. Errors are fatal consumer errors (e.g. authentication).
  virtual absl::Status Poll(int max_records, absl::Duration timeout, std::vector<Message>* out) = 0;

  // Commits `offsets` (next offsets to read). With `async`, returns at once and
  // the outcome is reported through the commit_total metric; otherwise waits
  // and returns the broker's answer.
  virtual absl::Status Commit(const std::vector<PartitionOffset>& offsets, bool async) = 0;

  // Offsets of asynchronous commits the broker refused since the last call
  // (e.g. "rebalance in progress" while the group joins), for the caller to
  // commit again. The default reports none.
  virtual std::vector<PartitionOffset> TakeFailedCommits() { return {}; }

  // Pauses or resumes fetching of every assigned partition, keeping group
  // membership (Poll must still be called).
  virtual void SetPaused(bool paused) = 0;

  // Serves the consumer without taking records, while every partition is
  // paused (SetPaused(true)) and a batch is being retried: this counts as a
  // poll for the group (librdkafka's max.poll.interval.ms), and rebalance
  // callbacks may run inside. Never hands out or skips a record.
  virtual void KeepAlive() = 0;

  // Moves the fetch position of assigned partitions to `offsets` (next
  // offsets to read); records already fetched beyond them are dropped, so
  // the next Poll returns the partition's records from there. Errors name
  // the partition. The default is Unimplemented.
  virtual absl::Status Seek(const std::vector<PartitionOffset>& offsets) {
    (void)offsets;
    return absl::UnimplementedError("this consumer cannot seek");
  }

  // Assigned partitions with position, high watermark and lag.
  virtual std::vector<PartitionStatus> Partitions() = 0;

  // Sets the listener called inside Poll on rebalances (not owned; may be null).
  virtual void SetRebalanceListener(RebalanceListener* listener) = 0;

  // Leaves the group and releases the consumer. Idempotent.
  virtual absl::Status Close() = 0;

  // From now on, synchronous commits (also those of a revoke inside Close)
  // and Close itself wait no later than `deadline`; what is not committed by
  // then is redelivered to the next member (at-least-once). Set by the
  // worker once it stops, so that shutdown is bounded whatever the broker
  // does. The default ignores it.
  virtual void SetShutdownDeadline(absl::Time deadline) { (void)deadline; }
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SOURCE_CONSUMER_H_
