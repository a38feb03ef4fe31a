// Consumer-group behaviour end to end on a real Apache Kafka broker
// (integration/kafka_broker.h; its version is printed): two sluice-sink
// processes share the partitions with 0 duplicates; kill -9 then restart
// loses nothing. One broker serves both tests (its start costs 15-30 s on a
// busy machine); each test has its own topic and group.
#include <signal.h>

#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "integration/kafka_broker.h"
#include "integration/sink_harness.h"

namespace sluice::integration {
namespace {

// Order numbers printed by the log sink.
std::multiset<std::string> Orders(const std::string& out) {
  std::multiset<std::string> orders;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    auto pos = line.find("order_number: \"");
    if (pos == absl::string_view::npos) continue;
    auto rest = line.substr(pos + 15);
    auto end = rest.find('"');
    if (end == absl::string_view::npos) continue;  // torn line of a killed process
    orders.insert(std::string(rest.substr(0, end)));
  }
  return orders;
}

class SinkGroup : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new KafkaBroker(
        KafkaBroker::Start({"orders:4", "restart-orders:2"}, TempDir("sink_group_kafka")));
  }
  static void TearDownTestSuite() {
    delete broker_;  // stops the broker
    broker_ = nullptr;
  }
  static KafkaBroker* broker_;
};
KafkaBroker* SinkGroup::broker_ = nullptr;

TEST_F(SinkGroup, TwoMembersShareThePartitions) {
  std::string dir = TempDir("sink_group");
  const KafkaBroker& broker = *broker_;
  auto env = SinkEnv(broker.bootstrap, "orders", "shared", SampleDescriptorUrl());
  auto a = StartSink(env, dir + "/a");
  ASSERT_TRUE(WaitFor([&] { return a->Stderr().find("assigned [") != std::string::npos; },
                      absl::Seconds(60)))
      << a->Stderr();
  auto b = StartSink(env, dir + "/b");
  // After the rebalance each member holds two partitions.
  auto two_each = [&] {
    auto last = [](const std::string& err) {
      auto pos = err.rfind("assigned [");
      if (pos == std::string::npos) return std::string();
      return err.substr(pos, err.find('\n', pos) - pos);
    };
    std::string la = last(a->Stderr()), lb = last(b->Stderr());
    return std::count(la.begin(), la.end(), ',') == 1 && std::count(lb.begin(), lb.end(), ',') == 1;
  };
  // The real coordinator rebalances once B joins: A's next heartbeat (0.5 s)
  // learns of it, and both rejoin.
  ASSERT_TRUE(WaitFor(two_each, absl::Seconds(60))) << a->Stderr() << "\n---\n" << b->Stderr();
  ProduceSamples(broker.bootstrap, "orders", 0, 400);
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "shared", "orders", 4) == 400; },
                      absl::Seconds(60)))
      << a->Stderr() << "\n---\n" << b->Stderr();
  auto oa = Orders(a->Output()), ob = Orders(b->Output());
  EXPECT_GT(oa.size(), 0u);
  EXPECT_GT(ob.size(), 0u);
  std::set<std::string> all(oa.begin(), oa.end());
  all.insert(ob.begin(), ob.end());
  EXPECT_EQ(all.size(), 400u);
  EXPECT_EQ(oa.size() + ob.size(), 400u) << "no record delivered twice in a clean run";
  std::printf("member A: %zu records, member B: %zu records\n", oa.size(), ob.size());
  a->Signal(SIGTERM);
  b->Signal(SIGTERM);
  EXPECT_EQ(a->Wait(absl::Seconds(20)), 0);
  EXPECT_EQ(b->Wait(absl::Seconds(20)), 0);
}

TEST_F(SinkGroup, KillNineThenRestartLosesNothing) {
  std::string dir = TempDir("sink_restart");
  const KafkaBroker& broker = *broker_;
  const std::string topic = "restart-orders";
  auto env = SinkEnv(broker.bootstrap, topic, "restart", SampleDescriptorUrl());
  env["SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS"] = "50";
  const int kTotal = 4000;
  auto first = StartSink(env, dir + "/1");
  ASSERT_TRUE(WaitFor([&] { return first->Stderr().find("assigned [") != std::string::npos; },
                      absl::Seconds(60)))
      << first->Stderr();
  // Produce in the background, ~4000 records over ~2 s.
  std::thread producer([&] {
    for (int i = 0; i < kTotal; i += 200) {
      ProduceSamples(broker.bootstrap, topic, i, 200);
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  ASSERT_TRUE(WaitFor([&] { return Orders(first->Output()).size() >= 1000; }, absl::Seconds(60)))
      << first->Stderr();
  first->Signal(SIGKILL);
  EXPECT_EQ(first->Wait(absl::Seconds(5)), 128 + SIGKILL);
  int64_t committed_at_kill = CommittedSum(broker.bootstrap, "restart", topic, 2);
  auto second = StartSink(env, dir + "/2");
  producer.join();
  // The killed member holds its partitions until its session (6 s) expires.
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "restart", topic, 2) == kTotal; },
                      absl::Seconds(90)))
      << second->Stderr();
  auto o1 = Orders(first->Output()), o2 = Orders(second->Output());
  std::set<std::string> all(o1.begin(), o1.end());
  all.insert(o2.begin(), o2.end());
  EXPECT_EQ(all.size(), static_cast<size_t>(kTotal)) << "every record delivered at least once";
  size_t duplicates = o1.size() + o2.size() - all.size();
  std::printf("kill -9 after %zu records (committed %lld); restart delivered %zu; duplicates: %zu\n",
              o1.size(), static_cast<long long>(committed_at_kill), o2.size(), duplicates);
  RecordProperty("duplicates", static_cast<int>(duplicates));
  second->Signal(SIGTERM);
  EXPECT_EQ(second->Wait(absl::Seconds(20)), 0);
}

}  // namespace
}  // namespace sluice::integration
