// Throughput of the BigQuery sink against integration/gcp_fake (issue 15,
// "Performance"): N ~100-byte TestMessage records (bench_messages.h) pushed
// through Prepare/Execute in batches of 500 (one worker), beside the
// baseline of Google's official Node.js client loading the same number of
// rows of the same shape in 500-row table.insert calls into the same fake
// (bigquery_client_load.js). After an uncounted warm-up, three alternating
// rounds, each into fresh tables; the median ratio is the figure. Prints; asserts nothing. Run:
//   bazel run -c opt //bench/sinks:bigquery_bench [-- N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/sinks/bench_messages.h"
#include "integration/gcp_fake/gcp_fake_process.h"
#include "integration/process.h"
#include "sink/sinks/bigquery/bigquery_sink.h"
#include "sink/sinks/testing/server_process.h"

namespace sk = sluice::sink;

namespace {

absl::StatusOr<const google::protobuf::Descriptor*> FindGenerated(absl::string_view name) {
  const auto* d = google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(name));
  if (d == nullptr) return absl::NotFoundError(absl::StrCat("no message ", name));
  return d;
}

// Rows/s of the sink writing every batch into `table` (created by its first
// batch), or 0 when anything failed.
double SinkRate(const std::string& base, const std::string& key_path, const std::string& table,
                const std::vector<std::vector<sk::Message>>& batches) {
  sk::Env env({{"SINK_BIGQUERY_API_BASE_URL", base},
               {"SINK_BIGQUERY_GOOGLE_CLOUD_PROJECT_ID", "proj"},
               {"SINK_BIGQUERY_DATASET_NAME", "stream"},
               {"SINK_BIGQUERY_TABLE_NAME", table},
               {"SINK_BIGQUERY_CREDENTIAL_PATH", key_path},
               {"INPUT_SCHEMA_PROTO_CLASS", "sluice.sink.testing.TestMessage"}});
  sk::NoopMetrics metrics;
  auto config = sk::BigQuerySinkConfig::FromEnv(env, sk::SinkContext{&env, &metrics, &FindGenerated});
  auto sink = config.ok() ? sk::BigQuerySink::Create(*std::move(config), &metrics)
                          : absl::StatusOr<std::unique_ptr<sk::BigQuerySink>>(config.status());
  if (!sink.ok()) {
    std::printf("bigquery sink: %s\n", std::string(sink.status().message()).c_str());
    return 0;
  }
  sluice::bench::PushResult r = sluice::bench::PushBatches(**sink, batches);
  const int64_t n = r.records, failed = r.failed;
  const double s = r.seconds;
  std::printf("bigquery sink: %lld rows in %.2f s = %.0f rows/s (%lld failed; Prepare %.0f%% of the time)\n",
              static_cast<long long>(n), s, n / s, static_cast<long long>(failed),
              100 * r.prepare_share());
  return failed == 0 ? n / s : 0;
}

// Rows/s of the official client (bigquery_client_load.js), or 0.
double ClientRate(const std::string& base, const std::string& key_path, const std::string& table,
                  const std::string& like, int n) {
  std::string out = sk::testing::RunShell(absl::StrCat(
      "NODE_PATH=\"$(", sluice::integration::Runfile("scripts/install-npm-deps.sh"), ")\" node ",
      sluice::integration::Runfile("bench/sinks/bigquery_client_load.js"), " ", base, " ", key_path, " ", table,
      " ", like, " ", n, " 500 2>&1"));
  double rate = 0;
  size_t at = out.find("client rows/s: ");
  if (at == std::string::npos || !absl::SimpleAtod(out.substr(at + 15, out.find('\n', at) - at - 15), &rate)) {
    std::printf("official client: %s\n", out.substr(0, 600).c_str());
    return 0;
  }
  std::printf("@google-cloud/bigquery table.insert (baseline): %d rows = %.0f rows/s\n", n, rate);
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int n = argc > 1 ? std::atoi(argv[1]) : 50000;
  const auto batches = sluice::bench::BenchBatches(n, 500);
  auto fake = sluice::integration::GcpFake::Start();
  if (!fake.ok()) {
    std::printf("gcp_fake: %s\n", std::string(fake.status().message()).c_str());
    return 1;
  }
  std::string key_path = absl::StrCat(sluice::integration::TempDir("bigquery_bench"), "/key.json");
  std::ofstream(key_path) << (*fake)->NewKey("proj").dump();
  // One uncounted pass first: the fake (node) is slow until its JIT warms up.
  std::printf("warm-up (not counted):\n");
  SinkRate((*fake)->base_url(), key_path, "warmup", sluice::bench::BenchBatches(std::min(n, 20000), 500));
  std::vector<double> sink_rates, ratios;
  for (int round = 0; round < 3; ++round) {
    std::string table = absl::StrCat("sink_", round);
    double sink = SinkRate((*fake)->base_url(), key_path, table, batches);
    double client = ClientRate((*fake)->base_url(), key_path, absl::StrCat("client_", round), table, n);
    sink_rates.push_back(sink);
    ratios.push_back(client > 0 ? sink / client : 0);
    (*fake)->Reset();  // frees the stored rows; the key must be minted again
    std::ofstream(key_path) << (*fake)->NewKey("proj").dump();
  }
  std::sort(sink_rates.begin(), sink_rates.end());
  std::sort(ratios.begin(), ratios.end());
  std::printf("bigquery sink: median %.0f rows/s of 3 rounds (target >= 20000); sink / official client: "
              "median %.2fx (%.2fx-%.2fx)\n",
              sink_rates[1], ratios[1], ratios[0], ratios[2]);
  return 0;
}
