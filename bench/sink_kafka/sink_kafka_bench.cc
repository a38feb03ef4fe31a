// Kafka-side benchmark of sluice-sink on the dev broker (issue 7, "Tests and
// measurements"): N ~100-byte sample protobuf records over P partitions.
//   1. raw librdkafka batch consumer that does nothing (the baseline);
//   2. sluice-sink: decode + JEXL filter (keep all) + log sink to /dev/null;
//   3. the same with a filter keeping 10%;
//   4. the same with 2 workers;
//   5. JSON input: the same records printed as JSON (proto field names),
//      parsed in the decode stage + FILTER_ENGINE=JSON (keeps all) + log sink,
//      against a raw consume of the JSON records (JSON rounds are 25k: the
//      records are ~2.7x larger);
//   6. SINK_TYPE=HTTP (POST, one JSON array per batch) and SINK_TYPE=HTTPV2
//      with SINK_HTTPV2_REQUEST_MODE=BATCH (POST; RAW body, depot's default,
//      and MESSAGE body, the record as JSON like the http sink), no filter,
//      against an in-process HTTP/1.1 server that answers 200 at once;
// with records/s and the peak RSS (VmHWM) of sluice-sink. Prints figures; no
// assertions. Run: bazel run -c opt //bench/sink_kafka:sink_kafka_bench [-- N P]
// SINK_BENCH_CASES="0,4,5" picks rows by index (0-2 the JEXL rows, 3 JSON,
// 4 http, 5 httpv2 RAW, 6 httpv2 MESSAGE); SINK_BENCH_ENV adds sink variables;
// SINK_BENCH_BINARY runs another sluice-sink build (e.g. main's) in its place.
//
// librdkafka's mock broker keeps at most ~5 MB per partition (older batches
// are dropped), so the N records are produced in rounds of 100k: each round
// is produced, then consumed; only consumption time is counted (from the end
// of a round's production to the last record consumed / committed). The
// consumers are paused while a round is produced (rd_kafka_pause_partitions
// for the baseline, SinkControl.Pause for sluice-sink), so both start every
// round from the same point: fetch, (decode, filter, sink, commit) 100k.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/json_util.h"
#include <grpcpp/grpcpp.h>

#include "bench/sink_kafka/bench_http_server.h"
#include "bench/sink_kafka/real_broker_measure.h"
#include "integration/sink_harness.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "librdkafka/rdkafka.h"
#include "sink/sample/sample_gen.h"

namespace si = sluice::integration;

namespace {

using sluice::bench::CommitWatcher;
using sluice::bench::CpuTime;
using sluice::bench::Record100;
using sluice::bench::StatusKb;

// The same record as JSON with proto field names (~2.7x the bytes).
std::string RecordJson(uint64_t i, int64_t now_ms) {
  sluice::sample::SampleLogMessage m;
  m.ParseFromString(Record100(i, now_ms));
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(m, &out, opts);
  return out;
}

// One producer for all rounds.
class Producer {
 public:
  explicit Producer(const std::string& bootstrap) {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
    rd_kafka_conf_set(conf, "linger.ms", "20", err, sizeof(err));
    rd_kafka_conf_set(conf, "batch.num.messages", "2000", err, sizeof(err));
    rd_kafka_conf_set(conf, "queue.buffering.max.messages", "500000", err, sizeof(err));
    rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  }
  ~Producer() { rd_kafka_destroy(rk_); }
  // Produces records [start, start+n) (protobuf, or JSON when `json`) and
  // waits for delivery.
  void Produce(const std::string& topic, int start, int n, bool json = false) {
    int64_t now = absl::ToUnixMillis(absl::Now());
    for (int i = start; i < start + n; ++i) {
      std::string v = json ? RecordJson(i, now) : Record100(i, now);
      bytes_[json] += v.size();
      std::string k = absl::StrCat("ORD-", i);
      while (rd_kafka_producev(rk_, RD_KAFKA_V_TOPIC(topic.c_str()),
                               RD_KAFKA_V_KEY(k.data(), k.size()),
                               RD_KAFKA_V_VALUE(v.data(), v.size()),
                               RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                               RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk_, 5);
      }
    }
    rd_kafka_flush(rk_, 120000);
    count_[json] += n;
  }
  // Mean value size of the protobuf (or JSON) records produced so far.
  double MeanSize(bool json = false) const {
    return count_[json] ? static_cast<double>(bytes_[json]) / count_[json] : 0;
  }

