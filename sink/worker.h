// The worker loop of sluice-sink (issue 7): each of APPLICATION_THREAD_COUNT
// workers owns one Consumer and repeats poll → decode → filter → push (with
// retry/DLQ) → metrics → commit. Offsets are committed after the batch is
// handled and before the next poll; failed messages are never committed.
#ifndef SLUICE_SINK_WORKER_H_
#define SLUICE_SINK_WORKER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "sink/metrics.h"
#include "sink/source/consumer.h"
#include "sink/source/offset_store.h"
#include "sink/source/offset_tracker.h"
#include "sink/stages.h"

namespace sluice::sink {

// State shared by the workers, main() and the control API. Thread-safe.
class WorkerControl {
 public:
  // Counters over all workers since start.
  struct Counters {
    int64_t consumed = 0;   // records polled
    int64_t filtered = 0;   // records dropped by the filter (committed)
    int64_t pushed = 0;     // records the sink chain delivered (incl. DLQ)
    int64_t failed = 0;     // records left failed (not committed)
    int64_t commits = 0;    // commit calls
  };

  // Asks every worker to finish its batch, commit and return.
  void RequestStop() { stop_.store(true); }
  bool StopRequested() const { return stop_.load(std::memory_order_relaxed); }

  // Pauses / resumes consumption (group membership is kept).
  void SetPaused(bool paused) { paused_.store(paused); }
  bool Paused() const { return paused_.load(std::memory_order_relaxed); }

  // Worker `id` reports its partitions (replacing its previous report).
  void ReportPartitions(int id, std::vector<PartitionStatus> partitions) ABSL_LOCKS_EXCLUDED(mu_);
  // All partitions reported by all workers.
  std::vector<PartitionStatus> Partitions() const ABSL_LOCKS_EXCLUDED(mu_);

  void AddCounts(const Counters& delta) ABSL_LOCKS_EXCLUDED(mu_);
  Counters GetCounters() const ABSL_LOCKS_EXCLUDED(mu_);

  // The last error any worker met (empty when none).
  void SetLastError(std::string error) ABSL_LOCKS_EXCLUDED(mu_);
  std::string LastError() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> paused_{false};
  mutable absl::Mutex mu_;
  std::map<int, std::vector<PartitionStatus>> partitions_ ABSL_GUARDED_BY(mu_);
  Counters counters_ ABSL_GUARDED_BY(mu_);
  std::string last_error_ ABSL_GUARDED_BY(mu_);
};

// Per-worker settings (from SourceConfig).
struct WorkerOptions {
  int id = 0;
  int max_poll_records = 500;
  // How long one poll waits for its first record; the worker polls in short
  // slices so that SIGTERM is noticed quickly.
  absl::Duration poll_timeout = absl::InfiniteDuration();
  bool async_commit = true;
  // SOURCE_KAFKA_CONSUMER_CONFIG_MANUAL_COMMIT_MIN_INTERVAL_MS: a commit is
  // due when more than this has passed since the last one (Firehose's
  // ConsumerAndOffsetManager.commit); negative: after every batch. Offsets
  // not yet due are committed by a later poll cycle (with or without
  // records), a revoke, a fatal error or shutdown.
  absl::Duration commit_min_interval = absl::Milliseconds(-1);
  // How often partitions and lag are reported.
  absl::Duration report_interval = absl::Seconds(1);
  // Once the loop ends, the final commit and the consumer's close (its
  // revoke commit and LeaveGroup) together wait at most this long
  // (Consumer::SetShutdownDeadline); what is not committed by then is
  // redelivered.
  absl::Duration shutdown_budget = absl::Seconds(8);
};

// Where a worker's time went, summed over its batches (wall time, measured
// per batch, not per record). Logged when the worker stops; the Kafka
// benchmark prints it.
struct StageTimes {
  absl::Duration idle;     // polls that returned no record
  absl::Duration consume;  // polls that returned records (incl. the wait for the first)
  absl::Duration decode;
  absl::Duration filter;
  absl::Duration sink;     // the dispatcher: sink chain with retries and DLQ
  absl::Duration commit;   // commit calls (async: handing the offsets to librdkafka)
  absl::Duration metrics;  // the worker's per-batch metrics and partition reports
  int64_t records = 0;
  int64_t batches = 0;
  // "consume 1.20 s, decode 0.30 s, ..." (seconds, 2 decimals).
  std::string ToString() const;
};

class Worker : public RebalanceListener {
 public:
  // `decoder` and `filter` may be null (json input, NO_OP filter). None of the
  // pointers is owned; all must outlive Run().
  Worker(WorkerOptions options, std::unique_ptr<Consumer> consumer, Decoder* decoder,
         Filter* filter, Dispatcher* dispatcher, Metrics* metrics, WorkerControl* control);

