#include "sink/worker.h"

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "absl/time/clock.h"

#include <gtest/gtest.h>

namespace sluice::sink {
namespace {

Message Msg(int32_t p, int64_t o, std::string value = "v") {
  Message m;
  m.topic = "t";
  m.partition = p;
  m.offset = o;
  m.value = std::move(value);
  return m;
}

// Hands out scripted batches, then asks the control to stop.
class FakeConsumer : public Consumer {
 public:
  FakeConsumer(std::deque<std::vector<Message>> batches, WorkerControl* control)
      : batches_(std::move(batches)), control_(control) {}
  absl::Status Poll(int max_records, absl::Duration, std::vector<Message>* out) override {
    ++polls;
    if (poll_delay > absl::ZeroDuration()) absl::SleepFor(poll_delay);
    if (batches_.empty()) {
      control_->RequestStop();
      return absl::OkStatus();
    }
    EXPECT_LE(static_cast<int>(batches_.front().size()), max_records);
    if (polls == 1 && !assign_at_first_poll.empty() && listener_) {
      // As KafkaConsumer::OnRebalance: start offsets, then the assignment.
      listener_->BeforePartitionsAssigned(assign_at_first_poll);
      started_at = listener_->StartOffsets(assign_at_first_poll);
      listener_->OnPartitionsAssigned(assign_at_first_poll);
    }
    // A revoke scripted before this batch.
    if (revoke_before_poll == polls && listener_) listener_->OnPartitionsRevoked({{"t", 0}});
    if (lose_before_poll == polls && listener_) listener_->OnPartitionsLost({{"t", 0}});
    *out = std::move(batches_.front());
    batches_.pop_front();
    return absl::OkStatus();
  }
  absl::Status Commit(const std::vector<PartitionOffset>& offsets, bool async) override {
    commits.push_back({offsets, async});
    if (!async && fail_sync_commit) return absl::UnavailableError("coordinator gone");
    return absl::OkStatus();
  }
  void SetPaused(bool paused) override {
    paused_now = paused;
    pause_calls.push_back(paused);
  }
  void KeepAlive() override {
    EXPECT_TRUE(paused_now) << "KeepAlive polls only a paused consumer";
    ++keep_alives;
    if (revoke_in_keepalive && listener_) {
      revoke_in_keepalive = false;
      listener_->OnPartitionsRevoked({{"t", 0}});
    }
  }
  std::vector<PartitionStatus> Partitions() override { return {}; }
  absl::Status Seek(const std::vector<PartitionOffset>& offsets) override {
    seeks.push_back(offsets);
    return absl::OkStatus();
  }
  void SetRebalanceListener(RebalanceListener* l) override { listener_ = l; }
  absl::Status Close() override {
    closed = true;
    return absl::OkStatus();
  }

  struct CommitCall {
    std::vector<PartitionOffset> offsets;
    bool async;
  };
  std::vector<CommitCall> commits;
  bool fail_sync_commit = false;
  bool closed = false;
  int polls = 0;
  int revoke_before_poll = -1;
  int lose_before_poll = -1;
  bool paused_now = false;
  std::vector<bool> pause_calls;
  int keep_alives = 0;
  bool revoke_in_keepalive = false;
  absl::Duration poll_delay;
  std::vector<TopicPartition> assign_at_first_poll;
  std::vector<PartitionOffset> started_at;  // what StartOffsets answered
  std::vector<std::vector<PartitionOffset>> seeks;