 private:
  rd_kafka_t* rk_;
  size_t bytes_[2] = {0, 0};  // [0] protobuf, [1] JSON
  int64_t count_[2] = {0, 0};
};


constexpr int kRound = 100000;

// Rounds of kRound records; JSON records are ~2.7x larger, so their rounds
// are smaller to keep each partition under the mock broker's ~5 MB (older
// batches would be dropped unread).
int RoundSize(bool json) { return json ? kRound / 4 : kRound; }

// Raw baseline: a batch consumer (rd_kafka_consume_batch_queue) that only
// counts, over protobuf or JSON records. Returns consumption seconds over all
// rounds.
double RawConsume(const std::string& bootstrap, const std::string& topic, int n, Producer* producer,
                  int* produced, bool json = false) {
  const int round_size = RoundSize(json);
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "group.id", json ? "bench-raw-json" : "bench-raw", err, sizeof(err));
  rd_kafka_conf_set(conf, "auto.offset.reset", "latest", err, sizeof(err));
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof(err));
  rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  rd_kafka_poll_set_consumer(c);
  auto* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(c, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  rd_kafka_queue_t* q = rd_kafka_queue_get_consumer(c);
  // Wait for the assignment (the batch call does not serve rebalances).
  for (int i = 0; i < 200; ++i) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c, 100);
    if (m) rd_kafka_message_destroy(m);
    rd_kafka_topic_partition_list_t* a = nullptr;
    rd_kafka_assignment(c, &a);
    int cnt = a ? a->cnt : 0;
    if (a) rd_kafka_topic_partition_list_destroy(a);
    if (cnt > 0) break;
  }
  absl::SleepFor(absl::Milliseconds(500));  // fetchers start at the end offset
  std::vector<rd_kafka_message_t*> buf(500);
  absl::Duration total;
  int count = 0;
  for (int round = 0; round * round_size < n; ++round) {
    int want = std::min(round_size, n - round * round_size);
    rd_kafka_topic_partition_list_t* assigned = nullptr;
    rd_kafka_assignment(c, &assigned);
    rd_kafka_pause_partitions(c, assigned);
    producer->Produce(topic, *produced, want, json);
    *produced += want;
    absl::Time t0 = absl::Now();
    rd_kafka_resume_partitions(c, assigned);
    rd_kafka_topic_partition_list_destroy(assigned);
    int target = count + want;
    absl::Time give_up = t0 + absl::Minutes(1);
    while (count < target && absl::Now() < give_up) {
      ssize_t got = rd_kafka_consume_batch_queue(q, 100, buf.data(), buf.size());
      if (got <= 0) {
        rd_kafka_message_t* m = rd_kafka_consumer_poll(c, 10);
        if (m == nullptr) continue;
        buf[0] = m;
        got = 1;
      }
      for (ssize_t i = 0; i < got; ++i) {
        if (!buf[i]->err) ++count;
        rd_kafka_message_destroy(buf[i]);
      }
    }
    total += absl::Now() - t0;
    if (count < target) {
      std::printf("  raw consumer stalled at %d of %d\n", count, target);
      break;
    }
  }
  rd_kafka_queue_destroy(q);
  rd_kafka_consumer_close(c);
  rd_kafka_destroy(c);
  return absl::ToDoubleSeconds(total);
}

int64_t PeakRssKb(pid_t pid) { return StatusKb(pid, "VmHWM"); }

struct SinkRun {
  double seconds = 0;
  int64_t records = 0;
  int64_t peak_rss_kb = 0;
  // Highest RssAnon (heap, librdkafka's queues, thread stacks) and RssFile
  // (mapped shared libraries and the binary) seen while records flowed,
  // sampled every 10 ms: what VmHWM is made of.
  int64_t max_anon_kb = 0;
  int64_t max_file_kb = 0;
  absl::Duration cpu;  // sluice-sink's CPU time while the rounds were consumed
  int64_t idle_anon_kb = 0;  // RssAnon once assigned, before the first round
  int64_t idle_file_kb = 0;  // RssFile then
  std::vector<std::string> breakdown;  // "worker N: time by stage: ..." per worker
};

// One benchmark row: the sink's filter (and input) variables.
struct Case {
  const char* name;
  std::map<std::string, std::string> vars;
  int threads;
  bool json = false;  // produce JSON records; the sink reads INPUT_SCHEMA_DATA_TYPE=json
};

