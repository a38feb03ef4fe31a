// sluice-sample-producer: produces sample records (sink/sample/sample.proto)
// to a Kafka topic, keyed by order number, for `make run`, tests and the
// benchmark.
//
// Usage: sluice-sample-producer --brokers B --topic T [--count N] [--rate R]
//          [--start I] [--v2] [--partitions P]
//   --count N       records to produce (0: until SIGTERM; default 0)
//   --rate R        records per second (0: as fast as possible; default 0)
//   --start I       number of the first record (default 0)
//   --v2            add field 10 vehicle_type (testdata/sample_v2.proto)
//   --partitions P  first create the topic with P partitions (replication
//                   factor 1) unless it exists, waiting up to 120 s for the
//                   broker to answer and for each partition to have a
//                   leader, then print "topic T ready (P partitions)" on
//                   stderr. A real broker's auto-created topics get
//                   num.partitions (1 in scripts/kafka-broker.sh).
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "librdkafka/rdkafka.h"
#include "sink/sample/sample_gen.h"
#include "sink/sample/topics.h"

namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

// Delivery reports: records the broker did not take, and the first reason.
std::atomic<long long> g_undelivered{0};
std::string g_first_failure;  // written by the delivery callback, which rd_kafka_poll runs here

void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
  if (g_undelivered.fetch_add(1) == 0) g_first_failure = rd_kafka_err2str(m->err);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string brokers, topic;
  long long count = 0, rate = 0, start = 0, partitions = 0;
  bool v2 = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--brokers") brokers = next();
    else if (a == "--topic") topic = next();
    else if (a == "--count") count = std::atoll(next().c_str());
    else if (a == "--rate") rate = std::atoll(next().c_str());
    else if (a == "--start") start = std::atoll(next().c_str());
    else if (a == "--v2") v2 = true;
    else if (a == "--partitions") partitions = std::atoll(next().c_str());
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (brokers.empty() || topic.empty()) {
    std::fprintf(stderr,
                 "usage: %s --brokers B --topic T [--count N] [--rate R] [--start I] [--v2] "
                 "[--partitions P]\n",
                 argv[0]);
    return 2;
  }
  signal(SIGTERM, OnSignal);
  signal(SIGINT, OnSignal);

  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", brokers.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "linger.ms", "20", err, sizeof(err));
  rd_kafka_conf_set(conf, "batch.num.messages", "10000", err, sizeof(err));
  rd_kafka_conf_set(conf, "queue.buffering.max.messages", "200000", err, sizeof(err));
  rd_kafka_conf_set_dr_msg_cb(conf, OnDelivery);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  if (rk == nullptr) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", err);
    return 1;
  }
  if (partitions > 0) {
    // Waits up to 120 s for a broker that is still starting.
    const std::string why = sluice::sample::EnsureTopics(
        rk, {{topic, static_cast<int>(partitions)}}, std::chrono::seconds(120), &g_stop);
    if (!why.empty()) {
      std::fprintf(stderr, "sluice-sample-producer: topic %s not ready after 120 s: %s\n",
                   topic.c_str(), why.c_str());
      rd_kafka_destroy(rk);
      return 1;
    }
    std::fprintf(stderr, "sluice-sample-producer: topic %s ready (%lld partitions)\n",
                 topic.c_str(), static_cast<long long>(partitions));
  }
  auto t0 = std::chrono::steady_clock::now();
  long long produced = 0;
  for (long long n = start; !g_stop.load() && (count == 0 || n < start + count); ++n) {
    std::string value = sluice::sample::SampleBytes(static_cast<uint64_t>(n), NowMs(), v2);
    std::string key = "ORD-" + std::to_string(n);
    while (true) {
      rd_kafka_resp_err_t e = rd_kafka_producev(
          rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_KEY(key.data(), key.size()),
          RD_KAFKA_V_VALUE(value.data(), value.size()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk, 10);
        continue;
      }
      if (e) {
        std::fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e));
        rd_kafka_destroy(rk);
        return 1;
      }
      break;
    }
    ++produced;
    rd_kafka_poll(rk, 0);
    if (rate > 0) {
      auto due = t0 + std::chrono::microseconds(produced * 1000000 / rate);
      std::this_thread::sleep_until(due);
    }
  }
  if (rd_kafka_flush(rk, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::fprintf(stderr, "flush timed out\n");
    rd_kafka_destroy(rk);
    return 1;
  }
  rd_kafka_destroy(rk);
  if (const long long lost = g_undelivered.load(); lost > 0) {
    // Never report as produced what the broker did not take.
    std::fprintf(stderr,
                 "sluice-sample-producer: %lld of %lld record(s) to %s were not delivered: %s\n",
                 lost, produced, topic.c_str(), g_first_failure.c_str());
    return 1;
  }
  std::fprintf(stderr, "sluice-sample-producer: produced %lld record(s) to %s\n", produced,
               topic.c_str());
  return 0;
}