 private:
  std::deque<std::vector<Message>> batches_;
  WorkerControl* control_;
  RebalanceListener* listener_ = nullptr;
};

// Fails values starting with "fail", is fatal for "poison".
class FakeDispatcher : public Dispatcher {
 public:
  DispatchResult Dispatch(const std::vector<Message>& batch,
                          std::vector<FailedMessage> prefailed) override {
    DispatchResult r;
    for (const Message& m : batch) {
      pushed.push_back(m.offset);
      if (m.value.rfind("fail", 0) == 0) r.failed.push_back({m, ErrorType::kSink5xxError, "500"});
      // What the final layer (Firehose's SinkFinal) returns for a drop.
      if (m.value == "ignored") r.ignored.push_back({m, ErrorType::kSink4xxError, "404"});
      if (m.value == "throw") throw std::runtime_error("type_error.316 invalid UTF-8 byte");
      // What the retry decorator does while it backs off.
      if (m.value == "retry" && keep_alive) for (int i = 0; i < 3; ++i) keep_alive();
      if (m.value == "poison") {
        r.failed.push_back({m, ErrorType::kDeserializationError, "bad"});
        r.fatal = absl::FailedPreconditionError("poison at t/0@" + std::to_string(m.offset));
      }
    }
    for (auto& f : prefailed) r.failed.push_back(std::move(f));
    return r;
  }
  std::vector<int64_t> pushed;
  std::function<void()> keep_alive;
};

// Drops values "drop" and "undecodable"; the latter as deserialization drops
// (FILTER_DROP_DESERIALIZATION_ERROR=true).
class DropFilter : public Filter {
 public:
  int Apply(std::vector<Message>* batch, std::vector<FailedMessage>*) override {
    size_t before = batch->size();
    undecodable_ = static_cast<int>(std::count_if(
        batch->begin(), batch->end(), [](const Message& m) { return m.value == "undecodable"; }));
    batch->erase(std::remove_if(batch->begin(), batch->end(),
                                [](const Message& m) {
                                  return m.value == "drop" || m.value == "undecodable";
                                }),
                 batch->end());
    return static_cast<int>(before - batch->size());
  }
  int DeserializationDrops() const override { return undecodable_; }
  std::string DeserializationDropMetric() const override { return "test_deserialization_errors_total"; }

 private:
  int undecodable_ = 0;
};

// Sums every counter by name.
class CountingMetrics : public NoopMetrics {
 public:
  void Increment(absl::string_view name, const Tags&, double n) override {
    counts[std::string(name)] += n;
  }
  std::map<std::string, double> counts;
};

struct Harness {
  WorkerControl control;
  CountingMetrics metrics;
  FakeDispatcher dispatcher;
  DropFilter filter;
  FakeConsumer* consumer = nullptr;
  std::unique_ptr<Worker> worker;

