// Duplicates around rebalances, end to end (issue 29 item 6): sluice-sink
// processes share a group on a real Apache Kafka broker (kafka_broker.h) and
// deliver to a real HTTP server, which counts every record it received.
// Rebalances are the broker's group coordinator's: librdkafka's mock cluster
// holds each one open for the session timeout and then drops any member that
// has not rejoined, which on a loaded machine once turned a clean join into
// 1,188 redeliveries that real Kafka would not cause.
//  - A clean start of two members (records flowing while they join, and a
//    third member joining and leaving mid-stream) delivers every record
//    exactly once: a revoked partition's progress is committed from the
//    rebalance callback before it moves, and no async commit is sent while
//    the member's own JoinGroup is in flight (librdkafka issue 4059); each
//    case prints how often commits were held for that and how often one
//    was refused anyway.
//  - A soak of 10 kill -9 cycles mid-stream loses nothing and prints the
//    duplicates it saw (a killed member cannot commit, so its last batches
//    are redelivered: at-least-once).
#include <signal.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "integration/kafka_broker.h"
#include "integration/sink_harness.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/testing/http_test_server.h"

namespace sluice::integration {
namespace {

using sluice::sink::testing::HttpTestServer;

// Counts, per order number, how often the HTTP sink delivered it. A batch
// is one request with a JSON array body.
class Receiver {
 public:
  Receiver() {
    auto s = HttpTestServer::StartWithResponses([this](const sink::testing::HttpRequest& r) {
      auto body = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
      absl::MutexLock l(&mu_);
      if (body.is_array()) {
        for (const auto& e : body) {
          if (e.contains("order") && e["order"].is_string()) ++seen_[e["order"].get<std::string>()];
        }
      }
      return HttpTestServer::Response{};
    });
    if (!s.ok()) {
      ADD_FAILURE() << s.status();
      return;
    }
    server_ = std::move(*s);
  }
  std::string url() const { return server_->url() + "/orders"; }
  // Distinct records received.
  size_t Distinct() const {
    absl::MutexLock l(&mu_);
    return seen_.size();
  }
  // Deliveries beyond the first.
  int64_t Duplicates() const {
    absl::MutexLock l(&mu_);
    int64_t d = 0;
    for (const auto& [k, n] : seen_) d += n - 1;
    return d;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, int> seen_;
  std::unique_ptr<HttpTestServer> server_;
};

std::map<std::string, std::string> HttpEnv(const KafkaBroker& broker, const std::string& group,
                                           const Receiver& receiver) {
  auto env = SinkEnv(broker.bootstrap, "orders", group, SampleDescriptorUrl());
  env["SINK_TYPE"] = "http";
  env["SINK_HTTP_SERVICE_URL"] = receiver.url();
  env["SINK_HTTP_DATA_FORMAT"] = "json";
  env["SINK_HTTP_JSON_BODY_TEMPLATE"] = R"({"order":"$.order_number"})";
  env["SOURCE_KAFKA_CONSUMER_CONFIG_MAX_POLL_RECORDS"] = "100";
  return env;
}

// How many times `needle` occurs in `haystack`.
int Occurrences(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

bool Assigned(const Process& p) { return p.Stderr().find("assigned [") != std::string::npos; }

// Produces `total` records numbered from `start` in steps of `step`, pausing
// `gap` between steps.
std::thread ProduceSlowly(const KafkaBroker& broker, int start, int total, int step,
                          absl::Duration gap) {
  return std::thread([&broker, start, total, step, gap] {
    for (int i = start; i < start + total; i += step) {
      ProduceSamples(broker.bootstrap, "orders", i, step);
      absl::SleepFor(gap);
    }
  });
}

// Two members share a group on a clean start (the second one joining while
// the first consumes), `third` says whether a third
// member joins and leaves mid-stream; returns the duplicates delivered.
int64_t RunMembers(const std::string& name, bool third) {
  std::string dir = TempDir(name);
  KafkaBroker broker = KafkaBroker::Start({"orders:4"}, dir);
  Receiver receiver;
  auto env = HttpEnv(broker, name, receiver);
  const int kTotal = 6000;
  // Records are already flowing when the members join, so the first member
  // has consumed some when the second one's join takes partitions from it.
  ProduceSamples(broker.bootstrap, "orders", 0, 1000);
  std::thread producer = ProduceSlowly(broker, 1000, kTotal - 1000, 250, absl::Milliseconds(200));
  auto a = StartSink(env, dir + "/a");
  // The second member starts once the first one delivers: its join takes
  // partitions from a member in the middle of the stream.
  EXPECT_TRUE(WaitFor([&] { return receiver.Distinct() > 0; }, absl::Seconds(30))) << a->Stderr();
  auto b = StartSink(env, dir + "/b");
  std::unique_ptr<Process> c;
  EXPECT_TRUE(WaitFor([&] { return Assigned(*a) && Assigned(*b); }, absl::Seconds(60)))
      << a->Stderr() << "\n---\n" << b->Stderr();
  if (third) {
    // Two more rebalances while records flow.
    c = StartSink(env, dir + "/c");
    EXPECT_TRUE(WaitFor([&] { return Assigned(*c); }, absl::Seconds(60))) << c->Stderr();
    absl::SleepFor(absl::Seconds(1));
    c->Signal(SIGTERM);
    EXPECT_EQ(c->Wait(absl::Seconds(20)), 0) << c->Stderr();
  }
  producer.join();
  EXPECT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, name, "orders", 4) == kTotal; },
                      absl::Seconds(60)))
      << "received " << receiver.Distinct() << " distinct, " << receiver.Duplicates()
      << " duplicates; committed "
      << absl::StrJoin(Committed(broker.bootstrap, name, "orders", 4), ",") << "\n"
      << a->Stderr() << "\n---\n" << b->Stderr() << "\n---\n" << (c ? c->Stderr() : "");
  const int64_t duplicates = receiver.Duplicates();
  std::printf("%s: %zu distinct, %lld duplicates\n", name.c_str(), receiver.Distinct(),
              static_cast<long long>(duplicates));
  // How often a member held its commits while its JoinGroup was in flight,
  // and how often the broker refused one anyway (librdkafka issue 4059).
  int held = 0, refused = 0;
  for (const Process* p : {a.get(), b.get(), c.get()}) {
    if (p == nullptr) continue;
    held += Occurrences(p->Stderr(), "rejoining the group; offset commits wait");
    refused += Occurrences(p->Stderr(), "async offset commit refused");
  }
  std::printf("%s: commits held during a JoinGroup %d time(s); async commits refused %d time(s)\n",
              name.c_str(), held, refused);
  EXPECT_EQ(receiver.Distinct(), static_cast<size_t>(kTotal)) << "nothing lost";
  if (duplicates > 0) {
    std::printf("%s\n---\n%s\n---\n%s\n", a->Stderr().c_str(), b->Stderr().c_str(),
                c ? c->Stderr().c_str() : "");
  }
  a->Signal(SIGTERM);
  b->Signal(SIGTERM);
  EXPECT_EQ(a->Wait(absl::Seconds(20)), 0);
  EXPECT_EQ(b->Wait(absl::Seconds(20)), 0);
  return duplicates;
}

