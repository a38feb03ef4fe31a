// sluice-sink against its baselines on a real Apache Kafka broker (issue 40,
// item 6), in one run on one broker (integration/kafka_broker.h): N ~100-byte
// sample protobuf records over P partitions are produced once, then each row
// reads all of them from the beginning with a fresh consumer group:
//   (a) raw librdkafka: this binary as a child (--raw-consumer): poll, count,
//       commit each batch of up to 500 asynchronously (as sluice-sink does);
//   (b) the Java KafkaConsumer (integration/java/KafkaConsumerMember.java,
//       kafka-clients, the client Firehose runs on): poll, count, commitAsync
//       each batch (max.poll.records=500, CooperativeStickyAssignor);
//   (c) sluice-sink, 1 worker: decode + JEXL filter keeping all + log sink
//       to /dev/null;
//   (d) the same with 2 workers (APPLICATION_THREAD_COUNT=2).
// Every row is a child process, measured from outside in the same way, from
// its first assignment (sluice-sink: from SinkControl.Resume, once every
// worker holds its partitions; it is paused before it joins):
//   - records/s until every record is processed (the child's "consumed all"
//     line; sluice-sink's GetStatus counters), and the ratio to (a);
//   - records/s until the group's committed offsets reach N, and the ratio.
//     On Kafka 4.1 each OffsetCommit costs the broker 5-8 ms here
//     (group.coordinator.append.linger.ms=5; with 0 the raw row's committed
//     rate went from 52k to 86k records/s) and one connection's requests are
//     served in order, so a commit per 500 records caps a member near
//     55-65k committed records/s on this machine, whichever client: the two
//     rates differ for that reason;
//   - CPU time (user + sys, all threads, /proc/<pid>/stat) per record, to
//     the last commit;
//   - peak RSS (VmHWM) at the end.
//
// Then instructions per record, which machine load does not move: (a) and (c)
// again under `valgrind --tool=callgrind` on a second topic of M records
// (default 50k). The raw consumer zeroes callgrind's counters when assigned
// and dumps them after its last commit (client requests); sluice-sink is
// paused until it holds its partitions, zeroed (callgrind_control -z),
// resumed, and dumped (callgrind_control -d) once M records are committed.
//
// Run (optimised; needs the Kafka jars of scripts/install-kafka.sh, a JDK 17
// and valgrind):
//   bazel run -c opt --jobs=2 //bench/sink_kafka:real_broker_bench [-- N [P [M]]]
// Defaults N=1000000, P=4, M=50000 (M=0 skips callgrind).
//   SINK_BENCH_ROWS="a,b,c,d"  rows to run (default all)
//   SINK_BENCH_JAVA_OPTS       JVM flags for (b), space-separated (default none)
//   SINK_BENCH_BINARY          another sluice-sink build in (c) and (d)
//   SINK_BENCH_RAW_PROPS       more librdkafka properties for (a), "k=v;k=v"
//   SINK_BENCH_BROKER_PROPS    broker settings, "k=v;k=v" (e.g.
//                              group.coordinator.append.linger.ms=0)
//   SINK_BENCH_KEEP=1          keep the temporary directory (logs, data,
//                              callgrind dumps); removed otherwise
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bench/sink_kafka/real_broker_measure.h"
#include "integration/java_member.h"
#include "integration/kafka_broker.h"
#include "integration/sink_harness.h"
#include "librdkafka/rdkafka.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "sink/sample/sample_gen.h"

namespace si = sluice::integration;

