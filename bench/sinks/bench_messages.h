// Sample records for the sink benchmarks: ~100-byte TestMessage protobufs,
// decoded, as the worker hands them to a sink.
#ifndef SLUICE_BENCH_SINKS_BENCH_MESSAGES_H_
#define SLUICE_BENCH_SINKS_BENCH_MESSAGES_H_

#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"

#include "sink/message.h"
#include "sink/sinks/testdata/test_message.pb.h"

namespace sluice::bench {

// Record number `i` of topic "bench": order number, amount, status, nested
// address, event timestamp, two tags, a price. Serialized size ~100 bytes.
inline sink::Message BenchMessage(int64_t i) {
  auto pb = std::make_shared<sink::testing::TestMessage>();
  pb->set_order_number("order-" + std::to_string(i));
  pb->set_amount(1000 + i % 977);
  pb->set_status(i % 2 ? sink::testing::ACTIVE : sink::testing::INACTIVE);
  pb->mutable_address()->set_city("Bengaluru");
  pb->mutable_address()->set_zip(560001);
  pb->mutable_event_timestamp()->set_seconds(1714557600 + i / 1000);
  pb->mutable_event_timestamp()->set_nanos(static_cast<int32_t>(i % 1000) * 1000000);
  pb->add_tags("express");
  pb->add_tags("prepaid");
  pb->set_price(199.99);
  pb->set_paid(true);
  pb->set_payload("0123456789abcdef0123456789");
  sink::Message m;
  m.topic = "bench";
  m.partition = static_cast<int32_t>(i % 4);
  m.offset = i;
  m.timestamp_ms = 1714557600000 + i;
  m.value = pb->SerializeAsString();
  m.decoded = std::move(pb);
  return m;
}

// `n` records as batches of `batch` messages.
inline std::vector<std::vector<sink::Message>> BenchBatches(int64_t n, int batch) {
  std::vector<std::vector<sink::Message>> out;
  for (int64_t i = 0; i < n; i += batch) {
    std::vector<sink::Message> b;
    for (int64_t j = i; j < std::min(n, i + batch); ++j) b.push_back(BenchMessage(j));
    out.push_back(std::move(b));
  }
  return out;
}

// What pushing batches through a sink took.
struct PushResult {
  int64_t records = 0;
  int64_t failed = 0;              // failed messages (Prepare and Execute)
  double seconds = 0;              // wall time of the whole push
  double prepare_seconds = 0;      // wall time spent in Prepare
  double cpu_seconds = 0;          // this process's CPU time (a fake runs elsewhere)
  double rate() const { return seconds > 0 ? records / seconds : 0; }
  double prepare_share() const { return seconds > 0 ? prepare_seconds / seconds : 0; }
};

// Pushes every batch through `sink` as one worker does (Prepare, Execute).
inline PushResult PushBatches(sink::TwoStageSink& sink,
                              const std::vector<std::vector<sink::Message>>& batches) {
  PushResult r;
  absl::Duration prepare;
  std::clock_t cpu0 = std::clock();
  absl::Time t0 = absl::Now();
  for (const auto& b : batches) {
    absl::Time p0 = absl::Now();
    r.failed += static_cast<int64_t>(sink.Prepare(b).size());
    prepare += absl::Now() - p0;
    r.failed += static_cast<int64_t>(sink.Execute().size());
    r.records += static_cast<int64_t>(b.size());
  }
  r.seconds = absl::ToDoubleSeconds(absl::Now() - t0);
  r.prepare_seconds = absl::ToDoubleSeconds(prepare);
  r.cpu_seconds = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  return r;
}

}  // namespace sluice::bench

#endif  // SLUICE_BENCH_SINKS_BENCH_MESSAGES_H_
