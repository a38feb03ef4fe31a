// Throughput of the connector sinks against their real servers (issue 16,
// "Benchmarks"), each started privately by the test helpers: N ~100-byte
// TestMessage records pushed in batches of 500 through Prepare/Execute.
//   Redis (KEYVALUE, SET per record) against `redis-benchmark -P 50 -t set`
//     on the same server (the ratio is printed);
//   InfluxDB points/s, Prometheus remote-write samples/s, ClickHouse rows/s.
// Prints figures; asserts nothing. Run:
//   bazel run -c opt //bench/sinks:connector_bench [-- N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/sinks/bench_messages.h"
#include "sink/sinks/clickhouse/clickhouse_sink.h"
#include "sink/sinks/influxdb/influx_sink.h"
#include "sink/sinks/prometheus/prom_sink.h"
#include "sink/sinks/redis/redis_sink.h"
#include "sink/sinks/testing/clickhouse_test_server.h"
#include "sink/sinks/testing/influx_test_server.h"
#include "sink/sinks/testing/prometheus_test_server.h"
#include "sink/sinks/testing/redis_test_server.h"
#include "sink/sinks/testing/server_process.h"

namespace sk = sluice::sink;
namespace skt = sluice::sink::testing;

namespace {

absl::StatusOr<const google::protobuf::Descriptor*> FindGenerated(absl::string_view name) {
  const auto* d =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(name));
  if (d == nullptr) return absl::NotFoundError(absl::StrCat("no message ", name));
  return d;
}

