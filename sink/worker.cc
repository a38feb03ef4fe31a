#include "sink/worker.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

// Poll slice: the longest the worker is deaf to stop/pause requests.
constexpr absl::Duration kPollSlice = absl::Milliseconds(20);

}  // namespace

void WorkerControl::ReportPartitions(int id, std::vector<PartitionStatus> partitions) {
  absl::MutexLock l(&mu_);
  partitions_[id] = std::move(partitions);
}

std::vector<PartitionStatus> WorkerControl::Partitions() const {
  absl::MutexLock l(&mu_);
  std::vector<PartitionStatus> out;
  for (const auto& [id, parts] : partitions_) out.insert(out.end(), parts.begin(), parts.end());
  return out;
}

void WorkerControl::AddCounts(const Counters& d) {
  absl::MutexLock l(&mu_);
  counters_.consumed += d.consumed;
  counters_.filtered += d.filtered;
  counters_.pushed += d.pushed;
  counters_.failed += d.failed;
  counters_.commits += d.commits;
}

WorkerControl::Counters WorkerControl::GetCounters() const {
  absl::MutexLock l(&mu_);
  return counters_;
}

void WorkerControl::SetLastError(std::string error) {
  absl::MutexLock l(&mu_);
  last_error_ = std::move(error);
}

std::string WorkerControl::LastError() const {
  absl::MutexLock l(&mu_);
  return last_error_;
}

std::string StageTimes::ToString() const {
  auto s = [](absl::Duration d) { return absl::StrFormat("%.2f s", absl::ToDoubleSeconds(d)); };
  return absl::StrCat("consume ", s(consume), ", decode ", s(decode), ", filter ", s(filter),
                      ", sink ", s(sink), ", commit ", s(commit), ", metrics ", s(metrics),
                      ", idle polls ", s(idle), " (", records, " records in ", batches,
                      " batches)");
}

Worker::Worker(WorkerOptions options, std::unique_ptr<Consumer> consumer, Decoder* decoder,
               Filter* filter, Dispatcher* dispatcher, Metrics* metrics, WorkerControl* control)
    : options_(options),
      consumer_(std::move(consumer)),
      decoder_(decoder),
      filter_(filter),
      dispatcher_(dispatcher),
      metrics_(metrics),
      control_(control) {
  batch_.reserve(options_.max_poll_records);
}

void Worker::KeepAlive() {
  if (!keepalive_paused_) {
    keepalive_paused_ = true;
    if (!paused_) consumer_->SetPaused(true);
  }
  consumer_->KeepAlive();
}

void Worker::OnPartitionsRevoked(const std::vector<TopicPartition>& partitions) {
  // Called inside Poll, or inside KeepAlive while a batch is retried: the
  // tracker keeps the batch in hand uncommittable, so this commits only what
  // is final.
  // Everything committable, also what an earlier (async) commit already
  // sent: it may have been refused. Synchronous: the next owner must see
  // these offsets.
  std::vector<PartitionOffset> todo = tracker_.CommittableFor(partitions);
  absl::Status s = consumer_->Commit(todo, /*async=*/false);
  if (!s.ok() && absl::IsFailedPrecondition(s) && !todo.empty()) {
    // The group is already joining (the dev broker refuses commits then;
    // Kafka accepts them until the join completes). Commit with the next
    // generation, before the new owner reads the committed offsets.
    orphaned_.insert(orphaned_.end(), todo.begin(), todo.end());
    spdlog::info("worker {}: commit before revoke refused ({}); committing it after the rejoin",
                 options_.id, std::string(s.message()));
  } else if (!s.ok()) {
    spdlog::warn("worker {}: commit before revoke failed: {}", options_.id, s.ToString());
  }
  tracker_.Forget(partitions);
  ForgetStored(partitions);
  for (const TopicPartition& tp : partitions) held_.erase(tp);
  // With cooperative-sticky only the moving partitions are revoked: say what
  // is kept.
  spdlog::info("worker {}: {} partition(s) revoked, now assigned [{}]", options_.id,
               partitions.size(), HeldNames());
}

