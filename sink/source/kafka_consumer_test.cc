// KafkaConsumer + Worker against librdkafka's in-process mock cluster: the
// real protocol (group join, fetch, commit), no external process.
#include "sink/source/kafka_consumer.h"

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "librdkafka/rdkafka_mock.h"
#include "sink/source/offset_store.h"
#include "sink/worker.h"

namespace sluice::sink {
namespace {

class MockCluster {
 public:
  MockCluster() {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
    mc_ = rd_kafka_mock_cluster_new(rk_, 1);
    rd_kafka_mock_topic_create(mc_, "orders", 2, 1);
  }
  ~MockCluster() {
    rd_kafka_mock_cluster_destroy(mc_);
    rd_kafka_destroy(rk_);
  }
  std::string Bootstrap() const { return rd_kafka_mock_cluster_bootstraps(mc_); }
  // The next SyncGroup (Kafka API key 14) is answered after `ms`.
  void DelaySyncGroup(int ms) {
    rd_kafka_mock_broker_push_request_error_rtts(mc_, 1, /*SyncGroup*/ 14, 1,
                                                 RD_KAFKA_RESP_ERR_NO_ERROR, ms);
  }

  void Produce(int n, int partition) {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", Bootstrap().c_str(), err, sizeof(err));
    rd_kafka_t* p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
    for (int i = 0; i < n; ++i) {
      std::string v = "m" + std::to_string(i);
      rd_kafka_producev(p, RD_KAFKA_V_TOPIC("orders"), RD_KAFKA_V_PARTITION(partition),
                        RD_KAFKA_V_VALUE(v.data(), v.size()), RD_KAFKA_V_KEY("k", 1),
                        RD_KAFKA_V_HEADER("h", "x", 1), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                        RD_KAFKA_V_END);
    }
    rd_kafka_flush(p, 10000);
    rd_kafka_destroy(p);
  }

  // Committed offset of `group` for orders/partition, or -1001 when none.
  int64_t Committed(const std::string& group, int partition) {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", Bootstrap().c_str(), err, sizeof(err));
    rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof(err));
    rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
    auto* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, "orders", partition);
    rd_kafka_committed(c, list, 10000);
    int64_t off = list->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(list);
    rd_kafka_destroy(c);
    return off;
  }

 private:
  rd_kafka_t* rk_;
  rd_kafka_mock_cluster_t* mc_;
};

// Records what it is given; stops the control after `want` records.
class Recorder : public Dispatcher {
 public:
  Recorder(WorkerControl* control, int want) : control_(control), want_(want) {}
  DispatchResult Dispatch(const std::vector<Message>& batch, std::vector<FailedMessage>) override {
    absl::MutexLock l(&mu_);
    for (const Message& m : batch) {
      got.push_back(m);
      if (m.value.rfind("fail", 0) == 0) {
      }
    }
    if (static_cast<int>(got.size()) >= want_) control_->RequestStop();
    return {};
  }
  absl::Mutex mu_;
  std::vector<Message> got;

 private:
  WorkerControl* control_;
  int want_;
};

class CountingMetrics : public NoopMetrics {
 public:
  void Increment(absl::string_view name, const Tags& tags, double n) override {
    absl::MutexLock l(&mu_);
    if (name == "firehose_source_kafka_messages_commit_total") {
      commits[tags.at(0).second] += n;
    }
  }
  double Commits(const std::string& success) {
    absl::MutexLock l(&mu_);
    return commits[success];
  }
  absl::Mutex mu_;
  std::map<std::string, double> commits;
};

SourceConfig Config(const std::string& bootstrap, const std::string& group) {
  SourceConfig c;
  c.brokers = bootstrap;
  c.topic = "orders";
  c.group_id = group;
  c.auto_offset_reset = "earliest";
  c.max_poll_records = 7;
  // The mock coordinator finishes a rebalance after the members' session
  // timeout; keep it short so that re-joins are quick.
  c.kafka_properties["session.timeout.ms"] = "6000";
  if (getenv("KDEBUG")) c.kafka_properties["debug"] = "cgrp";
  return c;
}

