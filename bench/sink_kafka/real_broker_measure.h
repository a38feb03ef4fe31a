// Measuring helpers of real_broker_bench.cc and sink_kafka_bench.cc: the records, the producer, a
// committed-offsets reader, a process's CPU time and memory from /proc, and
// callgrind's figures.
#ifndef SLUICE_BENCH_SINK_KAFKA_REAL_BROKER_MEASURE_H_
#define SLUICE_BENCH_SINK_KAFKA_REAL_BROKER_MEASURE_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include "absl/time/time.h"
#include "integration/process.h"
#include "librdkafka/rdkafka.h"

namespace sluice::bench {

// /proc readers shared with the tests (integration/process.h).
using ::sluice::integration::CpuTime;
using ::sluice::integration::StatusKb;

// Sample record `i` (sink/sample) padded to exactly 100 bytes with a tag.
std::string Record100(uint64_t i, int64_t now_ms);

// Produces Record100 [0, n) keyed "ORD-<i>" to `topic` and waits for their
// delivery; prints the rate.
void Produce(const std::string& bootstrap, const std::string& topic, int n);

// The committed offsets of one group over `partitions` partitions of `topic`,
// read with one long-lived handle.
class CommitWatcher {
 public:
  CommitWatcher(const std::string& bootstrap, const std::string& group, const std::string& topic,
                int partitions);
  ~CommitWatcher();
  CommitWatcher(const CommitWatcher&) = delete;
  CommitWatcher& operator=(const CommitWatcher&) = delete;
  // Sum of the committed offsets (none counts 0); one OffsetFetch, 5 s at most.
  int64_t Sum();

 private:
  rd_kafka_t* rk_;
  rd_kafka_topic_partition_list_t* list_;
};

// Polls `cond` every `interval` until true (true) or `timeout` (false).
bool PollFor(const std::function<bool()>& cond, absl::Duration timeout,
             absl::Duration interval = absl::Milliseconds(5));

// The "totals:" line of a callgrind dump file: the instructions it counted
// (all threads); -1 when absent.
int64_t CallgrindTotal(const std::string& dump);

// Prints the `top` functions of a callgrind dump by the instructions they
// executed themselves (callgrind_annotate), under a line naming `what`.
void PrintTopFunctions(const std::string& dump, const std::string& what, int top);

}  // namespace sluice::bench

#endif  // SLUICE_BENCH_SINK_KAFKA_REAL_BROKER_MEASURE_H_