void Worker::OnPartitionsLost(const std::vector<TopicPartition>& partitions) {
  // Nothing can be committed with the lost generation, but what was
  // delivered can be with the next one (a commit refused as "illegal
  // generation" makes librdkafka drop the assignment as lost; the dev
  // broker does that to a member whose commit crosses a join). At worst the
  // new owner has gone further and re-reads a little: never a loss.
  std::vector<PartitionOffset> done = tracker_.CommittableFor(partitions);
  orphaned_.insert(orphaned_.end(), done.begin(), done.end());
  tracker_.Forget(partitions);
  ForgetStored(partitions);
  for (const TopicPartition& tp : partitions) held_.erase(tp);
  spdlog::warn("worker {}: {} partition(s) lost (this member left the group; their uncommitted "
               "records are redelivered to the new owner), now assigned [{}]",
               options_.id, partitions.size(), HeldNames());
}

void Worker::BeforePartitionsAssigned(const std::vector<TopicPartition>& partitions) {
  (void)partitions;
  // Async commits refused while the group was joining are sent again by
  // the next commit, now that this member holds the new generation. (Sent
  // again at once, they would be refused again, and librdkafka does not
  // rejoin while commits are outstanding.)
  if (std::vector<PartitionOffset> refused = consumer_->TakeFailedCommits(); !refused.empty()) {
    tracker_.Retry(refused);
    uncommitted_ = true;
  }
  if (orphaned_.empty()) return;
  std::vector<PartitionOffset> todo;
  todo.swap(orphaned_);
  absl::Status s = consumer_->Commit(todo, /*async=*/false);
  if (s.ok()) {
    spdlog::info("worker {}: committed the progress of {} revoked partition(s) after the rejoin",
                 options_.id, todo.size());
  } else if (absl::IsFailedPrecondition(s)) {
    // Still joining: try again after the next rebalance.
    orphaned_ = std::move(todo);
  } else {
    spdlog::warn("worker {}: committing revoked partitions after the rejoin failed: {} (their "
                 "last records are redelivered)",
                 options_.id, s.ToString());
  }
}

void Worker::ForgetStored(const std::vector<TopicPartition>& partitions) {
  if (store_ == nullptr) return;
  store_->Forget(partitions);
  // During a batch (served while it is retried): its transaction cannot
  // commit these partitions' offsets any more.
  for (const TopicPartition& tp : partitions) {
    if (!in_hand_.empty() && batch_first_.count(tp) > 0) batch_revoked_ = true;
  }
}

std::vector<PartitionOffset> Worker::StartOffsets(const std::vector<TopicPartition>& partitions) {
  if (store_ == nullptr) return {};
  absl::StatusOr<std::vector<PartitionOffset>> stored = store_->Load(partitions);
  if (!stored.ok()) {
    // The partitions must be assigned anyway (inside the rebalance); the
    // loop stops before any of their records is handled.
    store_error_ = absl::Status(
        stored.status().code(),
        absl::StrCat("SINK_JDBC_EXACTLY_ONCE_ENABLE: cannot read the offsets stored in the "
                     "database for the assigned partitions, so where they start is unknown "
                     "(the restart reads them again): ",
                     stored.status().message()));
    return {};
  }
  std::string where;
  for (const PartitionOffset& o : *stored) {
    absl::StrAppend(&where, where.empty() ? "" : ",", o.tp.topic, "-", o.tp.partition, "@",
                    o.offset);
  }
  spdlog::info("worker {}: {} of {} assigned partition(s) start at the offsets stored in the "
               "database [{}]; the others at the group's committed offset",
               options_.id, stored->size(), partitions.size(), where);
  return *std::move(stored);
}

void Worker::OnPartitionsAssigned(const std::vector<TopicPartition>& partitions) {
  // Eager protocols hand over the whole assignment, cooperative-sticky only
  // what is added; the log line always shows everything held.
  held_.insert(partitions.begin(), partitions.end());
  spdlog::info("worker {}: assigned [{}] (+{})", options_.id, HeldNames(), partitions.size());
  next_report_ = absl::InfinitePast();
}

std::string Worker::HeldNames() const {
  std::string names;
  for (const auto& tp : held_) absl::StrAppend(&names, names.empty() ? "" : ",", tp.topic, "-", tp.partition);
  return names;
}

