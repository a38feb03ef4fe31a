// The rolling swap between Firehose and sluice-sink, on a real Apache Kafka
// broker (issue 40, item 4): a Java KafkaConsumer with CooperativeStickyAssignor
// (integration/java/KafkaConsumerMember.java, the client Firehose runs on) and
// sluice-sink share one consumer group while a producer keeps writing.
//   - Swap: the Java member consumes and commits; sluice-sink joins the group;
//     the Java member leaves (SIGTERM); sluice-sink takes every partition.
//   - Rollback: the same with the roles reversed.
// Each checks: no group-protocol error (both speak "cooperative-sticky"; the
// leaving member exits 0, the staying one keeps running, no
// INCONSISTENT_GROUP_PROTOCOL in any log), nothing lost (every produced key was
// delivered by one member or the other) and prints the duplicates it saw.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "integration/java_member.h"
#include "integration/kafka_broker.h"
#include "integration/sink_harness.h"
#include "librdkafka/rdkafka.h"

namespace sluice::integration {
namespace {

constexpr int kPartitions = 4;
constexpr char kTopic[] = "orders";

// Keys the log sink printed ("... key=\"ORD-7\" message=..."), complete lines only.
std::vector<std::string> SinkKeys(const std::string& out) {
  std::vector<std::string> keys;
  absl::string_view text(out);
  text = text.substr(0, text.rfind('\n') == absl::string_view::npos ? 0 : text.rfind('\n') + 1);
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    size_t at = line.find(" key=\"");
    if (at == absl::string_view::npos) continue;
    absl::string_view rest = line.substr(at + 6);
    keys.emplace_back(rest.substr(0, rest.find('"')));
  }
  return keys;
}

std::vector<std::string> JavaKeys(const std::string& path) {
  std::vector<std::string> keys;
  for (const JavaConsumed& c : ReadJavaMemberOutput(path)) keys.push_back(c.key);
  return keys;
}

// Partitions sluice-sink holds per its last "assigned [...]" line (-1 before
// the first).
int SinkHolding(const std::string& err) {
  size_t at = err.rfind("assigned [");
  if (at == std::string::npos) return -1;
  absl::string_view list(err);
  list = list.substr(at + 10, list.find(']', at) - at - 10);
  return list.empty() ? 0 : static_cast<int>(std::count(list.begin(), list.end(), ',')) + 1;
}

// The group as the coordinator describes it (ListGroups + DescribeGroups).
struct GroupView {
  std::string state, protocol;
  int members = 0;
};
GroupView DescribeGroup(const std::string& bootstrap, const std::string& group) {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  const rd_kafka_group_list* list = nullptr;
  GroupView v;
  if (rd_kafka_list_groups(rk, group.c_str(), &list, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR &&
      list->group_cnt == 1) {
    v.state = list->groups[0].state;
    v.protocol = list->groups[0].protocol;
    v.members = list->groups[0].member_cnt;
  }
  if (list) rd_kafka_group_list_destroy(list);
  rd_kafka_destroy(rk);
  return v;
}

// Produces 50 records every 100 ms, keyed ORD-<n> from 0, until Stop().
class SteadyProducer {
 public:
  explicit SteadyProducer(std::string bootstrap)
      : bootstrap_(std::move(bootstrap)), thread_([this] { Run(); }) {}
  ~SteadyProducer() { Stop(); }
  // Stops after the chunk in flight; returns how many records were produced.
  int Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return produced_;
  }
  int produced() const { return produced_; }

 private:
  void Run() {
    while (!stop_) {
      ProduceSamples(bootstrap_, kTopic, produced_, 50);
      produced_ += 50;
      absl::SleepFor(absl::Milliseconds(100));  // pacing, not synchronisation
    }
  }
  std::string bootstrap_;
  std::atomic<bool> stop_{false};
  std::atomic<int> produced_{0};
  std::thread thread_;
};

// sluice-sink's variables for the swap group: the log sink, and the assignor
// as a Firehose deployment names it (translated to "cooperative-sticky").
std::map<std::string, std::string> SwapSinkEnv(const std::string& bootstrap,
                                               const std::string& group) {
  auto env = SinkEnv(bootstrap, kTopic, group, SampleDescriptorUrl());
  env["SOURCE_KAFKA_CONSUMER_CONFIG_PARTITION_ASSIGNMENT_STRATEGY"] =
      "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
  env["SOURCE_KAFKA_CONSUMER_CONFIG_SESSION_TIMEOUT_MS"] = "10000";  // Firehose's
  return env;
}

// Every key ORD-0..ORD-<produced-1> delivered; prints and records the
// duplicates; returns them.
int CheckDelivered(const std::string& what, int produced, const std::vector<std::string>& java,
                   const std::vector<std::string>& sink) {
  std::set<std::string> all(java.begin(), java.end());
  all.insert(sink.begin(), sink.end());
  int missing = 0;
  std::string first_missing;
  for (int i = 0; i < produced; ++i) {
    if (!all.count(absl::StrCat("ORD-", i))) {
      if (missing++ == 0) first_missing = absl::StrCat("ORD-", i);
    }
  }
  EXPECT_EQ(missing, 0) << "records lost, the first " << first_missing;
  EXPECT_EQ(all.size(), static_cast<size_t>(produced)) << "no key beyond those produced";
  const int duplicates = static_cast<int>(java.size() + sink.size() - all.size());
  std::printf("%s: %d records produced; Java member delivered %zu, sluice-sink %zu; lost %d; "
              "duplicates %d\n",
              what.c_str(), produced, java.size(), sink.size(), missing, duplicates);
  return duplicates;
}

// The Java member's group events (its "member:" lines but the progress ones)
// and kafka-clients' warnings and errors (log4j2's console is stdout).
void PrintJavaEvents(const std::string& out, const std::string& err) {
  for (absl::string_view line : absl::StrSplit(out + err, '\n', absl::SkipEmpty())) {
    if ((absl::StartsWith(line, "member: ") && !absl::StartsWith(line, "member: consumed")) ||
        absl::StrContains(line, " WARN ") || absl::StrContains(line, " ERROR ")) {
      std::printf("  java %s\n", std::string(absl::StripPrefix(line, "member: ")).c_str());
    }
  }
}

// sluice-sink's group events (assignments, revocations, commits around them).
void PrintSinkEvents(const std::string& err) {
  for (absl::string_view line : absl::StrSplit(err, '\n', absl::SkipEmpty())) {
    if (absl::StrContains(line, "assigned [") || absl::StrContains(line, "lost") ||
        absl::StrContains(line, "commit")) {
      size_t at = line.find("worker ");
      std::printf("  sluice-sink %s\n",
                  std::string(line.substr(at == absl::string_view::npos ? 0 : at)).c_str());
    }
  }
}

// No member saw the group protocols disagree.
void ExpectNoProtocolError(const std::string& log) {
  for (const char* needle : {"INCONSISTENT_GROUP_PROTOCOL", "InconsistentGroupProtocol",
                             "Inconsistent group protocol"}) {
    EXPECT_FALSE(absl::StrContains(log, needle)) << log;
  }
}

class RollingSwap : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    // An existing directory: the broker's log files are opened in it before
    // kafka-broker.sh runs.
    broker_ = KafkaBroker::Start({absl::StrCat(kTopic, ":", kPartitions)},
                                 TempDir(absl::StrCat(
                                     ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                                     "/kafka")));
    ASSERT_TRUE(CompiledJavaMember().ok()) << CompiledJavaMember().status();
  }
  std::unique_ptr<Process> StartJava(const std::string& group) {
    JavaMemberOptions o{.bootstrap = broker_.bootstrap, .topic = kTopic, .group = group,
                        .output_path = dir_ + "/java.records"};
    auto p = StartJavaMember(o, dir_ + "/java");
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? std::move(*p) : nullptr;
  }
  std::string dir_;
  KafkaBroker broker_;
};