  explicit Harness(std::deque<std::vector<Message>> batches, bool async = true,
                   absl::Duration commit_min_interval = absl::Milliseconds(-1)) {
    auto c = std::make_unique<FakeConsumer>(std::move(batches), &control);
    consumer = c.get();
    WorkerOptions o;
    o.async_commit = async;
    o.commit_min_interval = commit_min_interval;
    o.max_poll_records = 10;
    worker = std::make_unique<Worker>(o, std::move(c), nullptr, &filter, &dispatcher, &metrics,
                                      &control);
  }
};

TEST(Worker, CommitsAfterEachBatchIncludingFilteredOut) {
  Harness h({{Msg(0, 0), Msg(0, 1, "drop"), Msg(1, 0)}, {Msg(0, 2, "drop")}});
  ASSERT_TRUE(h.worker->Run().ok());
  EXPECT_EQ(h.dispatcher.pushed, (std::vector<int64_t>{0, 0}));
  ASSERT_EQ(h.consumer->commits.size(), 2u);
  EXPECT_TRUE(h.consumer->commits[0].async);
  ASSERT_EQ(h.consumer->commits[0].offsets.size(), 2u);
  EXPECT_EQ(h.consumer->commits[0].offsets[0].offset, 2);
  EXPECT_EQ(h.consumer->commits[0].offsets[1].offset, 1);
  // The filtered-out record of the second batch is committed too.
  ASSERT_EQ(h.consumer->commits[1].offsets.size(), 1u);
  EXPECT_EQ(h.consumer->commits[1].offsets[0].offset, 3);
  EXPECT_TRUE(h.consumer->closed);
  auto counts = h.control.GetCounters();
  EXPECT_EQ(counts.consumed, 4);
  EXPECT_EQ(counts.filtered, 2);
}

TEST(Worker, DeserializationDropsOfTheFilterAreCountedUnderItsMetric) {
  Harness h({{Msg(0, 0, "undecodable"), Msg(0, 1, "drop"), Msg(0, 2)}, {Msg(0, 3, "undecodable")}});
  ASSERT_TRUE(h.worker->Run().ok());
  EXPECT_EQ(h.metrics.counts["test_deserialization_errors_total"], 2);
  EXPECT_EQ(h.metrics.counts["firehose_source_kafka_messages_filter_total"], 3);
  EXPECT_EQ(h.control.GetCounters().filtered, 3);
}

TEST(Worker, FailedMessagesAreNeverCommitted) {
  Harness h({{Msg(0, 0), Msg(0, 1, "fail"), Msg(0, 2)}, {Msg(0, 3)}});
  ASSERT_TRUE(h.worker->Run().ok());
  ASSERT_EQ(h.consumer->commits.size(), 1u);
  EXPECT_EQ(h.consumer->commits[0].offsets[0].offset, 1);
  EXPECT_EQ(h.control.GetCounters().failed, 1);
  EXPECT_NE(h.control.LastError().find("SINK_5XX_ERROR at t/0@1"), std::string::npos);
}

// Dropped by the final layer (SinkFinal.java:29-31): counted as failed, but
// committed, as Firehose commits past ignored messages.
TEST(Worker, IgnoredMessagesAreCountedAndCommitted) {
  Harness h({{Msg(0, 0), Msg(0, 1, "ignored"), Msg(0, 2)}, {Msg(0, 3)}});
  ASSERT_TRUE(h.worker->Run().ok());
  ASSERT_EQ(h.consumer->commits.size(), 2u);
  EXPECT_EQ(h.consumer->commits[0].offsets[0].offset, 3);
  EXPECT_EQ(h.consumer->commits[1].offsets[0].offset, 4);
  EXPECT_EQ(h.control.GetCounters().failed, 1);
  EXPECT_EQ(h.metrics.counts["firehose_error_event"], 1);
  EXPECT_NE(h.control.LastError().find("dropped SINK_4XX_ERROR at t/0@1"), std::string::npos)
      << h.control.LastError();
}

TEST(Worker, PoisonStopsTheWorkerAndIsNotCommitted) {
  Harness h({{Msg(0, 0), Msg(0, 1, "poison"), Msg(0, 2)}, {Msg(0, 3)}});
  absl::Status s = h.worker->Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("t/0@1"), std::string::npos);
  ASSERT_EQ(h.consumer->commits.size(), 1u);
  EXPECT_FALSE(h.consumer->commits[0].async) << "the last commit before stopping is synchronous";
  EXPECT_EQ(h.consumer->commits[0].offsets[0].offset, 1);
  EXPECT_EQ(h.dispatcher.pushed.size(), 3u) << "the second batch is never polled";
  EXPECT_TRUE(h.consumer->closed);
}

TEST(Worker, FailedSyncCommitStopsTheWorker) {
  Harness h({{Msg(0, 0)}, {Msg(0, 1)}}, /*async=*/false);
  h.consumer->fail_sync_commit = true;
  absl::Status s = h.worker->Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("commit"), std::string::npos);
  EXPECT_EQ(h.dispatcher.pushed.size(), 1u);
}

TEST(Worker, RevokeCommitsSynchronouslyFirst) {
  Harness h({{Msg(0, 0), Msg(0, 1)}, {Msg(0, 7)}});
  h.consumer->revoke_before_poll = 2;
  ASSERT_TRUE(h.worker->Run().ok());
  ASSERT_GE(h.consumer->commits.size(), 2u);
  EXPECT_TRUE(h.consumer->commits[0].async);
  EXPECT_FALSE(h.consumer->commits[1].async);
  EXPECT_EQ(h.consumer->commits[1].offsets[0].offset, 2);
}

// SOURCE_KAFKA_CONSUMER_CONFIG_MANUAL_COMMIT_MIN_INTERVAL_MS: commits at most
// that often; what is done is still committed on revoke and at shutdown.
TEST(Worker, CommitMinIntervalSpacesCommitsButShutdownCommitsEverything) {
  Harness h({{Msg(0, 0)}, {Msg(0, 1)}, {Msg(0, 2)}}, /*async=*/true, absl::Hours(1));
  ASSERT_TRUE(h.worker->Run().ok());
  ASSERT_EQ(h.consumer->commits.size(), 2u);
  EXPECT_TRUE(h.consumer->commits[0].async) << "the first batch: nothing committed before";
  EXPECT_EQ(h.consumer->commits[0].offsets[0].offset, 1);
  EXPECT_FALSE(h.consumer->commits[1].async) << "the final commit at shutdown";
  EXPECT_EQ(h.consumer->commits[1].offsets[0].offset, 3);
}