TEST(KafkaConsumer, ConsumesCommitsAndResumes) {
  MockCluster cluster;
  cluster.Produce(20, 0);
  cluster.Produce(15, 1);
  CountingMetrics metrics;
  {
    WorkerControl control;
    Recorder rec(&control, 35);
    auto consumer = KafkaConsumer::Create(Config(cluster.Bootstrap(), "g1"), &metrics);
    ASSERT_TRUE(consumer.ok()) << consumer.status();
    WorkerOptions o;
    o.max_poll_records = 7;
    Worker w(o, *std::move(consumer), nullptr, nullptr, &rec, &metrics, &control);
    std::thread guard([&] {
      for (int i = 0; i < 300 && !control.StopRequested(); ++i) absl::SleepFor(absl::Milliseconds(100));
      control.RequestStop();
    });
    absl::Status s = w.Run();
    guard.join();
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(rec.got.size(), 35u);
    const Message& m = rec.got.front();
    EXPECT_EQ(m.topic, "orders");
    EXPECT_EQ(m.key.value_or(""), "k");
    ASSERT_EQ(m.headers.size(), 1u);
    EXPECT_EQ(m.headers[0].first, "h");
    EXPECT_GT(m.timestamp_ms, 0);
  }
  EXPECT_GE(metrics.Commits("true"), 1);
  EXPECT_EQ(metrics.Commits("false"), 0);
  EXPECT_EQ(cluster.Committed("g1", 0), 20);
  EXPECT_EQ(cluster.Committed("g1", 1), 15);

  // A new member of the group resumes from the committed offsets.
  cluster.Produce(3, 1);
  {
    WorkerControl control;
    Recorder rec(&control, 3);
    auto consumer = KafkaConsumer::Create(Config(cluster.Bootstrap(), "g1"), &metrics);
    ASSERT_TRUE(consumer.ok());
    WorkerOptions o;
    o.async_commit = false;
    Worker w(o, *std::move(consumer), nullptr, nullptr, &rec, &metrics, &control);
    std::thread guard([&] {
      for (int i = 0; i < 300 && !control.StopRequested(); ++i) absl::SleepFor(absl::Milliseconds(100));
      control.RequestStop();
    });
    ASSERT_TRUE(w.Run().ok());
    guard.join();
    ASSERT_EQ(rec.got.size(), 3u);
    EXPECT_EQ(rec.got[0].offset, 15);
    EXPECT_EQ(rec.got[0].partition, 1);
  }
  EXPECT_EQ(cluster.Committed("g1", 1), 18);
}

// An in-memory OffsetStore (SINK_JDBC_EXACTLY_ONCE_ENABLE's contract).
class MemoryStore : public OffsetStore {
 public:
  absl::StatusOr<std::vector<PartitionOffset>> Load(
      const std::vector<TopicPartition>& partitions) override {
    std::vector<PartitionOffset> out;
    for (const TopicPartition& tp : partitions) {
      if (auto it = stored.find(tp.partition); it != stored.end()) out.push_back({tp, it->second});
    }
    return out;
  }
  absl::Status Commit(const std::vector<PartitionOffset>& offsets) override {
    for (const PartitionOffset& o : offsets) stored[o.tp.partition] = o.offset;
    return absl::OkStatus();
  }
  void Rollback() override {}
  void Forget(const std::vector<TopicPartition>&) override {}
  std::map<int32_t, int64_t> stored;
};

// The stored offsets are set in the assignment itself, under the eager
// (rd_kafka_assign) and the cooperative (rd_kafka_incremental_assign)
// protocol: no record below them is fetched, although the group has no
// committed offset and auto.offset.reset is earliest.
TEST(KafkaConsumer, AssignedPartitionsStartAtTheStoredOffsets) {
  for (const char* strategy : {"range", "cooperative-sticky"}) {
    SCOPED_TRACE(strategy);
    MockCluster cluster;
    cluster.Produce(20, 0);
    cluster.Produce(15, 1);
    CountingMetrics metrics;
    WorkerControl control;
    Recorder rec(&control, 8 + 15);
    SourceConfig config = Config(cluster.Bootstrap(), std::string("eos-") + strategy);
    config.kafka_properties["partition.assignment.strategy"] = strategy;
    auto consumer = KafkaConsumer::Create(config, &metrics);
    ASSERT_TRUE(consumer.ok()) << consumer.status();
    MemoryStore store;
    store.stored[0] = 12;  // partition 1: none stored, so earliest
    Worker w(WorkerOptions{}, *std::move(consumer), nullptr, nullptr, &rec, &metrics, &control);
    w.SetOffsetStore(&store);
    std::thread guard([&] {
      for (int i = 0; i < 300 && !control.StopRequested(); ++i) absl::SleepFor(absl::Milliseconds(100));
      control.RequestStop();
    });
    absl::Status s = w.Run();
    guard.join();
    ASSERT_TRUE(s.ok()) << s;
    std::map<int32_t, std::vector<int64_t>> by_partition;
    for (const Message& m : rec.got) by_partition[m.partition].push_back(m.offset);
    ASSERT_EQ(by_partition[0].size(), 8u);
    EXPECT_EQ(by_partition[0].front(), 12);
    ASSERT_EQ(by_partition[1].size(), 15u);
    EXPECT_EQ(by_partition[1].front(), 0);
    EXPECT_EQ(store.stored[0], 20);
    EXPECT_EQ(store.stored[1], 15);
  }
}