TEST_F(RollingSwap, JavaMemberToSluiceSink) {
  const std::string group = "swap";
  const absl::Time t0 = absl::Now();
  SteadyProducer producer(broker_.bootstrap);
  auto java = StartJava(group);
  ASSERT_NE(java, nullptr);
  const std::string records = dir_ + "/java.records";
  ASSERT_TRUE(WaitFor([&] { return JavaMemberHolding(java->Output()) == kPartitions; },
                      absl::Seconds(60)))
      << java->Output();
  ASSERT_TRUE(WaitFor([&] { return JavaKeys(records).size() >= 300; }, absl::Seconds(60)))
      << java->Output();
  std::printf("Java member holds %d partitions after %lld ms\n", kPartitions,
              static_cast<long long>(absl::ToInt64Milliseconds(absl::Now() - t0)));

  // sluice-sink joins: the cooperative rebalance moves some partitions to it.
  auto sink = StartSink(SwapSinkEnv(broker_.bootstrap, group), dir_ + "/sink");
  ASSERT_TRUE(WaitFor([&] { return SinkHolding(sink->Stderr()) > 0 && SinkKeys(sink->Output()).size() >= 100; },
                      absl::Seconds(90)))
      << sink->Stderr() << "\n--- java ---\n" << java->Output();
  EXPECT_TRUE(absl::StrContains(sink->Stderr(),
                                "partition.assignment.strategy -> librdkafka "
                                "partition.assignment.strategy=cooperative-sticky"))
      << "Firehose's class name translated: " << sink->Stderr();
  GroupView shared = DescribeGroup(broker_.bootstrap, group);
  std::printf("shared group: state %s, protocol %s, %d members; Java holds %d, sluice-sink %d\n",
              shared.state.c_str(), shared.protocol.c_str(), shared.members,
              JavaMemberHolding(java->Output()), SinkHolding(sink->Stderr()));
  EXPECT_EQ(shared.protocol, "cooperative-sticky");
  EXPECT_EQ(shared.members, 2);
  EXPECT_GT(JavaMemberHolding(java->Output()), 0) << "sticky: the Java member kept some";

  // The Java member leaves; sluice-sink takes everything and keeps going.
  const absl::Time left_at = absl::Now();
  java->Signal(SIGTERM);
  EXPECT_EQ(java->Wait(absl::Seconds(60)), 0) << java->Output();
  ASSERT_TRUE(WaitFor([&] { return SinkHolding(sink->Stderr()) == kPartitions; },
                      absl::Seconds(60)))
      << sink->Stderr();
  std::printf("sluice-sink holds all %d partitions %lld ms after the SIGTERM to the Java member\n",
              kPartitions, static_cast<long long>(absl::ToInt64Milliseconds(absl::Now() - left_at)));
  const size_t sink_after_swap = SinkKeys(sink->Output()).size();
  ASSERT_TRUE(WaitFor([&] { return SinkKeys(sink->Output()).size() >= sink_after_swap + 300; },
                      absl::Seconds(60)));
  const int produced = producer.Stop();
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker_.bootstrap, group, kTopic, kPartitions) == produced; },
                      absl::Seconds(60)))
      << sink->Stderr();
  EXPECT_TRUE(sink->Running()) << sink->Stderr();

  const int duplicates =
      CheckDelivered("swap Java -> sluice-sink", produced, JavaKeys(records), SinkKeys(sink->Output()));
  RecordProperty("produced", produced);
  RecordProperty("duplicates", duplicates);
  PrintJavaEvents(java->Output(), java->Stderr());
  ExpectNoProtocolError(java->Output() + java->Stderr());
  ExpectNoProtocolError(sink->Stderr());
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(30)), 0) << sink->Stderr();
  PrintSinkEvents(sink->Stderr());
}