TEST(Worker, CommitMinIntervalStillCommitsBeforeARevoke) {
  Harness h({{Msg(0, 0)}, {Msg(0, 1)}, {Msg(0, 5)}}, /*async=*/true, absl::Hours(1));
  h.consumer->revoke_before_poll = 3;
  ASSERT_TRUE(h.worker->Run().ok());
  ASSERT_GE(h.consumer->commits.size(), 2u);
  EXPECT_FALSE(h.consumer->commits[1].async) << "the revoke's synchronous commit";
  EXPECT_EQ(h.consumer->commits[1].offsets[0].offset, 2) << "includes the batch not yet due";
}

TEST(Worker, CommitMinIntervalCommitsAtMostThatOften) {
  std::deque<std::vector<Message>> batches;
  for (int i = 0; i < 20; ++i) batches.push_back({Msg(0, i)});
  Harness h(std::move(batches), /*async=*/true, absl::Milliseconds(100));
  h.consumer->poll_delay = absl::Milliseconds(20);  // ~400 ms of batches
  const absl::Time start = absl::Now();
  ASSERT_TRUE(h.worker->Run().ok());
  const double ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  int periodic = 0;
  for (const auto& c : h.consumer->commits) periodic += c.async ? 1 : 0;
  EXPECT_LE(periodic, static_cast<int>(ms / 100) + 1) << ms << " ms";
  EXPECT_GE(periodic, 2);
  EXPECT_EQ(h.consumer->commits.back().offsets[0].offset, 20);
}

TEST(Worker, LostPartitionsAreForgottenWithoutACommit) {
  Harness h({{Msg(0, 0)}, {Msg(0, 1)}}, /*async=*/true, absl::Hours(1));
  h.consumer->lose_before_poll = 2;
  ASSERT_TRUE(h.worker->Run().ok());
  // The first batch's periodic commit, then only the shutdown commit of
  // what came after the loss: nothing is committed for the lost partition.
  ASSERT_EQ(h.consumer->commits.size(), 2u);
  EXPECT_TRUE(h.consumer->commits[0].async);
  EXPECT_EQ(h.consumer->commits[1].offsets[0].offset, 2);
}

TEST(Worker, AnExceptionEscapingTheSinkStopsCleanlyAndNamesTheBatch) {
  // Review H5: an exception on a worker thread used to reach std::terminate.
  Harness h({{Msg(0, 0), Msg(0, 1)}, {Msg(0, 2), Msg(0, 3, "throw"), Msg(1, 9)}, {Msg(0, 4)}});
  absl::Status s;
  ASSERT_NO_THROW(s = h.worker->Run());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("topic=t partition=0 offset=2-3"), std::string::npos) << s;
  EXPECT_NE(s.message().find("topic=t partition=1 offset=9"), std::string::npos) << s;
  EXPECT_NE(s.message().find("invalid UTF-8"), std::string::npos) << s;
  EXPECT_NE(h.control.LastError().find("partition=0 offset=2-3"), std::string::npos);
  // The first batch is committed; nothing of the batch in hand is.
  for (const auto& c : h.consumer->commits) {
    for (const PartitionOffset& o : c.offsets) {
      EXPECT_LE(o.offset, o.tp.partition == 0 ? 2 : 9) << "committed past the batch in hand";
    }
  }
  ASSERT_FALSE(h.consumer->commits.empty());
  EXPECT_EQ(h.consumer->commits[0].offsets[0].offset, 2);
  EXPECT_TRUE(h.consumer->closed);
  EXPECT_EQ(h.dispatcher.pushed.size(), 4u) << "no batch after the exception";
}

TEST(Worker, RetriesKeepTheConsumerPausedAndPolledThenResume) {
  Harness h({{Msg(0, 0), Msg(0, 1, "retry")}, {Msg(0, 2)}});
  h.dispatcher.keep_alive = [&] { h.worker->KeepAlive(); };
  ASSERT_TRUE(h.worker->Run().ok());
  EXPECT_EQ(h.consumer->keep_alives, 3);
  EXPECT_EQ(h.consumer->pause_calls, (std::vector<bool>{true, false}))
      << "paused once for the retried batch, resumed after it";
  EXPECT_EQ(h.dispatcher.pushed.size(), 3u);
}