namespace {

using sluice::bench::CommitWatcher;
using sluice::bench::CpuTime;
using sluice::bench::PollFor;
using sluice::bench::StatusKb;

constexpr int kBatch = 500;  // max.poll.records of every row

// --raw-consumer BOOTSTRAP TOPIC GROUP N: row (a). Polls like sluice-sink's
// source (one rd_kafka_consumer_poll, then what is already fetched, up to
// kBatch), counts, commits each batch's offsets asynchronously; after N
// records commits synchronously, prints its own figures and waits for
// SIGTERM to leave. Prints "raw: assigned" once it holds partitions. Under callgrind it zeroes the counters when assigned and
// dumps them after the last commit.
int RawConsumerMain(const std::string& bootstrap, const std::string& topic,
                    const std::string& group, int64_t n) {
  // SIGTERM is taken by sigwait (blocked before librdkafka's threads start).
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);
  char err[256];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", err, sizeof(err));
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof(err));
  rd_kafka_conf_set(conf, "session.timeout.ms", "10000", err, sizeof(err));
  // SINK_BENCH_RAW_PROPS="name=value;...": more librdkafka properties, to try.
  if (const char* extra = std::getenv("SINK_BENCH_RAW_PROPS")) {
    for (absl::string_view kv : absl::StrSplit(extra, ';', absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
      if (rd_kafka_conf_set(conf, p.first.c_str(), p.second.c_str(), err, sizeof(err)) !=
          RD_KAFKA_CONF_OK) {
        std::fprintf(stderr, "raw: %s\n", err);
        return 2;
      }
    }
  }
  rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  rd_kafka_poll_set_consumer(c);
  auto* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(c, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  rd_kafka_queue_t* q = rd_kafka_queue_get_consumer(c);
  std::vector<rd_kafka_message_t*> buf(kBatch);
  std::map<int32_t, int64_t> next;  // partition -> offset after the last counted record
  int64_t count = 0, batches = 0;
  absl::Time consumed_at;
  bool assigned = false;
  absl::Time assigned_at;
  absl::Duration assigned_cpu;
  while (count < n) {
    rd_kafka_message_t* first = rd_kafka_consumer_poll(c, 100);
    if (!assigned) {
      rd_kafka_topic_partition_list_t* a = nullptr;
      rd_kafka_assignment(c, &a);
      if (a != nullptr && a->cnt > 0) {
        assigned = true;
        assigned_at = absl::Now();
        assigned_cpu = CpuTime(getpid());
        CALLGRIND_ZERO_STATS;
        std::printf("raw: assigned %d partitions\n", a->cnt);
        std::fflush(stdout);
      }
      if (a) rd_kafka_topic_partition_list_destroy(a);
    }
    if (first == nullptr) continue;
    buf[0] = first;
    ssize_t got = 1 + std::max<ssize_t>(0, rd_kafka_consume_batch_queue(q, 0, buf.data() + 1, kBatch - 1));
    next.clear();
    for (ssize_t i = 0; i < got; ++i) {
      if (!buf[i]->err) {
        ++count;
        next[buf[i]->partition] = buf[i]->offset + 1;
      }
      rd_kafka_message_destroy(buf[i]);
    }
    if (next.empty()) continue;
    ++batches;
    auto* offsets = rd_kafka_topic_partition_list_new(static_cast<int>(next.size()));
    for (const auto& [p, o] : next) rd_kafka_topic_partition_list_add(offsets, topic.c_str(), p)->offset = o;
    if (count >= n) {
      consumed_at = absl::Now();
      std::printf("raw: consumed all\n");
      std::fflush(stdout);
    }
    rd_kafka_commit(c, offsets, /*async=*/count < n);
    rd_kafka_topic_partition_list_destroy(offsets);
  }
  CALLGRIND_DUMP_STATS;
  const double s = absl::ToDoubleSeconds(absl::Now() - assigned_at);
  const double cpu = absl::ToDoubleSeconds(CpuTime(getpid()) - assigned_cpu);
  std::printf("raw: %lld records in %lld batches (commits) in %.3f s from the assignment to the "
              "last commit, %.0f records/s, CPU %.3f s, %.3f us a record\n",
              static_cast<long long>(count), static_cast<long long>(batches), s, count / s, cpu,
              cpu * 1e6 / count);
  std::printf("raw: the last (synchronous) commit returned %.3f s after the last record\n",
              absl::ToDoubleSeconds(absl::Now() - consumed_at));
  std::fflush(stdout);
  // Stay measurable (CPU, VmHWM) until the bench sends SIGTERM.
  int sig = 0;
  sigwait(&term, &sig);
  rd_kafka_queue_destroy(q);
  rd_kafka_consumer_close(c);
  rd_kafka_destroy(c);
  return 0;
}

// One row of the table.
struct Row {
  std::string name;
  bool ok = false;
  int64_t records = 0;
  double seconds = 0;            // to the last commit
  double processed_seconds = 0;  // to the last record processed
  absl::Duration cpu;
  int64_t peak_rss_kb = 0;
  std::vector<std::string> notes;  // printed under the row
};

// Measures `p` from now (its first assignment, or its resume) until it has
// processed every record (`processed`) and until `group` has committed
// `target`: wall times, CPU time (to the commit) and peak RSS. Looks at the
// commits every 10 ms, and at `processed` every `processed_every`.
void Measure(si::Process* p, CommitWatcher* watcher, int64_t target,
             const std::function<bool()>& processed, Row* row,
             absl::Duration processed_every = absl::Milliseconds(10)) {
  const int64_t start_sum = watcher->Sum();
  const absl::Time t0 = absl::Now();
  const absl::Duration cpu0 = CpuTime(p->pid());
  int64_t sum = start_sum;
  bool done = false;
  absl::Time next_look = t0;
  PollFor(
      [&] {
        if (!done && absl::Now() >= next_look && (next_look += processed_every, processed())) {
          done = true;
          row->processed_seconds = absl::ToDoubleSeconds(absl::Now() - t0);
        }
        return ((sum = watcher->Sum()) >= target && done) || !p->Running();
      },
      absl::Minutes(5), absl::Milliseconds(10));
  row->seconds = absl::ToDoubleSeconds(absl::Now() - t0);
  row->cpu = CpuTime(p->pid()) - cpu0;
  row->peak_rss_kb = StatusKb(p->pid(), "VmHWM");
  row->records = sum - start_sum;
  row->ok = sum >= target && done;
  if (!row->ok) row->notes.push_back(absl::StrCat("stalled at committed ", sum, " of ", target));
}

std::string SelfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, n) : "";
}