absl::Status Worker::CommitPending(bool async) {
  std::vector<PartitionOffset> offsets = tracker_.TakePending();
  if (offsets.empty()) return absl::OkStatus();
  control_->AddCounts({.commits = 1});
  absl::Status s = consumer_->Commit(offsets, async);
  if (!s.ok() && !async) {
    return absl::Status(s.code(), absl::StrCat("synchronous offset commit failed: ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status Worker::CommitIfDue() {
  if (options_.commit_min_interval >= absl::ZeroDuration()) {
    if (!uncommitted_) return absl::OkStatus();
    const absl::Time now = absl::Now();
    if (now - last_commit_ <= options_.commit_min_interval) return absl::OkStatus();
    last_commit_ = now;
  }
  uncommitted_ = false;
  return CommitPending(options_.async_commit);
}

void Worker::Report() {
  absl::Time now = absl::Now();
  if (now < next_report_) return;
  next_report_ = now + options_.report_interval;
  std::vector<PartitionStatus> parts = consumer_->Partitions();
  for (PartitionStatus& p : parts) {
    p.committed = tracker_.Committed(p.tp);
    if (p.lag >= 0) {
      metrics_->Gauge("sluice_source_kafka_partition_lag",
                      {{"topic", p.tp.topic}, {"partition", absl::StrCat(p.tp.partition)}},
                      static_cast<double>(p.lag));
    }
  }
  control_->ReportPartitions(options_.id, std::move(parts));
}

absl::Status Worker::ProcessBatch() {
  const absl::Time start = absl::Now();
  absl::Time mark = start;
  // Adds the time since the last mark to `stage`.
  auto lap = [&mark](absl::Duration* stage) {
    const absl::Time now = absl::Now();
    *stage += now - mark;
    mark = now;
  };
  const int64_t polled = static_cast<int64_t>(batch_.size());
  times_.records += polled;
  ++times_.batches;
  metrics_->Increment("firehose_source_kafka_pull_batch_size_total", {}, polled);
  metrics_->Increment("firehose_global_messages_total", {{"scope", "CONSUMER"}, {"type", "TOTAL"}},
                      polled);
  lap(&times_.metrics);
  tracker_.BeginBatch(batch_);
  DescribeBatchInHand();
  if (store_ != nullptr) {
    batch_first_.clear();
    batch_revoked_ = false;
    for (const Message& m : batch_) batch_first_.emplace(TopicPartition{m.topic, m.partition}, m.offset);
  }
  prefailed_.clear();
  lap(&times_.consume);
  if (decoder_ != nullptr) decoder_->Decode(&batch_, &prefailed_);
  lap(&times_.decode);
  int filtered = 0;
  if (filter_ != nullptr) {
    filtered = filter_->Apply(&batch_, &prefailed_);
    if (filtered > 0) {
      metrics_->Increment("firehose_source_kafka_messages_filter_total", {}, filtered);
      metrics_->Increment("firehose_global_messages_total",
                          {{"scope", "FILTERED"}, {"type", "TOTAL"}}, filtered);
    }
    if (int drops = filter_->DeserializationDrops(); drops > 0) {
      metrics_->Increment(filter_->DeserializationDropMetric(), {}, drops);
    }
  }
  lap(&times_.filter);
  DispatchResult result = dispatcher_->Dispatch(batch_, std::move(prefailed_));
  lap(&times_.sink);
  prefailed_.clear();
  if (keepalive_paused_) {
    // Resume fetching after the retries (from the position after this batch).
    keepalive_paused_ = false;
    if (!paused_) consumer_->SetPaused(false);
  }
  tracker_.MarkFailed(result.failed);
  tracker_.EndBatch();
  in_hand_.clear();
  if (store_ != nullptr) {
    if (absl::Status s = FinishTransaction(result); !s.ok()) return s;
  }
  // result.ignored (dropped by the final layer, Firehose's SinkFinal) is not
  // marked: it is committed, as Firehose commits past ignored messages.
  for (const auto* list : {&result.failed, &result.ignored}) {
    for (const FailedMessage& f : *list) {
      metrics_->Increment("firehose_error_event",
                          {{"error_type", std::string(ErrorTypeName(f.error_type))}});
    }
  }
  const int64_t failed = static_cast<int64_t>(result.failed.size() + result.ignored.size());
  if (result.failed.empty() && !result.ignored.empty()) {
    const FailedMessage& f = result.ignored.front();
    control_->SetLastError(absl::StrCat("dropped ", ErrorTypeName(f.error_type), " at ",
                                        f.message.topic, "/", f.message.partition, "@",
                                        f.message.offset, ": ", f.error));
  }
  control_->AddCounts({.consumed = polled,
                       .filtered = filtered,
                       .pushed = std::max<int64_t>(0, polled - filtered - failed),
                       .failed = failed});
  if (!result.failed.empty()) {
    const Message& m = result.failed.front().message;
    control_->SetLastError(absl::StrCat(ErrorTypeName(result.failed.front().error_type), " at ",
                                        m.topic, "/", m.partition, "@", m.offset, ": ",
                                        result.failed.front().error));
    if (result.fatal.ok()) {
      // Left when a stop was requested during the retries: say where the
      // commit now waits.
      spdlog::warn(
          "worker {}: {} record(s) still failing when the retries were stopped, first {} "
          "topic={} partition={} offset={}; that partition's commit stays at this offset, and "
          "the next start redelivers from there",
          options_.id, result.failed.size(),
          std::string(ErrorTypeName(result.failed.front().error_type)),
          m.topic, m.partition, m.offset);
    }
  }
  if (!batch_.empty()) {
    metrics_->Observe("firehose_pipeline_end_latency_milliseconds", {},
                      static_cast<double>(absl::ToUnixMillis(absl::Now()) - batch_.front().timestamp_ms));
  }
  metrics_->Observe("firehose_source_kafka_partitions_process_milliseconds", {},
                    absl::ToDoubleMilliseconds(absl::Now() - start));
  lap(&times_.metrics);
  if (!result.fatal.ok()) {
    // Commit what is done below the poison message; it stays uncommitted.
    CommitPending(/*async=*/false).IgnoreError();
    return result.fatal;
  }
  uncommitted_ = true;
  absl::Status committed = CommitIfDue();
  lap(&times_.commit);
  return committed;
}

absl::Status Worker::FinishTransaction(const DispatchResult& result) {
  std::vector<TopicPartition> parts;
  for (const auto& [tp, first] : batch_first_) parts.push_back(tp);
  if (!result.fatal.ok() || !result.failed.empty()) {
    // Failures are left when the worker stops (fatal, or a stop asked for
    // during the retries): nothing of this batch is stored, nor committed
    // to Kafka. Were a worker to go on, it reads the batch again.
    store_->Rollback();
    if (!result.fatal.ok() || control_->StopRequested()) {
      tracker_.Forget(parts);
      return absl::OkStatus();
    }
    return Rewind(parts);
  }
  if (!batch_revoked_) {
    absl::Status s = store_->Commit(tracker_.CommittableFor(parts));
    if (s.ok()) return s;
    spdlog::warn("worker {}: SINK_JDBC_EXACTLY_ONCE_ENABLE: the batch's transaction did not "
                 "commit ({}); reading its partitions again from the offsets stored in the "
                 "database",
                 options_.id, s.ToString());
  } else {
    // Its rows could not be stored with the offsets of a partition this
    // worker no longer holds; the other partitions are read again.
    store_->Rollback();
    spdlog::info("worker {}: a partition of the batch was revoked while it was retried: batch "
                 "rolled back, held partitions read again from the stored offsets",
                 options_.id);
  }
  return Rewind(parts);
}

absl::Status Worker::Rewind(const std::vector<TopicPartition>& partitions) {
  tracker_.Forget(partitions);
  store_->Forget(partitions);
  std::vector<TopicPartition> held;
  for (const TopicPartition& tp : partitions) {
    if (held_.count(tp) > 0) held.push_back(tp);
  }
  if (held.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<PartitionOffset>> stored = store_->Load(held);
  if (!stored.ok()) {
    return absl::Status(stored.status().code(),
                        absl::StrCat("SINK_JDBC_EXACTLY_ONCE_ENABLE: cannot read the stored "
                                     "offsets back after a failed commit (the restart reads "
                                     "them): ",
                                     stored.status().message()));
  }
  std::vector<PartitionOffset> targets;
  for (const TopicPartition& tp : held) {
    // None stored: nothing of this partition was ever committed there, so
    // the batch's first record is where it starts.
    int64_t at = batch_first_[tp];
    for (const PartitionOffset& o : *stored) {
      if (o.tp == tp) at = o.offset;
    }
    targets.push_back({tp, at});
  }
  absl::Status s = consumer_->Seek(targets);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("SINK_JDBC_EXACTLY_ONCE_ENABLE: cannot re-read "
                                               "the batch after a failed commit: ",
                                               s.message()));
  }
  return absl::OkStatus();
}

void Worker::DescribeBatchInHand() {
  // "topic=t partition=0 offsets=5-9" per partition run, for the log line of
  // an exception that escapes the batch.
  in_hand_.clear();
  const Message* first = nullptr;
  const Message* last = nullptr;
  auto flush = [&] {
    if (first == nullptr) return;
    absl::StrAppend(&in_hand_, in_hand_.empty() ? "" : "; ", "topic=", first->topic,
                    " partition=", first->partition, " offset=", first->offset);
    if (last->offset != first->offset) absl::StrAppend(&in_hand_, "-", last->offset);
  };
  for (const Message& m : batch_) {
    if (first != nullptr && (m.partition != first->partition || m.topic != first->topic)) {
      flush();
      first = nullptr;
    }
    if (first == nullptr) first = &m;
    last = &m;
  }
  flush();
}

absl::Status Worker::Run() {
  consumer_->SetRebalanceListener(this);
  absl::Status status;
  // Nothing may escape a worker thread (std::terminate would kill every
  // worker before any commit, and the same record would kill the next
  // process too). An escaping exception stops this worker like a fatal
  // error: the batch in hand stays uncommitted (the tracker holds it in
  // flight), the rest is committed, and the process exits 1.
  try {
    status = Loop();
  } catch (const std::exception& e) {
    status = Escaped(e.what());
  } catch (...) {
    status = Escaped("non-standard exception");
  }
  if (!status.ok()) {
    spdlog::error("worker {} stopping: {}", options_.id, status.ToString());
    control_->SetLastError(std::string(status.message()));
  }
  // A batch left mid-way (an escaped exception) must not be stored.
  if (store_ != nullptr) store_->Rollback();
  consumer_->SetShutdownDeadline(absl::Now() + options_.shutdown_budget);
  absl::Status commit = CommitPending(/*async=*/false);
  if (!commit.ok()) {
    spdlog::error("worker {}: final commit failed: {}", options_.id, commit.ToString());
    if (status.ok()) status = commit;
  }
  consumer_->SetRebalanceListener(this);
  absl::Status close = consumer_->Close();
  if (!close.ok()) spdlog::warn("worker {}: close: {}", options_.id, close.ToString());
  control_->ReportPartitions(options_.id, {});
  spdlog::info("worker {}: time by stage: {}", options_.id, times_.ToString());
  return status;
}

absl::Status Worker::Escaped(absl::string_view what) {
  return absl::InternalError(absl::StrCat(
      "unexpected exception ",
      in_hand_.empty() ? std::string("outside a batch")
                       : absl::StrCat("while handling the batch of ", in_hand_),
      ": ", what, " (the batch stays uncommitted)"));
}

absl::Status Worker::Loop() {
  absl::Status status;
  while (!control_->StopRequested()) {
    bool want_paused = control_->Paused();
    if (want_paused != paused_) {
      consumer_->SetPaused(want_paused);
      paused_ = want_paused;
      spdlog::info("worker {}: consumption {}", options_.id, paused_ ? "paused" : "resumed");
    }
    const absl::Time polled_at = absl::Now();
    batch_.clear();
    absl::Duration slice = std::min(options_.poll_timeout, kPollSlice);
    status = consumer_->Poll(options_.max_poll_records, slice, &batch_);
    (batch_.empty() ? times_.idle : times_.consume) += absl::Now() - polled_at;
    if (!status.ok()) break;
    if (!store_error_.ok()) {
      // Partitions were assigned at unknown offsets: handle none of them.
      status = store_error_;
      break;
    }
    if (!batch_.empty()) {
      // Stop requests during the batch are honoured after it is committed.
      status = ProcessBatch();
    } else {
      // With MANUAL_COMMIT_MIN_INTERVAL_MS, what is done is committed once
      // the interval has passed, even when no more records come.
      status = CommitIfDue();
    }
    if (!status.ok()) break;
    const absl::Time reported_at = absl::Now();
    Report();
    times_.metrics += absl::Now() - reported_at;
  }
  return status;
}

}  // namespace sluice::sink