TEST(Worker, ARevokeWhileRetryingCommitsOnlyWhatPrecedesTheBatch) {
  Harness h({{Msg(0, 0), Msg(0, 1)}, {Msg(0, 2), Msg(0, 3, "retry"), Msg(0, 4)}});
  h.dispatcher.keep_alive = [&] { h.worker->KeepAlive(); };
  h.consumer->revoke_in_keepalive = true;
  ASSERT_TRUE(h.worker->Run().ok());
  bool revoke_commit = false;
  for (const auto& c : h.consumer->commits) {
    for (const PartitionOffset& o : c.offsets) {
      EXPECT_LE(o.offset, 2) << "committed records of the batch still being retried";
    }
    if (!c.async) revoke_commit = true;
  }
  EXPECT_TRUE(revoke_commit);
}

TEST(Worker, ControlPauseIsKeptAfterRetries) {
  Harness h({{Msg(0, 0, "retry")}});
  h.dispatcher.keep_alive = [&] {
    h.control.SetPaused(true);
    h.worker->KeepAlive();
  };
  ASSERT_TRUE(h.worker->Run().ok());
  EXPECT_EQ(h.consumer->pause_calls.front(), true);
  EXPECT_TRUE(h.consumer->paused_now) << "the control API's pause survives the batch";
}

// SINK_JDBC_EXACTLY_ONCE_ENABLE's store, scripted.
class FakeStore : public OffsetStore {
 public:
  absl::StatusOr<std::vector<PartitionOffset>> Load(
      const std::vector<TopicPartition>& partitions) override {
    ++loads;
    if (!load_error.ok()) return load_error;
    std::vector<PartitionOffset> out;
    for (const TopicPartition& tp : partitions) {
      if (auto it = stored.find(tp.partition); it != stored.end()) out.push_back({tp, it->second});
    }
    return out;
  }
  absl::Status Commit(const std::vector<PartitionOffset>& offsets) override {
    if (!commit_errors.empty()) {
      absl::Status s = commit_errors.front();
      commit_errors.pop_front();
      return s;
    }
    commits.push_back(offsets);
    for (const PartitionOffset& o : offsets) stored[o.tp.partition] = o.offset;
    return absl::OkStatus();
  }
  void Rollback() override { ++rollbacks; }
  void Forget(const std::vector<TopicPartition>&) override {}

  std::map<int32_t, int64_t> stored;  // partition of topic "t" -> next offset
  absl::Status load_error;
  std::deque<absl::Status> commit_errors;
  std::vector<std::vector<PartitionOffset>> commits;
  int loads = 0;
  int rollbacks = 0;
};

std::string Offsets(const std::vector<PartitionOffset>& offsets) {
  std::string out;
  for (const PartitionOffset& o : offsets) {
    out += (out.empty() ? "" : ",") + o.tp.topic + "-" + std::to_string(o.tp.partition) + "@" +
           std::to_string(o.offset);
  }
  return out;
}

TEST(WorkerOffsetStore, StartsAtStoredOffsetsAndCommitsEachBatchWithItsOffsets) {
  Harness h({{Msg(0, 10), Msg(0, 11, "drop"), Msg(1, 0)}, {Msg(0, 12)}});
  FakeStore store;
  store.stored[0] = 10;  // partition 1: none stored
  h.consumer->assign_at_first_poll = {{"t", 0}, {"t", 1}};
  h.worker->SetOffsetStore(&store);
  ASSERT_TRUE(h.worker->Run().ok());
  EXPECT_EQ(Offsets(h.consumer->started_at), "t-0@10");
  // The filtered-out record counts as done, as in the Kafka commit.
  ASSERT_EQ(store.commits.size(), 2u);
  EXPECT_EQ(Offsets(store.commits[0]), "t-0@12,t-1@1");
  EXPECT_EQ(Offsets(store.commits[1]), "t-0@13");
  EXPECT_EQ(store.rollbacks, 1);  // Run's final guard only; nothing was open
  // Kafka commits follow, with the same offsets.
  ASSERT_EQ(h.consumer->commits.size(), 2u);
  EXPECT_EQ(Offsets(h.consumer->commits[0].offsets), "t-0@12,t-1@1");
  EXPECT_TRUE(h.consumer->seeks.empty());
}