TEST(SinkRebalance, ASecondMemberJoiningMidStreamDeliversEachRecordOnce) {
  const int64_t duplicates = RunMembers("clean", /*third=*/false);
  RecordProperty("duplicates", static_cast<int>(duplicates));
  EXPECT_EQ(duplicates, 0);
}

TEST(SinkRebalance, AThirdMemberJoiningAndLeavingMidStream) {
  const int64_t duplicates = RunMembers("third", /*third=*/true);
  RecordProperty("duplicates", static_cast<int>(duplicates));
}

TEST(SinkRebalance, TwoWorkersInOneProcessDeliverEachRecordOnce) {
  std::string dir = TempDir("sink_rebalance_threads");
  KafkaBroker broker = KafkaBroker::Start({"orders:4"}, dir);
  Receiver receiver;
  auto env = HttpEnv(broker, "threads", receiver);
  env["APPLICATION_THREAD_COUNT"] = "2";
  const int kTotal = 4000;
  ProduceSamples(broker.bootstrap, "orders", 0, 1000);
  std::thread producer = ProduceSlowly(broker, 1000, kTotal - 1000, 250, absl::Milliseconds(100));
  auto sink = StartSink(env, dir + "/sink");
  producer.join();
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "threads", "orders", 4) == kTotal; },
                      absl::Seconds(60)))
      << sink->Stderr();
  const int64_t duplicates = receiver.Duplicates();
  std::printf("clean start of 2 workers in one process: %zu distinct, %lld duplicates\n",
              receiver.Distinct(), static_cast<long long>(duplicates));
  EXPECT_EQ(receiver.Distinct(), static_cast<size_t>(kTotal));
  EXPECT_EQ(duplicates, 0) << sink->Stderr();
  sink->Signal(SIGTERM);
  EXPECT_EQ(sink->Wait(absl::Seconds(20)), 0);
}