  // Runs until control->RequestStop() (then finishes the batch, commits,
  // closes the consumer and returns OK) or a fatal error (a poison message
  // of a failing type, a failed synchronous commit, a fatal consumer error),
  // which is returned after committing what is done. An exception escaping
  // a stage is caught here and returned as Internal naming the topic,
  // partitions and offsets of the batch in hand, which stays uncommitted.
  // Never throws.
  absl::Status Run();

  // Keeps this worker in its consumer group while its batch is being
  // retried (the retry/DLQ decorators' KeepAlive hook; worker thread only,
  // inside Run): pauses fetching for the rest of the batch, then serves the
  // consumer (Consumer::KeepAlive). Fetching resumes after the batch unless
  // the control API paused it. A revoke served here commits only what was
  // done before the batch.
  void KeepAlive();

  // SINK_JDBC_EXACTLY_ONCE_ENABLE (not owned; null: off, the default). Set
  // before Run. Each batch then ends with store->Commit of its partitions'
  // offsets, in the transaction holding the rows the sink wrote for it; a
  // batch that fails or stops is rolled back; a commit that fails is
  // re-read from the stored offsets (Seek). Assigned partitions start at
  // the stored offsets (StartOffsets); when they cannot be read the worker
  // stops (fatal) before handling any record.
  void SetOffsetStore(OffsetStore* store) { store_ = store; }

  // Time by stage so far (worker thread only, or after Run returned).
  const StageTimes& Times() const { return times_; }

  void OnPartitionsRevoked(const std::vector<TopicPartition>& partitions) override;
  void OnPartitionsAssigned(const std::vector<TopicPartition>& partitions) override;
  // Commits what a revoke could not (see OnPartitionsRevoked).
  void BeforePartitionsAssigned(const std::vector<TopicPartition>& partitions) override;
  void OnPartitionsLost(const std::vector<TopicPartition>& partitions) override;
  // The offsets stored in the OffsetStore, when one is set.
  std::vector<PartitionOffset> StartOffsets(const std::vector<TopicPartition>& partitions) override;

 private:
  absl::Status Loop();
  absl::Status ProcessBatch();
  // Sets in_hand_ from batch_ (before decode and filter shrink it).
  void DescribeBatchInHand();
  // The fatal status for an exception that escaped Loop().
  absl::Status Escaped(absl::string_view what);
  absl::Status CommitPending(bool async);
  // "topic-0,topic-1" of held_.
  std::string HeldNames() const;
  // CommitPending(options_.async_commit) when commit_min_interval allows.
  absl::Status CommitIfDue();
  void Report();
  // With an OffsetStore: commits the batch's transaction (rows + offsets)
  // or rolls it back; a fatal status when the batch cannot be re-read.
  absl::Status FinishTransaction(const DispatchResult& result);
  // Forgets `partitions` (tracker and store) and seeks those still held to
  // the offsets stored for them (or the batch's first offset when none).
  absl::Status Rewind(const std::vector<TopicPartition>& partitions);
  // SINK_JDBC_EXACTLY_ONCE_ENABLE: the store forgets `partitions` (revoked or
  // lost); a batch in hand with records of them can no longer commit.
  void ForgetStored(const std::vector<TopicPartition>& partitions);

  WorkerOptions options_;
  std::unique_ptr<Consumer> consumer_;
  Decoder* decoder_;
  Filter* filter_;
  Dispatcher* dispatcher_;
  Metrics* metrics_;
  WorkerControl* control_;
  OffsetTracker tracker_;
  std::vector<Message> batch_;
  std::vector<FailedMessage> prefailed_;
  std::string in_hand_;  // the batch being handled, for logs ("" between batches)
  absl::Time next_report_ = absl::InfinitePast();
  std::set<TopicPartition> held_;  // assigned partitions, from the rebalance callbacks
  // Progress of revoked partitions whose commit the broker refused because
  // the group was already joining; committed with the next generation,
  // before the partitions are handed to their new owner.
  std::vector<PartitionOffset> orphaned_;
  absl::Time last_commit_ = absl::InfinitePast();  // last periodic commit (CommitIfDue)
  bool uncommitted_ = false;  // a batch ended since the last CommitIfDue commit
  bool paused_ = false;            // paused through the control API
  bool keepalive_paused_ = false;  // paused by KeepAlive for the batch in hand
  StageTimes times_;
  OffsetStore* store_ = nullptr;  // SINK_JDBC_EXACTLY_ONCE_ENABLE
  absl::Status store_error_;      // StartOffsets could not read the store: fatal
  std::map<TopicPartition, int64_t> batch_first_;  // first offset per partition of the batch
  bool batch_revoked_ = false;  // a partition of the batch was revoked or lost during it
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_WORKER_H_