TEST(WorkerOffsetStore, AFatalBatchIsRolledBackAndNotCommittedAnywhere) {
  Harness h({{Msg(0, 0)}, {Msg(0, 1), Msg(0, 2, "poison"), Msg(0, 3)}});
  FakeStore store;
  h.consumer->assign_at_first_poll = {{"t", 0}};
  h.worker->SetOffsetStore(&store);
  EXPECT_FALSE(h.worker->Run().ok());
  ASSERT_EQ(store.commits.size(), 1u);
  EXPECT_EQ(Offsets(store.commits[0]), "t-0@1");
  EXPECT_EQ(store.rollbacks, 2);  // the batch, then Run's guard
  // Kafka: nothing past the batch's start (without the store: t-0@2).
  for (const auto& c : h.consumer->commits) {
    for (const PartitionOffset& o : c.offsets) EXPECT_LE(o.offset, 1) << Offsets(c.offsets);
  }
}

TEST(WorkerOffsetStore, AFailedCommitReadsThePartitionsAgainFromTheStoredOffsets) {
  Harness h({{Msg(0, 5), Msg(0, 6), Msg(1, 3)}, {Msg(0, 7)}});
  FakeStore store;
  store.stored[0] = 5;
  // Another member stored partition 0 up to 7 meanwhile: the compare-and-set
  // refuses; partition 1 has nothing stored, so it goes back to the batch's start.
  store.commit_errors.push_back(absl::AbortedError("the stored offset of t-0 is no longer 5"));
  h.consumer->assign_at_first_poll = {{"t", 0}, {"t", 1}};
  h.worker->SetOffsetStore(&store);
  store.stored[0] = 7;
  ASSERT_TRUE(h.worker->Run().ok());
  ASSERT_EQ(h.consumer->seeks.size(), 1u);
  EXPECT_EQ(Offsets(h.consumer->seeks[0]), "t-0@7,t-1@3");
  EXPECT_EQ(store.rollbacks, 1);  // Run's guard (a failed Commit rolls back itself)
  // Nothing of the refused batch reached Kafka; the next batch commits.
  ASSERT_EQ(store.commits.size(), 1u);
  EXPECT_EQ(Offsets(store.commits[0]), "t-0@8");
  ASSERT_EQ(h.consumer->commits.size(), 1u);
  EXPECT_EQ(Offsets(h.consumer->commits[0].offsets), "t-0@8");
}

TEST(WorkerOffsetStore, UnreadableStoredOffsetsStopTheWorkerBeforeAnyRecord) {
  Harness h({{Msg(0, 0)}});
  FakeStore store;
  store.load_error = absl::UnavailableError("connection refused");
  h.consumer->assign_at_first_poll = {{"t", 0}};
  h.worker->SetOffsetStore(&store);
  absl::Status s = h.worker->Run();
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_NE(s.message().find("SINK_JDBC_EXACTLY_ONCE_ENABLE"), absl::string_view::npos) << s;
  EXPECT_TRUE(h.dispatcher.pushed.empty());
  EXPECT_TRUE(store.commits.empty());
  EXPECT_TRUE(h.consumer->commits.empty());
}

TEST(WorkerOffsetStore, ARevokeWhileTheBatchIsRetriedRollsItBack) {
  Harness h({{Msg(0, 0), Msg(0, 1, "retry"), Msg(1, 0)}, {Msg(1, 1)}});
  FakeStore store;
  h.dispatcher.keep_alive = [&h] { h.worker->KeepAlive(); };
  h.consumer->revoke_in_keepalive = true;  // t-0 moves to another member
  h.consumer->assign_at_first_poll = {{"t", 0}, {"t", 1}};
  h.worker->SetOffsetStore(&store);
  ASSERT_TRUE(h.worker->Run().ok());
  // The batch's transaction is not committed; the partition still held is
  // read again from its start (none stored).
  ASSERT_EQ(h.consumer->seeks.size(), 1u);
  EXPECT_EQ(Offsets(h.consumer->seeks[0]), "t-1@0");
  ASSERT_EQ(store.commits.size(), 1u);
  EXPECT_EQ(Offsets(store.commits[0]), "t-1@2");
  EXPECT_EQ(store.rollbacks, 2);  // the batch, then Run's guard
}

}  // namespace
}  // namespace sluice::sink