// Runs `argv` under callgrind when `callgrind_out` is set.
std::vector<std::string> MaybeCallgrind(std::vector<std::string> argv,
                                        const std::string& callgrind_out) {
  if (callgrind_out.empty()) return argv;
  std::vector<std::string> v = {"/usr/bin/valgrind", "--tool=callgrind", "--collect-atstart=yes",
                                "--callgrind-out-file=" + callgrind_out};
  v.insert(v.end(), argv.begin(), argv.end());
  return v;
}

si::Process::Options ChildOptions(const std::string& prefix, std::map<std::string, std::string> env) {
  si::Process::Options o;
  o.env = std::move(env);
  o.stdout_path = prefix + ".out";
  o.stderr_path = prefix + ".err";
  return o;
}

Row RunRaw(const std::string& dir, const std::string& bootstrap, const std::string& topic,
           int partitions, int64_t n, const std::string& group, const std::string& callgrind_out = "") {
  Row row{"(a) raw librdkafka: poll, count, async commit per batch"};
  auto p = *si::Process::Start(
      MaybeCallgrind({SelfExe(), "--raw-consumer", bootstrap, topic, group, absl::StrCat(n)},
                     callgrind_out),
      ChildOptions(dir + "/" + group, {}));
  CommitWatcher watcher(bootstrap, group, topic, partitions);
  if (!PollFor([&] { return absl::StrContains(p->Output(), "raw: assigned") || !p->Running(); },
               absl::Minutes(2))) {
    row.notes.push_back("never assigned");
    return row;
  }
  Measure(p.get(), &watcher, n, [&] { return absl::StrContains(p->Output(), "raw: consumed all"); },
          &row);
  p->Signal(SIGTERM);
  if (p->Wait(absl::Minutes(2)) != 0) row.notes.push_back("exit: " + p->Output() + p->Stderr());
  for (absl::string_view line : absl::StrSplit(p->Output(), '\n')) {
    if (absl::StartsWith(line, "raw: ") && !absl::StartsWith(line, "raw: assigned") &&
        !absl::StartsWith(line, "raw: consumed all")) {
      row.notes.push_back(absl::StrCat("self-reported: ", line.substr(5)));
    }
  }
  return row;
}

Row RunJava(const std::string& dir, const std::string& bootstrap, const std::string& topic,
            int partitions, int64_t n, const std::string& group) {
  Row row{"(b) Java KafkaConsumer 4.1.1: poll, count, commitAsync per batch"};
  si::JavaMemberOptions o{.bootstrap = bootstrap, .topic = topic, .group = group, .max_records = n,
                          .async_commit = true};
  o.consumer_properties["max.poll.records"] = absl::StrCat(kBatch);
  if (const char* flags = std::getenv("SINK_BENCH_JAVA_OPTS")) {
    o.jvm_flags = absl::StrSplit(flags, ' ', absl::SkipEmpty());
  }
  auto started = si::StartJavaMember(o, dir + "/" + group);
  if (!started.ok()) {
    row.notes.push_back(std::string(started.status().message()));
    return row;
  }
  auto p = std::move(*started);
  CommitWatcher watcher(bootstrap, group, topic, partitions);
  if (!PollFor([&] { return si::JavaMemberHolding(p->Output()) > 0 || !p->Running(); },
               absl::Minutes(2))) {
    row.notes.push_back("never assigned");
    return row;
  }
  Measure(p.get(), &watcher, n,
          [&] { return absl::StrContains(p->Output(), "member: consumed all"); }, &row);
  p->Signal(SIGTERM);
  if (p->Wait(absl::Minutes(2)) != 0) row.notes.push_back("exit: " + p->Output() + p->Stderr());
  row.notes.push_back(absl::StrCat("JVM flags: ", o.jvm_flags.empty() ? "the defaults" : absl::StrJoin(o.jvm_flags, " ")));
  for (absl::string_view line : absl::StrSplit(p->Output(), '\n')) {
    if (absl::StartsWith(line, "bench: ")) row.notes.push_back(absl::StrCat("self-reported: ", line.substr(7)));
  }
  return row;
}