TEST(SinkRebalance, TenKillNineCyclesLoseNothing) {
  std::string dir = TempDir("sink_soak");
  KafkaBroker broker = KafkaBroker::Start({"orders:2"}, dir);
  Receiver receiver;
  auto env = HttpEnv(broker, "soak", receiver);
  // A killed member holds its partitions until its session times out: keep
  // that short so that ten cycles stay within a minute or so.
  env["SOURCE_KAFKA_CONSUMER_CONFIG_SESSION_TIMEOUT_MS"] = "3000";
  env["SOURCE_KAFKA_CONSUMER_CONFIG_HEARTBEAT_INTERVAL_MS"] = "300";
  const int kCycles = 10;
  const int kPerCycle = 1500;
  const int kTotal = kCycles * kPerCycle;
  // Records keep coming while the sink is killed and restarted.
  std::thread producer =
      ProduceSlowly(broker, 0, kTotal, 300, absl::Milliseconds(40));
  const absl::Time start = absl::Now();
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    auto sink = StartSink(env, absl::StrCat(dir, "/", cycle));
    // Kill it once it has delivered something more, mid-stream.
    const size_t before = receiver.Distinct();
    ASSERT_TRUE(WaitFor([&] { return receiver.Distinct() >= before + 300 ||
                                     receiver.Distinct() == static_cast<size_t>(kTotal); },
                        absl::Seconds(30)))
        << sink->Stderr();
    sink->Signal(SIGKILL);
    sink->Wait(absl::Seconds(5));
  }
  producer.join();
  // A last member drains and commits the rest.
  auto last = StartSink(env, dir + "/last");
  ASSERT_TRUE(WaitFor([&] { return CommittedSum(broker.bootstrap, "soak", "orders", 2) == kTotal; },
                      absl::Seconds(60)))
      << last->Stderr();
  const int64_t duplicates = receiver.Duplicates();
  std::printf("soak: %d kill -9 cycles, %d records, %zu distinct delivered, %lld duplicates, "
              "%.1f s\n",
              kCycles, kTotal, receiver.Distinct(), static_cast<long long>(duplicates),
              absl::ToDoubleSeconds(absl::Now() - start));
  RecordProperty("duplicates", static_cast<int>(duplicates));
  EXPECT_EQ(receiver.Distinct(), static_cast<size_t>(kTotal)) << "nothing lost";
  last->Signal(SIGTERM);
  EXPECT_EQ(last->Wait(absl::Seconds(20)), 0);
}

}  // namespace
}  // namespace sluice::integration
