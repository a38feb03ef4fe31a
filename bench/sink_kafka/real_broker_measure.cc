#include "bench/sink_kafka/real_broker_measure.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "integration/process.h"
#include "sink/sample/sample_gen.h"

namespace sluice::bench {

// A sample record padded to exactly 100 bytes (as sink_kafka_bench.cc).
std::string Record100(uint64_t i, int64_t now_ms) {
  sluice::sample::SampleLogMessage m;
  sluice::sample::MakeSample(i, now_ms, &m);
  size_t size = m.ByteSizeLong();
  if (size + 2 < 100) m.add_tags(std::string(100 - size - 2, 'x'));
  return m.SerializeAsString();
}

// Produces records [0, n) keyed ORD-<i> (round-robin over the partitions by
// key hash) and waits for delivery; prints the rate.
void Produce(const std::string& bootstrap, const std::string& topic, int n) {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "linger.ms", "20", err, sizeof(err));
  rd_kafka_conf_set(conf, "batch.num.messages", "10000", err, sizeof(err));
  rd_kafka_conf_set(conf, "queue.buffering.max.messages", "500000", err, sizeof(err));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  const absl::Time t0 = absl::Now();
  const int64_t now = absl::ToUnixMillis(t0);
  size_t bytes = 0;
  for (int i = 0; i < n; ++i) {
    std::string v = Record100(i, now);
    bytes += v.size();
    std::string k = absl::StrCat("ORD-", i);
    while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_KEY(k.data(), k.size()),
                             RD_KAFKA_V_VALUE(v.data(), v.size()),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                             RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(rk, 5);
    }
  }
  rd_kafka_flush(rk, 300000);
  rd_kafka_destroy(rk);
  const double s = absl::ToDoubleSeconds(absl::Now() - t0);
  std::printf("produced %d records to %s (mean value %.1f bytes) in %.1f s, %.0f records/s\n", n,
              topic.c_str(), n ? static_cast<double>(bytes) / n : 0.0, s, n / s);
}

CommitWatcher::CommitWatcher(const std::string& bootstrap, const std::string& group,
                             const std::string& topic, int partitions) {
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof(err));
  rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  list_ = rd_kafka_topic_partition_list_new(partitions);
  for (int i = 0; i < partitions; ++i) rd_kafka_topic_partition_list_add(list_, topic.c_str(), i);
}

CommitWatcher::~CommitWatcher() {
  rd_kafka_topic_partition_list_destroy(list_);
  rd_kafka_destroy(rk_);
}

int64_t CommitWatcher::Sum() {
  for (int i = 0; i < list_->cnt; ++i) list_->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
  rd_kafka_committed(rk_, list_, 5000);
  int64_t sum = 0;
  for (int i = 0; i < list_->cnt; ++i) sum += std::max<int64_t>(0, list_->elems[i].offset);
  return sum;
}

// Polls `cond` every `interval` until true (true) or `timeout` (false): finer
// than WaitFor's 50 ms, which would shift the measured windows.
bool PollFor(const std::function<bool()>& cond, absl::Duration timeout,
             absl::Duration interval) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!cond()) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(interval);
  }
  return true;
}

int64_t CallgrindTotal(const std::string& dump) {
  std::ifstream in(dump);
  std::string line;
  int64_t total = -1;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "totals: ")) (void)absl::SimpleAtoi(line.substr(8), &total);
  }
  return total;
}

// The `top` functions of a callgrind dump by their own instructions
// (callgrind_annotate), each line cut to 150 characters.
void PrintTopFunctions(const std::string& dump, const std::string& what, int top) {
  const std::string out = dump + ".annotate";
  auto a = integration::Process::Start({"/usr/bin/callgrind_annotate", "--threshold=100", dump}, {}, out);
  if (!a.ok() || (*a)->Wait(absl::Minutes(2)) != 0) return;
  std::printf("  %s, the functions that executed the most instructions themselves:\n", what.c_str());
  int shown = 0;
  bool in_list = false;
  for (absl::string_view line : absl::StrSplit((*a)->Output(), '\n')) {
    if (absl::StrContains(line, "file:function")) {
      in_list = true;
      continue;
    }
    // callgrind_annotate lists the threads' entry points (start_thread,
    // Worker::Run, ...) with their inclusive cost: no leaf owns half.
    size_t open = line.find(" ("), pct = line.find("%)");
    double share = 0;
    if (!in_list || open == absl::string_view::npos || pct == absl::string_view::npos ||
        !absl::SimpleAtod(absl::StripAsciiWhitespace(line.substr(open + 2, pct - open - 2)),
                          &share) ||
        share >= 50) {
      continue;
    }
    std::printf("    %s\n", std::string(line.substr(0, 150)).c_str());
    if (++shown == top) break;
  }
}


}  // namespace sluice::bench