// Partitions each sluice-sink worker holds, per its last "worker N: ...
// assigned [...]" line.
std::map<int, int> WorkersHolding(const std::string& err) {
  std::map<int, int> held;
  for (absl::string_view line : absl::StrSplit(err, '\n')) {
    size_t w = line.find("worker "), a = line.find("assigned [");
    if (w == absl::string_view::npos || a == absl::string_view::npos) continue;
    int id = 0;
    absl::string_view rest = line.substr(w + 7);
    if (!absl::SimpleAtoi(rest.substr(0, rest.find(':')), &id)) continue;
    absl::string_view list = line.substr(a + 10, line.find(']', a) - a - 10);
    held[id] = list.empty() ? 0 : static_cast<int>(std::count(list.begin(), list.end(), ',')) + 1;
  }
  return held;
}

// Rows (c) and (d): sluice-sink with `threads` workers, paused before it
// joins and resumed once every worker holds partitions. Under callgrind
// (`callgrind_out` set), the counters are zeroed before the resume and
// dumped once `n` records are committed.
Row RunSink(const std::string& dir, const std::string& bootstrap, const std::string& topic,
            int partitions, int64_t n, const std::string& group, int threads,
            const std::string& callgrind_out = "") {
  Row row{absl::StrCat("(", threads == 1 ? "c" : "d", ") sluice-sink, ", threads,
                       threads == 1 ? " worker" : " workers",
                       ": decode + JEXL (keeps all) + log sink -> /dev/null")};
  auto env = si::SinkEnv(bootstrap, topic, group, si::SampleDescriptorUrl());
  env["SOURCE_KAFKA_CONSUMER_CONFIG_SESSION_TIMEOUT_MS"] = "10000";  // Firehose's
  env["FILTER_ENGINE"] = "JEXL";
  env["FILTER_DATA_SOURCE"] = "MESSAGE";
  env["FILTER_SCHEMA_PROTO_CLASS"] = "sluice.sample.SampleLogMessage";
  env["FILTER_JEXL_EXPRESSION"] = "sampleLogMessage.getAmountPaidCents() >= 0";
  env["APPLICATION_THREAD_COUNT"] = absl::StrCat(threads);
  const int port = si::FreePort();
  env["SINK_CONTROL_PORT"] = absl::StrCat(port);
  si::Process::Options o = ChildOptions(dir + "/" + group, env);
  o.clean_env = true;
  o.stdout_path = "/dev/null";  // the log sink's records
  const char* binary = std::getenv("SINK_BENCH_BINARY");
  auto p = *si::Process::Start(MaybeCallgrind({binary ? binary : "sink/sluice-sink"}, callgrind_out),
                               std::move(o));
  auto stub = sluice::sink::v1beta1::SinkControl::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
  auto control = [&](bool pause) {
    grpc::ClientContext ctx;
    grpc::Status s;
    if (pause) {
      sluice::sink::v1beta1::PauseResponse resp;
      s = stub->Pause(&ctx, {}, &resp);
    } else {
      sluice::sink::v1beta1::ResumeResponse resp;
      s = stub->Resume(&ctx, {}, &resp);
    }
    if (!s.ok()) row.notes.push_back(absl::StrCat(pause ? "Pause" : "Resume", ": ", s.error_message()));
    return s.ok();
  };
  if (!si::WaitForPort(port, absl::Minutes(2)).ok() || !control(/*pause=*/true)) {
    row.notes.push_back("control port: " + p->Stderr());
    return row;
  }
  CommitWatcher watcher(bootstrap, group, topic, partitions);
  auto settled = [&] {
    std::map<int, int> held = WorkersHolding(p->Stderr());
    int sum = 0;
    for (const auto& [id, count] : held) sum += count > 0 ? count : -1000;
    return static_cast<int>(held.size()) == threads && sum == partitions;
  };
  if (!si::WaitFor([&] { return settled() || !p->Running(); }, absl::Minutes(2)) || !p->Running()) {
    row.notes.push_back("workers never held every partition: " + p->Stderr());
    return row;
  }
  if (!callgrind_out.empty()) {
    auto z = si::Process::Start({"/usr/bin/callgrind_control", "-z", absl::StrCat(p->pid())});
    if (z.ok()) (*z)->Wait(absl::Minutes(1));
  }
  control(/*pause=*/false);
  // Processed: pushed by the sink or dropped by the filter (GetStatus).
  auto processed = [&] {
    // Under callgrind only the commits are waited for: GetStatus calls
    // would add their instructions to the count.
    if (!callgrind_out.empty()) return true;
    grpc::ClientContext ctx;
    sluice::sink::v1beta1::GetStatusResponse status;
    return stub->GetStatus(&ctx, {}, &status).ok() &&
           status.counters().pushed() + status.counters().filtered() >= n;
  };
  // Every 50 ms: a GetStatus answer carries the whole configuration, and
  // its CPU is sluice-sink's.
  Measure(p.get(), &watcher, n, processed, &row, absl::Milliseconds(50));
  if (!callgrind_out.empty()) {
    auto d = si::Process::Start({"/usr/bin/callgrind_control", "-d", absl::StrCat(p->pid())});
    if (d.ok()) (*d)->Wait(absl::Minutes(1));
  }
  p->Signal(SIGTERM);
  if (int rc = p->Wait(absl::Minutes(2)); rc != 0) row.notes.push_back(absl::StrCat("exit code ", rc));
  const std::string err = p->Stderr();
  for (size_t at = err.find("time by stage"); at != std::string::npos;
       at = err.find("time by stage", at + 1)) {
    size_t begin = err.rfind("worker", at);
    row.notes.push_back(err.substr(begin, err.find('\n', at) - begin));
  }
  return row;
}

