// JDBC sink throughput into the local PostgreSQL of scripts/with-postgres.sh:
// ~100-byte protobuf messages, batch 500, 10 mapped columns (text, bigint,
// enum, nested field, timestamptz, jsonb array, double, boolean), plain
// INSERT and upsert.
//   scripts/with-postgres.sh bazel run //bench/sinks:jdbc_sink_bench -- [rows]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/resource.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "bench/sinks/bench_messages.h"
#include "sink/sinks/jdbc/jdbc_sink.h"
#include "sink/sinks/testing/pg_test_db.h"

namespace {

// CPU seconds (user+sys) of this process.
double SelfCpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// CPU seconds (user+sys) of process `pid` from /proc, or -1.
double ProcCpu(const std::string& pid) {
  std::ifstream f("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(f, line)) return -1;
  // Fields after the ")" of the command name; utime and stime are fields 14, 15.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / sysconf(_SC_CLK_TCK);
}

absl::StatusOr<const google::protobuf::Descriptor*> FindGenerated(absl::string_view name) {
  const auto* d =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(name));
  if (d == nullptr) return absl::NotFoundError(absl::StrCat("no message ", name));
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sluice::sink;  // NOLINT
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 500000;
  const int batch = argc > 2 ? std::atoi(argv[2]) : 500;
  auto db = testing::PgTestDb::Create();
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", std::string(db.status().message()).c_str());
    return 1;
  }
  auto batches = sluice::bench::BenchBatches(n, batch);
  std::printf("jdbc sink bench: %lld rows (%zu-byte messages), batch %d\n",
              static_cast<long long>(n), batches[0][0].value.size(), batch);
  for (bool upsert : {false, true}) {
    std::string table = upsert ? "orders_upsert" : "orders";
    auto created = (*db)->Query(absl::StrCat(
        "CREATE TABLE ", table,
        " (order_number text", upsert ? " PRIMARY KEY" : "",
        ", amount bigint, status text, city text, zip int, event_ts timestamptz, tags jsonb, "
        "price double precision, paid boolean, payload text)"));
    if (!created.ok()) {
      std::fprintf(stderr, "%s\n", std::string(created.status().message()).c_str());
      return 1;
    }
    std::map<std::string, std::string> vars = {
        {"SINK_JDBC_URL", (*db)->dsn()},
        {"SINK_JDBC_TABLE_NAME", table},
        {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"},
        {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING",
         R"({"1":"order_number","2":"amount","3":"status","4":{"1":"city","2":"zip"},)"
         R"("5":"event_ts","6":"tags","8":"price","9":"paid","10":"payload"})"}};
    if (upsert) vars["SINK_JDBC_UNIQUE_KEYS"] = "order_number";
    Env env(vars);
    NoopMetrics metrics;
    auto sink = CreateFromContext<JdbcSink>(SinkContext{&env, &metrics, &FindGenerated});
    if (!sink.ok()) {
      std::fprintf(stderr, "%s\n", std::string(sink.status().message()).c_str());
      return 1;
    }
    auto* two_stage = static_cast<TwoStageSink*>(sink->get());
    auto backend = (*db)->Query(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'sluice-sink' "
        "AND datname = current_database()");
    std::string backend_pid = backend.ok() && !backend->empty() ? (*backend)[0][0] : "0";
    double server_cpu0 = ProcCpu(backend_pid), self_cpu0 = SelfCpu();
    auto start = std::chrono::steady_clock::now();
    size_t failed = 0;
    double prepare_secs = 0;
    for (const auto& b : batches) {
      auto t0 = std::chrono::steady_clock::now();
      failed += two_stage->Prepare(b).size();
      prepare_secs += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      failed += two_stage->Execute().size();
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double self_cpu = SelfCpu() - self_cpu0, server_cpu = ProcCpu(backend_pid) - server_cpu0;
    auto count = (*db)->Query(absl::StrCat("SELECT count(*) FROM ", table));
    std::printf("  %-8s %10.0f rows/s  (%.3f s of which Prepare %.3f s, %zu failed, %s rows in table)\n",
                upsert ? "upsert:" : "insert:", n / secs, secs, prepare_secs, failed,
                count.ok() ? (*count)[0][0].c_str() : "?");
    std::printf("           CPU: sink %.3f s + postgres backend %.3f s -> %.0f rows per CPU-second\n",
                self_cpu, server_cpu, n / (self_cpu + server_cpu));
  }
  return 0;
}