TEST_F(RollingSwap, SluiceSinkBackToJavaMember) {
  const std::string group = "rollback";
  const absl::Time t0 = absl::Now();
  SteadyProducer producer(broker_.bootstrap);
  auto sink = StartSink(SwapSinkEnv(broker_.bootstrap, group), dir_ + "/sink");
  ASSERT_TRUE(WaitFor([&] { return SinkHolding(sink->Stderr()) == kPartitions; }, absl::Seconds(60)))
      << sink->Stderr();
  ASSERT_TRUE(WaitFor([&] { return SinkKeys(sink->Output()).size() >= 300; }, absl::Seconds(60)))
      << sink->Stderr();
  std::printf("sluice-sink holds %d partitions after %lld ms\n", kPartitions,
              static_cast<long long>(absl::ToInt64Milliseconds(absl::Now() - t0)));

  // The Java member joins (rollback begins).
  auto java = StartJava(group);
  ASSERT_NE(java, nullptr);
  const std::string records = dir_ + "/java.records";
  ASSERT_TRUE(WaitFor([&] { return JavaMemberHolding(java->Output()) > 0 && JavaKeys(records).size() >= 100; },
                      absl::Seconds(90)))
      << java->Output() << "\n--- sink ---\n" << sink->Stderr();
  GroupView shared = DescribeGroup(broker_.bootstrap, group);
  std::printf("shared group: state %s, protocol %s, %d members; sluice-sink holds %d, Java %d\n",
              shared.state.c_str(), shared.protocol.c_str(), shared.members,
              SinkHolding(sink->Stderr()), JavaMemberHolding(java->Output()));
  EXPECT_EQ(shared.protocol, "cooperative-sticky");
  EXPECT_EQ(shared.members, 2);
  EXPECT_GT(SinkHolding(sink->Stderr()), 0) << "sticky: sluice-sink kept some";

  // sluice-sink leaves; the Java member takes everything and keeps going.
  const absl::Time left_at = absl::Now();
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(60)), 0) << sink->Stderr();
  ASSERT_TRUE(WaitFor([&] { return JavaMemberHolding(java->Output()) == kPartitions; },
                      absl::Seconds(60)))
      << java->Output();
  std::printf("the Java member holds all %d partitions %lld ms after the SIGTERM to sluice-sink\n",
              kPartitions, static_cast<long long>(absl::ToInt64Milliseconds(absl::Now() - left_at)));
  const size_t java_after_swap = JavaKeys(records).size();
  ASSERT_TRUE(WaitFor([&] { return JavaKeys(records).size() >= java_after_swap + 300; },
                      absl::Seconds(60)));
  const int produced = producer.Stop();
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker_.bootstrap, group, kTopic, kPartitions) == produced; },
                      absl::Seconds(60)))
      << java->Output();
  EXPECT_TRUE(java->Running()) << java->Output();

  const int duplicates = CheckDelivered("rollback sluice-sink -> Java", produced, JavaKeys(records),
                                        SinkKeys(sink->Output()));
  RecordProperty("produced", produced);
  RecordProperty("duplicates", duplicates);
  ExpectNoProtocolError(sink->Stderr());
  ExpectNoProtocolError(java->Output() + java->Stderr());
  java->Signal(SIGTERM);
  EXPECT_EQ(java->Wait(absl::Seconds(60)), 0) << java->Output();
  PrintJavaEvents(java->Output(), java->Stderr());
  PrintSinkEvents(sink->Stderr());
}

}  // namespace
}  // namespace sluice::integration