// Records per second to the last record processed and to the last commit.
double Rate(const Row& r, bool processed) {
  const double s = processed ? r.processed_seconds : r.seconds;
  return s > 0 ? r.records / s : 0;
}

void PrintRow(const Row& r, const Row* raw) {
  auto ratio = [&](bool processed) {
    return raw != nullptr && Rate(*raw, processed) > 0 ? Rate(r, processed) / Rate(*raw, processed)
                                                        : 0.0;
  };
  std::printf("%-68s %9.0f %5.2fx %9.0f %5.2fx %7.2f us %7.1f MiB%s\n", r.name.c_str(),
              Rate(r, true), ratio(true), Rate(r, false), ratio(false),
              r.records > 0 ? absl::ToDoubleMicroseconds(r.cpu) / r.records : 0.0,
              r.peak_rss_kb / 1024.0, r.ok ? "" : "  (FAILED)");
  std::printf("    %lld records: all processed in %.2f s, committed in %.2f s; CPU %.2f s\n",
              static_cast<long long>(r.records), r.processed_seconds, r.seconds,
              absl::ToDoubleSeconds(r.cpu));
  for (const std::string& note : r.notes) std::printf("    %s\n", note.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--raw-consumer") == 0) {
    return RawConsumerMain(argv[2], argv[3], argv[4], std::atoll(argv[5]));
  }
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000000;
  const int partitions = argc > 2 ? std::atoi(argv[2]) : 4;
  const int m = argc > 3 ? std::atoi(argv[3]) : 50000;
  const char* rows_env = std::getenv("SINK_BENCH_ROWS");
  const std::string rows = absl::StrCat(",", rows_env ? rows_env : "a,b,c,d", ",");
  auto want = [&](const char* r) { return absl::StrContains(rows, absl::StrCat(",", r, ",")); };
  const std::string dir = si::TempDir(absl::StrCat("sluice_real_broker_bench_", getpid()));
  std::vector<std::string> topics = {absl::StrCat("bench:", partitions)};
  if (m > 0) topics.push_back(absl::StrCat("bench-cg:", partitions));
  const std::string broker_dir = si::TempDir(absl::StrCat("sluice_real_broker_bench_", getpid(), "/kafka"));
  // SINK_BENCH_BROKER_PROPS="name=value;...": broker settings over
  // kafka-broker.sh's (its extra.properties).
  if (const char* props = std::getenv("SINK_BENCH_BROKER_PROPS")) {
    std::ofstream(broker_dir + "/extra.properties")
        << absl::StrJoin(absl::StrSplit(props, ';', absl::SkipEmpty()), "\n") << "\n";
    std::printf("broker settings: %s\n", props);
  }
  si::KafkaBroker broker = si::KafkaBroker::Start(topics, broker_dir);
  std::printf("%d records over %d partitions; every row reads them all with a fresh group; "
              "batches of up to %d\n", n, partitions, kBatch);
  sluice::bench::Produce(broker.bootstrap, "bench", n);
  if (m > 0) sluice::bench::Produce(broker.bootstrap, "bench-cg", m);
  if (want("b") && !si::CompiledJavaMember().ok()) {
    std::printf("Java member: %s\n", std::string(si::CompiledJavaMember().status().message()).c_str());
  }

  std::vector<Row> results;
  if (want("a")) results.push_back(RunRaw(dir, broker.bootstrap, "bench", partitions, n, "bench-raw"));
  if (want("b")) results.push_back(RunJava(dir, broker.bootstrap, "bench", partitions, n, "bench-java"));
  if (want("c")) results.push_back(RunSink(dir, broker.bootstrap, "bench", partitions, n, "bench-sink-1", 1));
  if (want("d")) results.push_back(RunSink(dir, broker.bootstrap, "bench", partitions, n, "bench-sink-2", 2));

  const Row* raw = want("a") && results[0].ok ? &results[0] : nullptr;
  std::printf("\n%-68s %9s %6s %9s %6s %10s %11s\n", "row", "processed", "x raw", "committed",
              "x raw", "CPU/record", "peak RSS");
  std::printf("%-68s %9s %6s %9s %6s\n", "", "records/s", "", "records/s", "");
  for (const Row& r : results) PrintRow(r, raw);

  if (m > 0) {
    std::printf("\ninstructions per record (callgrind, %d records of topic bench-cg, all threads, "
                "from the assignment or resume to the last commit):\n", m);
    const std::string raw_out = dir + "/raw.callgrind";
    Row raw = RunRaw(dir, broker.bootstrap, "bench-cg", partitions, m, "cg-raw", raw_out);
    const std::string sink_out = dir + "/sink.callgrind";
    Row sink = RunSink(dir, broker.bootstrap, "bench-cg", partitions, m, "cg-sink-1", 1, sink_out);
    const int64_t raw_ir = sluice::bench::CallgrindTotal(raw_out + ".1");
    const int64_t sink_ir = sluice::bench::CallgrindTotal(sink_out + ".1");
    std::printf("  (a) raw librdkafka:      %12.0f instructions/record (%lld in all)%s\n",
                raw_ir > 0 ? static_cast<double>(raw_ir) / m : 0.0, static_cast<long long>(raw_ir),
                raw.ok ? "" : " (FAILED)");
    std::printf("  (c) sluice-sink 1 worker: %11.0f instructions/record (%lld in all, %lld records "
                "in the window)%s\n",
                sink_ir > 0 && sink.records > 0 ? static_cast<double>(sink_ir) / sink.records : 0.0,
                static_cast<long long>(sink_ir), static_cast<long long>(sink.records),
                sink.ok ? "" : " (FAILED)");
    if (raw_ir > 0 && sink_ir > 0 && sink.records > 0) {
      std::printf("  ratio sluice-sink / raw: %.2fx\n",
                  (static_cast<double>(sink_ir) / sink.records) / (static_cast<double>(raw_ir) / m));
    }
    for (const Row* r : {&raw, &sink}) {
      for (const std::string& note : r->notes) std::printf("    %s\n", note.c_str());
    }
    sluice::bench::PrintTopFunctions(sink_out + ".1", "(c) sluice-sink", 12);
  }
  // The broker's data is ~125 MiB a run; SINK_BENCH_KEEP=1 keeps it and the
  // rows' logs (and callgrind's dumps) for a look.
  broker.process->Stop();
  if (const char* keep = std::getenv("SINK_BENCH_KEEP"); keep != nullptr && *keep == '1') {
    std::printf("\nlogs and data kept in %s\n", dir.c_str());
  } else {
    std::filesystem::remove_all(dir);
  }
  return 0;
}