// The bench's HTTP receiver; "{HTTP}" in a case's variable is its base URL.
sluice::bench::BenchHttpServer* http_server = nullptr;

// The http sink posting each batch as one JSON array (no filter).
std::map<std::string, std::string> HttpBatch() {
  return {{"SINK_TYPE", "HTTP"},
          {"SINK_HTTP_SERVICE_URL", "{HTTP}/http"},
          {"SINK_HTTP_REQUEST_METHOD", "POST"}};
}

// The httpv2 sink in BATCH mode with `body_mode` (no filter).
std::map<std::string, std::string> Httpv2Batch(const char* body_mode) {
  return {{"SINK_TYPE", "HTTPV2"},
          {"SINK_HTTPV2_SERVICE_URL", "{HTTP}/httpv2"},
          {"SINK_HTTPV2_REQUEST_MODE", "BATCH"},
          {"SINK_HTTPV2_REQUEST_METHOD", "POST"},
          {"SINK_HTTPV2_REQUEST_BODY_MODE", body_mode}};
}

std::map<std::string, std::string> Jexl(const char* expression) {
  return {{"FILTER_ENGINE", "JEXL"},
          {"FILTER_DATA_SOURCE", "MESSAGE"},
          {"FILTER_SCHEMA_PROTO_CLASS", "sluice.sample.SampleLogMessage"},
          {"FILTER_JEXL_EXPRESSION", expression}};
}