// Builds sink T from `vars` (protobuf input, TestMessage) and returns the
// rate (records/s) of pushing every batch, or 0 when it failed.
template <typename T>
double Rate(const char* name, std::map<std::string, std::string> vars,
            const std::vector<std::vector<sk::Message>>& batches) {
  vars["INPUT_SCHEMA_PROTO_CLASS"] = "sluice.sink.testing.TestMessage";
  sk::Env env(vars);
  sk::NoopMetrics metrics;
  auto config = T::Config::FromEnv(env, sk::SinkContext{&env, &metrics, &FindGenerated});
  if (!config.ok()) {
    std::printf("%s: %s\n", name, std::string(config.status().message()).c_str());
    return 0;
  }
  auto sink = T::Create(*std::move(config), &metrics);
  if (!sink.ok()) {
    std::printf("%s: %s\n", name, std::string(sink.status().message()).c_str());
    return 0;
  }
  sluice::bench::PushResult r = sluice::bench::PushBatches(**sink, batches);
  const int64_t n = r.records, failed = r.failed;
  const double s = r.seconds;
  std::printf("%s: %lld records in %.2f s = %.0f records/s (%lld failed; Prepare %.0f%% of the time)\n",
              name, static_cast<long long>(n), s, n / s, static_cast<long long>(failed),
              100 * r.prepare_share());
  return failed == 0 ? n / s : 0;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  const auto batches = sluice::bench::BenchBatches(n, 500);

  if (auto redis = skt::RedisTestServer::Start(); redis.ok()) {
    // Three alternating rounds (this box is shared and noisy); the median
    // of the per-round ratios is the figure.
    std::vector<double> ratios, distinct_ratios;
    for (int round = 0; round < 3; ++round) {
      std::string out = skt::RunShell(absl::StrCat("redis-benchmark -p ", (*redis)->port(),
                                                   " -P 50 -t set -n ", n, " -q 2>/dev/null"));
      double baseline = 0;
      size_t at = out.rfind("SET: ");
      if (at != std::string::npos) {
        std::string num = out.substr(at + 5, out.find(' ', at + 5) - at - 5);
        absl::SimpleAtod(num, &baseline);
      }
      // The same run over 200k distinct keys (-r), as the sink writes them:
      // without -r every SET overwrites one key, which Redis does faster.
      std::string distinct = skt::RunShell(absl::StrCat(
          "redis-benchmark -p ", (*redis)->port(), " -P 50 -t set -r 200000 -n ", n, " -q 2>/dev/null"));
      at = distinct.rfind("SET: ");
      double distinct_rate = 0;
      if (at != std::string::npos) {
        absl::SimpleAtod(distinct.substr(at + 5, distinct.find(' ', at + 5) - at - 5), &distinct_rate);
      }
      std::printf("redis-benchmark -P 50 -t set: %.0f requests/s (baseline; with -r 200000: %.0f)\n",
                  baseline, distinct_rate);
      (*redis)->Cli({"FLUSHALL"});
      double rate = Rate<sk::RedisSink>("redis sink (KEYVALUE, one SET per record)",
                                        {{"SINK_REDIS_URLS", (*redis)->address()},
                                         {"SINK_REDIS_DATA_TYPE", "KEYVALUE"},
                                         {"SINK_REDIS_KEY_TEMPLATE", "order_%s,order_number"},
                                         {"SINK_REDIS_KEY_VALUE_DATA_FIELD_NAME", "amount"}},
                                        batches);
      ratios.push_back(baseline > 0 ? rate / baseline : 0);
      distinct_ratios.push_back(distinct_rate > 0 ? rate / distinct_rate : 0);
    }
    std::sort(ratios.begin(), ratios.end());
    std::printf("redis sink / redis-benchmark: median %.2fx of 3 rounds (%.2fx-%.2fx; target >= 0.3x)\n",
                ratios[1], ratios[0], ratios[2]);
    std::sort(distinct_ratios.begin(), distinct_ratios.end());
    std::printf("redis sink / redis-benchmark -r 200000: median %.2fx\n", distinct_ratios[1]);
  } else {
    std::printf("redis: %s\n", std::string(redis.status().message()).c_str());
  }

  if (auto influx = skt::InfluxTestServer::Start("bench"); influx.ok()) {
    Rate<sk::InfluxSink>("influxdb sink (target >= 50k points/s)",
                         {{"SINK_INFLUX_URL", (*influx)->url()},
                          {"SINK_INFLUX_USERNAME", skt::InfluxTestServer::kUser},
                          {"SINK_INFLUX_PASSWORD", skt::InfluxTestServer::kPassword},
                          {"SINK_INFLUX_DB_NAME", "bench"},
                          {"SINK_INFLUX_MEASUREMENT_NAME", "orders"},
                          {"SINK_INFLUX_FIELD_NAME_PROTO_INDEX_MAPPING", R"({"2":"amount","8":"price"})"},
                          {"SINK_INFLUX_TAG_NAME_PROTO_INDEX_MAPPING", R"({"3":"status"})"},
                          {"SINK_INFLUX_PROTO_EVENT_TIMESTAMP_INDEX", "5"}},
                         batches);
  } else {
    std::printf("influxdb: %s\n", std::string(influx.status().message()).c_str());
  }

  if (auto prom = skt::PrometheusTestServer::Start(); prom.ok()) {
    Rate<sk::PromSink>("prometheus sink (target >= 50k samples/s)",
                       {{"SINK_PROM_SERVICE_URL", (*prom)->write_url()},
                        {"SINK_PROM_METRIC_NAME_PROTO_INDEX_MAPPING", R"({"2":"order_amount"})"},
                        {"SINK_PROM_LABEL_NAME_PROTO_INDEX_MAPPING", R"({"3":"status"})"},
                        {"SINK_PROM_WITH_EVENT_TIMESTAMP", "true"},
                        {"SINK_PROM_PROTO_EVENT_TIMESTAMP_INDEX", "5"}},
                       batches);
  } else {
    std::printf("prometheus: %s\n", std::string(prom.status().message()).c_str());
  }

  if (auto ch = skt::ClickHouseTestServer::Start(); ch.ok()) {
    (*ch)->Query("CREATE TABLE orders (order_number String, amount Int64, status String, city String, "
                 "ts DateTime, price Float64) ENGINE = MergeTree ORDER BY order_number");
    Rate<sk::ClickHouseSink>(
        "clickhouse sink (target >= 100k rows/s)",
        {{"SINK_CLICKHOUSE_URL", (*ch)->url()},
         {"SINK_CLICKHOUSE_TABLE_NAME", "orders"},
         {"INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING",
          R"({"1":"order_number","2":"amount","3":"status","4":{"1":"city"},"5":"ts","8":"price"})"}},
        batches);
  } else {
    std::printf("clickhouse: %s\n", std::string(ch.status().message()).c_str());
  }
  return 0;
}