TEST(KafkaConsumer, RejectsUnknownPassThroughProperty) {
  SourceConfig c = Config("127.0.0.1:1", "g");
  c.kafka_properties["no.such.property"] = "1";
  NoopMetrics metrics;
  auto consumer = KafkaConsumer::Create(c, &metrics);
  ASSERT_FALSE(consumer.ok());
  EXPECT_NE(consumer.status().message().find("no.such.property"), std::string::npos);
}

// A sticky member that joined its group but has not received its first
// assignment yet (SIGTERM during a rebalance) must close and go away without
// aborting: librdkafka before 2.3 (Debian's 2.0.2) asserts in rd_kafka_destroy
// on the assignor state such a member does not have yet (librdkafka issue
// 4312, fixed in 2.3.0); sink_faults_test saw the sink exit 134 that way.
TEST(KafkaConsumer, ClosingBeforeTheFirstAssignmentDoesNotAbort) {
  MockCluster cluster;
  cluster.DelaySyncGroup(30000);
  SourceConfig c = Config(cluster.Bootstrap(), "early-close");
  c.kafka_properties["partition.assignment.strategy"] = "cooperative-sticky";
  NoopMetrics metrics;
  auto consumer = KafkaConsumer::Create(c, &metrics);
  ASSERT_TRUE(consumer.ok()) << consumer.status();
  // The mock coordinator completes a new group's JoinGroup after ~3 s; the
  // SyncGroup that would carry the assignment is held for 30 s.
  std::vector<Message> out;
  const absl::Time end = absl::Now() + absl::Seconds(6);
  while (absl::Now() < end) ASSERT_TRUE((*consumer)->Poll(10, absl::Milliseconds(200), &out).ok());
  EXPECT_TRUE((*consumer)->Partitions().empty()) << "no assignment may have arrived yet";
  (*consumer)->SetShutdownDeadline(absl::Now() + absl::Seconds(2));
  consumer->reset();  // closes and destroys: aborted the process before the fix
  SUCCEED();
}

TEST(KafkaConsumer, StaticMembershipGivesEachWorkerItsOwnInstanceId) {
  SourceConfig c = Config("127.0.0.1:1", "g");
  c.group_instance_id = "sink-a";
  EXPECT_EQ(ConsumerProperties(c, 0).at("group.instance.id"), "sink-a-0");
  EXPECT_EQ(ConsumerProperties(c, 3).at("group.instance.id"), "sink-a-3");
  EXPECT_EQ(ConsumerProperties(c, -1).count("group.instance.id"), 0u)
      << "a reader outside the group (the control API's peek) must not take a worker's id";
  c.group_instance_id.clear();
  EXPECT_EQ(ConsumerProperties(c, 0).count("group.instance.id"), 0u);
}

// Two members under each protocol: the rebalance callback (incremental
// assign/unassign for cooperative-sticky, full assign for range) shares the
// partitions, and a member that leaves commits its partitions' progress in
// the revoke before they go, so the other member takes over where it
// stopped: every record is delivered once and everything ends committed.
// (Records are produced while the group is stable: librdkafka 2.0.2's mock
// coordinator answers commits made while a join is in progress with
// ILLEGAL_GENERATION, where a real broker accepts them; librdkafka then
// treats a cooperative member's assignment as lost, and what it consumed in
// that window is redelivered.)
class RebalanceProtocol : public ::testing::TestWithParam<const char*> {};

