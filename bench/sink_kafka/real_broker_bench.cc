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
// Every row is a child process, measured from outside in the same way:
// records/s from its first assignment (sluice-sink: from SinkControl.Resume,
// once every worker holds its partitions; it is paused before it joins) until
// the group's committed offsets reach N; the ratio to (a); CPU time (user +
// sys, all threads, /proc/<pid>/stat) per record over the same window; peak
// RSS (VmHWM) at the end.
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
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
#include "integration/java_member.h"
#include "integration/kafka_broker.h"
#include "integration/sink_harness.h"
#include "librdkafka/rdkafka.h"
#include "proto/sluice/sink/v1beta1/sink_control.grpc.pb.h"
#include "sink/sample/sample_gen.h"

namespace si = sluice::integration;

namespace {

constexpr int kBatch = 500;  // max.poll.records of every row

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

// The committed offsets of one group, summed over the partitions.
class CommitWatcher {
 public:
  CommitWatcher(const std::string& bootstrap, const std::string& group, const std::string& topic,
                int partitions) {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err));
    rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof(err));
    rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
    list_ = rd_kafka_topic_partition_list_new(partitions);
    for (int i = 0; i < partitions; ++i) rd_kafka_topic_partition_list_add(list_, topic.c_str(), i);
  }
  ~CommitWatcher() {
    rd_kafka_topic_partition_list_destroy(list_);
    rd_kafka_destroy(rk_);
  }
  int64_t Sum() {
    for (int i = 0; i < list_->cnt; ++i) list_->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
    rd_kafka_committed(rk_, list_, 5000);
    int64_t sum = 0;
    for (int i = 0; i < list_->cnt; ++i) sum += std::max<int64_t>(0, list_->elems[i].offset);
    return sum;
  }

 private:
  rd_kafka_t* rk_;
  rd_kafka_topic_partition_list_t* list_;
};

// A "Name:  123 kB" line of /proc/<pid>/status, in kB (-1 when absent).
int64_t StatusKb(pid_t pid, const char* name) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  const size_t len = std::strlen(name);
  while (std::getline(in, line)) {
    if (line.compare(0, len, name) == 0 && line.size() > len && line[len] == ':') {
      return std::atoll(line.c_str() + len + 1);
    }
  }
  return -1;
}

// CPU time (user + system, all threads) of `pid` so far, from /proc/<pid>/stat.
absl::Duration CpuTime(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return absl::ZeroDuration();
  std::vector<std::string> f = absl::StrSplit(stat.substr(close + 2), ' ');
  if (f.size() < 13) return absl::ZeroDuration();  // fields 14 utime, 15 stime of proc(5)
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return absl::Seconds((std::atof(f[11].c_str()) + std::atof(f[12].c_str())) / ticks);
}

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
  rd_kafka_t* c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  rd_kafka_poll_set_consumer(c);
  auto* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(c, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  rd_kafka_queue_t* q = rd_kafka_queue_get_consumer(c);
  std::vector<rd_kafka_message_t*> buf(kBatch);
  std::map<int32_t, int64_t> next;  // partition -> offset after the last counted record
  int64_t count = 0;
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
    auto* offsets = rd_kafka_topic_partition_list_new(static_cast<int>(next.size()));
    for (const auto& [p, o] : next) rd_kafka_topic_partition_list_add(offsets, topic.c_str(), p)->offset = o;
    rd_kafka_commit(c, offsets, /*async=*/count < n);
    rd_kafka_topic_partition_list_destroy(offsets);
  }
  CALLGRIND_DUMP_STATS;
  const double s = absl::ToDoubleSeconds(absl::Now() - assigned_at);
  const double cpu = absl::ToDoubleSeconds(CpuTime(getpid()) - assigned_cpu);
  std::printf("raw: %lld records in %.3f s from the assignment to the last commit, %.0f records/s, "
              "CPU %.3f s, %.3f us a record\n",
              static_cast<long long>(count), s, count / s, cpu, cpu * 1e6 / count);
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
  double seconds = 0;
  absl::Duration cpu;
  int64_t peak_rss_kb = 0;
  std::vector<std::string> notes;  // printed under the row
};

// Polls `cond` every `interval` until true (true) or `timeout` (false): finer
// than si::WaitFor's 50 ms, which would shift the measured windows.
bool PollFor(const std::function<bool()>& cond, absl::Duration timeout,
             absl::Duration interval = absl::Milliseconds(5)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!cond()) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(interval);
  }
  return true;
}