SinkRun RunSink(const std::string& dir, const std::string& bootstrap, const std::string& topic,
                int partitions, int n, const std::string& group, const Case& c,
                Producer* producer, int* produced) {
  const int threads = c.threads;
  auto env = si::SinkEnv(bootstrap, topic, group, si::SampleDescriptorUrl());
  env["SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET"] = "latest";
  if (c.json) {
    env.erase("INPUT_SCHEMA_PROTO_CLASS");
    env.erase("SCHEMA_REGISTRY_STENCIL_URLS");
    env["INPUT_SCHEMA_DATA_TYPE"] = "json";
  }
  for (const auto& [k, v] : c.vars) {
    env[k] = absl::StrReplaceAll(v, {{"{HTTP}", http_server->Url("")}});
  }
  // SINK_BENCH_ENV="NAME=value;NAME=value": more sluice-sink variables, to
  // try settings without rebuilding.
  if (const char* extra = std::getenv("SINK_BENCH_ENV")) {
    for (absl::string_view kv : absl::StrSplit(extra, ';', absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
      env[p.first] = p.second;
    }
  }
  env["APPLICATION_THREAD_COUNT"] = std::to_string(threads);
  int port = si::FreePort();
  env["SINK_CONTROL_PORT"] = std::to_string(port);
  si::Process::Options options;
  options.env = env;
  options.clean_env = true;
  options.stdout_path = "/dev/null";  // the log sink's records
  options.stderr_path = dir + "/" + group + ".err";
  // SINK_BENCH_BINARY: another sluice-sink build (e.g. main's), to compare.
  const char* binary = std::getenv("SINK_BENCH_BINARY");
  auto started = si::Process::Start({binary != nullptr ? binary : "sink/sluice-sink"},
                                    std::move(options));
  if (!started.ok()) {
    std::printf("cannot start sluice-sink: %s\n", std::string(started.status().message()).c_str());
    std::exit(1);
  }
  auto p = std::move(*started);
  SinkRun r;
  // Wait until every worker holds partitions.
  si::WaitFor([&] { return si::CountLines(p->Stderr(), "assigned [") >= threads; },
              absl::Seconds(30));
  absl::SleepFor(absl::Seconds(threads > 1 ? 4 : 1));
  CommitWatcher watcher(bootstrap, group, topic, partitions);
  auto stub = sluice::sink::v1beta1::SinkControl::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
  r.idle_anon_kb = StatusKb(p->pid(), "RssAnon");
  r.idle_file_kb = StatusKb(p->pid(), "RssFile");
  const int64_t base = watcher.Sum();  // committed offsets before the first round (0 or earlier rounds)
  int64_t done_before = -1;
  absl::Duration total;
  const int round_size = RoundSize(c.json);
  for (int round = 0; round * round_size < n; ++round) {
    int want = std::min(round_size, n - round * round_size);
    {
      // The control API listens on 127.0.0.1 by default and needs no token
      // there (SINK_CONTROL_HOST); a refusal would make the figures wrong.
      grpc::ClientContext ctx;
      sluice::sink::v1beta1::PauseResponse resp;
      grpc::Status s = stub->Pause(&ctx, {}, &resp);
      if (!s.ok()) {
        std::printf("SinkControl/Pause failed: %s\n", s.error_message().c_str());
        std::exit(1);
      }
      absl::SleepFor(absl::Milliseconds(300));  // workers apply it within a poll slice
    }
    producer->Produce(topic, *produced, want, c.json);
    *produced += want;
    absl::Time t0 = absl::Now();
    const absl::Duration cpu0 = CpuTime(p->pid());
    {
      grpc::ClientContext ctx;
      sluice::sink::v1beta1::ResumeResponse resp;
      grpc::Status s = stub->Resume(&ctx, {}, &resp);
      if (!s.ok()) {
        std::printf("SinkControl/Resume failed: %s\n", s.error_message().c_str());
        std::exit(1);
      }
    }
    // Committed offsets count from the partitions' start; the group began at
    // the end offset of earlier benchmark phases.
    int64_t target = *produced;
    absl::Time give_up = t0 + absl::Minutes(1);
    int64_t sum = 0;
    // Every 10 ms (at most 10 ms late per round, ~1-2 % of a 100k round):
    // each look is an OffsetFetch that the single-threaded mock broker
    // serves between the sink's fetches, a load the raw baseline does not
    // carry (every 2 ms it cost the sink rows a few percent).
    while ((sum = watcher.Sum()) < target && absl::Now() < give_up) {
      r.max_anon_kb = std::max(r.max_anon_kb, StatusKb(p->pid(), "RssAnon"));
      r.max_file_kb = std::max(r.max_file_kb, StatusKb(p->pid(), "RssFile"));
      absl::SleepFor(absl::Milliseconds(10));
    }
    total += absl::Now() - t0;
    r.cpu += CpuTime(p->pid()) - cpu0;
    if (sum < target) {
      std::printf("  sluice-sink stalled at committed %lld of %lld\n", static_cast<long long>(sum),
                  static_cast<long long>(target));
      break;
    }
    r.records += want;
    (void)done_before;
  }
  (void)base;
  r.seconds = absl::ToDoubleSeconds(total);
  r.peak_rss_kb = PeakRssKb(p->pid());
  p->Signal(SIGTERM);
  int rc = p->Wait(absl::Seconds(30));
  if (rc != 0) std::printf("sluice-sink exit code %d: %s\n", rc, p->Stderr().c_str());
  // Each worker logs where its time went when it stops.
  const std::string err = p->Stderr();
  for (size_t pos = err.find("time by stage"); pos != std::string::npos;
       pos = err.find("time by stage", pos + 1)) {
    size_t begin = err.rfind("worker", pos);
    size_t end = err.find('\n', pos);
    r.breakdown.push_back(err.substr(begin, end - begin));
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  int n = argc > 1 ? std::atoi(argv[1]) : 1000000;
  int partitions = argc > 2 ? std::atoi(argv[2]) : 4;
  std::string dir = si::TempDir("sluice_sink_bench_" + std::to_string(getpid()));
  si::DevBroker broker = si::DevBroker::Start({absl::StrCat("bench:", partitions)}, dir);
  if (broker.bootstrap.empty()) {
    std::fprintf(stderr, "sluice-devbroker did not start (run with bazel run, from the runfiles)\n");
    return 1;
  }
  std::printf("dev broker %s, %d records over %d partitions, rounds of %d\n",
              broker.bootstrap.c_str(), n, partitions, kRound);
  Producer producer(broker.bootstrap);
  int produced = 0;
  double raw_s = RawConsume(broker.bootstrap, "bench", n, &producer, &produced);
  double raw_rate = n / raw_s;
  std::printf("mean record value size %.1f bytes\n", producer.MeanSize());
  std::printf("raw librdkafka batch consume: %d records in %.2f s, %.0f records/s (baseline)\n", n,
              raw_s, raw_rate);

  const Case cases[] = {
      {"decode + JEXL (keeps all) + log sink -> /dev/null, 1 worker",
       Jexl("sampleLogMessage.getAmountPaidCents() >= 0"), 1},
      {"decode + JEXL (keeps 10%) + log sink -> /dev/null, 1 worker",
       Jexl("sampleLogMessage.getDriverId() == \"driver-3\""), 1},
      {"decode + JEXL (keeps all) + log sink -> /dev/null, 2 workers",
       Jexl("sampleLogMessage.getAmountPaidCents() >= 0"), 2},
      {"JSON input: decode + JSON filter (keeps all) + log sink -> /dev/null, 1 worker",
       {{"FILTER_ENGINE", "JSON"},
        {"FILTER_DATA_SOURCE", "MESSAGE"},
        {"FILTER_JSON_SCHEMA",
         R"({"required":["driver_id"],"properties":{"driver_id":{"type":"string","pattern":"^driver-"}}})"}},
       1, /*json=*/true},
      {"HTTP sink (SINK_TYPE=HTTP, POST, a JSON array per batch) -> local HTTP 200, 1 worker",
       HttpBatch(), 1},
      {"HTTPV2 sink (SINK_HTTPV2_REQUEST_MODE=BATCH, RAW body) -> local HTTP 200, 1 worker",
       Httpv2Batch("RAW"), 1},
      {"HTTPV2 sink (SINK_HTTPV2_REQUEST_MODE=BATCH, MESSAGE body) -> local HTTP 200, 1 worker",
       Httpv2Batch("MESSAGE"), 1},
  };
  auto server = sluice::bench::BenchHttpServer::Start();
  if (server == nullptr) {
    std::fprintf(stderr, "cannot start the bench HTTP server\n");
    return 1;
  }
  http_server = server.get();
  double raw_json_rate = 0;
  int idx = 0;
  // SINK_BENCH_CASES="0,2": only those rows (by index).
  const char* only = std::getenv("SINK_BENCH_CASES");
  for (const Case& c : cases) {
    if (only != nullptr &&
        !absl::StrContains(absl::StrCat(",", only, ","), absl::StrCat(",", idx, ","))) {
      ++idx;
      continue;
    }
    if (c.json && raw_json_rate == 0) {
      double s = RawConsume(broker.bootstrap, "bench", n, &producer, &produced, /*json=*/true);
      raw_json_rate = n / s;
      std::printf("raw librdkafka batch consume of the same records as JSON (%.1f bytes mean): "
                  "%d records in %.2f s, %.0f records/s (JSON baseline)\n",
                  producer.MeanSize(/*json=*/true), n, s, raw_json_rate);
    }
    const double baseline = c.json ? raw_json_rate : raw_rate;
    const int64_t requests_before = server->requests();
    const int64_t bytes_before = server->body_bytes();
    SinkRun r = RunSink(dir, broker.bootstrap, "bench", partitions, n,
                        absl::StrCat("bench-sink-", idx++), c, &producer, &produced);
    double rate = r.seconds > 0 ? r.records / r.seconds : 0;
    std::printf(
        "sluice-sink %s: %lld records in %.2f s, %.0f records/s (%.2fx %sbaseline), peak RSS %.1f "
        "MiB (highest anon %.1f MiB, file-backed %.1f MiB)\n",
        c.name, static_cast<long long>(r.records), r.seconds, rate, rate / baseline,
        c.json ? "JSON " : "", r.peak_rss_kb / 1024.0, r.max_anon_kb / 1024.0,
        r.max_file_kb / 1024.0);
    std::printf("    sluice-sink CPU %.2f s while consuming, %.2f us a record; RSS before the "
                "first round %.1f MiB anon + %.1f MiB file-backed\n",
                absl::ToDoubleSeconds(r.cpu),
                r.records > 0 ? absl::ToDoubleMicroseconds(r.cpu) / r.records : 0.0,
                r.idle_anon_kb / 1024.0, r.idle_file_kb / 1024.0);
    if (int64_t requests = server->requests() - requests_before; requests > 0) {
      std::printf("    %lld HTTP requests, %.0f records and %.0f body bytes per request\n",
                  static_cast<long long>(requests), static_cast<double>(r.records) / requests,
                  static_cast<double>(server->body_bytes() - bytes_before) / requests);
    }
    for (const std::string& line : r.breakdown) std::printf("    %s\n", line.c_str());
  }
  broker.process->Signal(SIGTERM);
  broker.process->Wait(absl::Seconds(10));
  return 0;
}