struct Counting : public Dispatcher {
  explicit Counting(std::atomic<int>* total) : total(total) {}
  DispatchResult Dispatch(const std::vector<Message>& batch, std::vector<FailedMessage>) override {
    absl::MutexLock l(&mu);
    for (const Message& m : batch) got.push_back({m.partition, m.offset});
    total->fetch_add(static_cast<int>(batch.size()));
    return {};
  }
  std::vector<std::pair<int32_t, int64_t>> Got() {
    absl::MutexLock l(&mu);
    return got;
  }
  std::atomic<int>* total;
  absl::Mutex mu;
  std::vector<std::pair<int32_t, int64_t>> got;
};

bool WaitUntil(const std::function<bool()>& f, absl::Duration limit) {
  const absl::Time end = absl::Now() + limit;
  while (absl::Now() < end) {
    if (f()) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return f();
}

TEST_P(RebalanceProtocol, MembersShareAndALeavingMemberHandsOverItsProgress) {
  MockCluster cluster;
  const std::string group = std::string("rebalance-") + GetParam();
  NoopMetrics metrics;
  std::atomic<int> total{0};
  Counting da(&total), db(&total);
  SourceConfig c = Config(cluster.Bootstrap(), group);
  c.kafka_properties["partition.assignment.strategy"] = GetParam();
  c.kafka_properties["heartbeat.interval.ms"] = "300";
  WorkerOptions o;
  o.max_poll_records = 5;
  o.report_interval = absl::Milliseconds(100);
  WorkerControl control_a, control_b;
  auto ca = KafkaConsumer::Create(c, &metrics, 0);
  ASSERT_TRUE(ca.ok()) << ca.status();
  Worker a(o, *std::move(ca), nullptr, nullptr, &da, &metrics, &control_a);
  std::thread ta([&] { EXPECT_TRUE(a.Run().ok()); });
  ASSERT_TRUE(WaitUntil([&] { return control_a.Partitions().size() == 2; }, absl::Seconds(20)));
  auto cb = KafkaConsumer::Create(c, &metrics, 1);
  ASSERT_TRUE(cb.ok()) << cb.status();
  o.id = 1;
  Worker b(o, *std::move(cb), nullptr, nullptr, &db, &metrics, &control_b);
  std::thread tb([&] { EXPECT_TRUE(b.Run().ok()); });
  // librdkafka's mock coordinator ends a join round session.timeout.ms - 1 s
  // after it starts (5 s here), and the cooperative protocol needs two rounds
  // after B's join. When B's JoinGroup answer reaches it after A's SyncGroup,
  // the mock answers B's SyncGroup "invalid request" and B joins again: one
  // more round each time. Measured: 10 s usually, 30 s in a loaded CI run.
  const absl::Duration settle = absl::Seconds(90);
  EXPECT_TRUE(WaitUntil(
      [&] { return control_a.Partitions().size() == 1 && control_b.Partitions().size() == 1; },
      settle))
      << "one partition each";
  cluster.Produce(30, 0);
  cluster.Produce(30, 1);
  EXPECT_TRUE(WaitUntil([&] { return total.load() >= 60; }, absl::Seconds(20)));
  EXPECT_GT(db.Got().size(), 0u) << "the second member consumes its partition";
  // B leaves: its revoke commits what it did; A takes its partition over.
  control_b.RequestStop();
  tb.join();
  EXPECT_TRUE(WaitUntil([&] { return control_a.Partitions().size() == 2; }, settle))
      << "A takes B's partition over";
  cluster.Produce(30, 0);
  cluster.Produce(30, 1);
  EXPECT_TRUE(WaitUntil([&] { return total.load() >= 120; }, absl::Seconds(30)));
  absl::SleepFor(absl::Milliseconds(500));  // anything delivered twice shows up
  control_a.RequestStop();
  ta.join();
  auto ga = da.Got(), gb = db.Got();
  std::set<std::pair<int32_t, int64_t>> distinct(ga.begin(), ga.end());
  distinct.insert(gb.begin(), gb.end());
  EXPECT_EQ(distinct.size(), 120u);
  EXPECT_EQ(ga.size() + gb.size(), 120u)
      << "duplicates: " << ga.size() + gb.size() - distinct.size() << " (member A " << ga.size()
      << ", member B " << gb.size() << ")";
  EXPECT_EQ(cluster.Committed(group, 0), 60);
  EXPECT_EQ(cluster.Committed(group, 1), 60);
}

INSTANTIATE_TEST_SUITE_P(Protocols, RebalanceProtocol,
                         ::testing::Values("range", "cooperative-sticky"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           return std::string(i.param) == "range" ? "Eager" : "Cooperative";
                         });

}  // namespace
}  // namespace sluice::sink