// Measures `p` from now (its first assignment, or its resume) until `group`
// has committed `target` records: wall time, CPU time and peak RSS.
void Measure(si::Process* p, CommitWatcher* watcher, int64_t target, Row* row) {
  const int64_t start_sum = watcher->Sum();
  const absl::Time t0 = absl::Now();
  const absl::Duration cpu0 = CpuTime(p->pid());
  int64_t sum = start_sum;
  PollFor([&] { return (sum = watcher->Sum()) >= target || !p->Running(); }, absl::Minutes(5));
  row->seconds = absl::ToDoubleSeconds(absl::Now() - t0);
  row->cpu = CpuTime(p->pid()) - cpu0;
  row->peak_rss_kb = StatusKb(p->pid(), "VmHWM");
  row->records = sum - start_sum;
  row->ok = sum >= target;
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
  Measure(p.get(), &watcher, n, &row);
  p->Signal(SIGTERM);
  if (p->Wait(absl::Minutes(2)) != 0) row.notes.push_back("exit: " + p->Output() + p->Stderr());
  for (absl::string_view line : absl::StrSplit(p->Output(), '\n')) {
    if (absl::StartsWith(line, "raw: ") && !absl::StartsWith(line, "raw: assigned")) {
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
  Measure(p.get(), &watcher, n, &row);
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
  Measure(p.get(), &watcher, n, &row);
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

// The "totals:" of callgrind's first dump (`out`.1): instructions executed
// between the zeroing and the dump, all threads; -1 when absent.
int64_t CallgrindTotal(const std::string& out) {
  std::ifstream in(out + ".1");
  std::string line;
  int64_t total = -1;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "totals: ")) (void)absl::SimpleAtoi(line.substr(8), &total);
  }
  return total;
}

void PrintRow(const Row& r, double raw_rate) {
  const double rate = r.seconds > 0 ? r.records / r.seconds : 0;
  std::printf("%-72s %9.0f %6.2fx %7.2f us %8.1f MiB%s\n", r.name.c_str(), rate,
              raw_rate > 0 ? rate / raw_rate : 0.0,
              r.records > 0 ? absl::ToDoubleMicroseconds(r.cpu) / r.records : 0.0,
              r.peak_rss_kb / 1024.0, r.ok ? "" : "  (FAILED)");
  std::printf("    %lld records in %.2f s, CPU %.2f s\n", static_cast<long long>(r.records),
              r.seconds, absl::ToDoubleSeconds(r.cpu));
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
  si::KafkaBroker broker = si::KafkaBroker::Start(topics, si::TempDir(absl::StrCat(
                                                              "sluice_real_broker_bench_", getpid(), "/kafka")));
  std::printf("%d records over %d partitions; every row reads them all with a fresh group; "
              "batches of up to %d\n", n, partitions, kBatch);
  Produce(broker.bootstrap, "bench", n);
  if (m > 0) Produce(broker.bootstrap, "bench-cg", m);
  if (want("b") && !si::CompiledJavaMember().ok()) {
    std::printf("Java member: %s\n", std::string(si::CompiledJavaMember().status().message()).c_str());
  }

  std::vector<Row> results;
  if (want("a")) results.push_back(RunRaw(dir, broker.bootstrap, "bench", partitions, n, "bench-raw"));
  if (want("b")) results.push_back(RunJava(dir, broker.bootstrap, "bench", partitions, n, "bench-java"));
  if (want("c")) results.push_back(RunSink(dir, broker.bootstrap, "bench", partitions, n, "bench-sink-1", 1));
  if (want("d")) results.push_back(RunSink(dir, broker.bootstrap, "bench", partitions, n, "bench-sink-2", 2));

  double raw_rate = 0;
  if (want("a") && results[0].ok && results[0].seconds > 0) raw_rate = results[0].records / results[0].seconds;
  std::printf("\n%-72s %9s %7s %10s %12s\n", "row", "records/s", "x raw", "CPU/record", "peak RSS");
  for (const Row& r : results) PrintRow(r, raw_rate);

  if (m > 0) {
    std::printf("\ninstructions per record (callgrind, %d records of topic bench-cg, all threads, "
                "from the assignment or resume to the last commit):\n", m);
    const std::string raw_out = dir + "/raw.callgrind";
    Row raw = RunRaw(dir, broker.bootstrap, "bench-cg", partitions, m, "cg-raw", raw_out);
    const std::string sink_out = dir + "/sink.callgrind";
    Row sink = RunSink(dir, broker.bootstrap, "bench-cg", partitions, m, "cg-sink-1", 1, sink_out);
    const int64_t raw_ir = CallgrindTotal(raw_out), sink_ir = CallgrindTotal(sink_out);
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
  }
  return 0;
}
