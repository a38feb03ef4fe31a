// Tracing's cost (issue 43; prints figures, no timed assertions): one
// appeal through approval to a grant in the noop provider, over REST through
// sluice-gateway, on a fresh database + sluice-server + gateway per condition:
//   1. no OTLP endpoint: ids are created and propagated, nothing exported;
//   2. export to a live OpenTelemetry Collector (integration/otel_collector.h);
//   3. export to a collector that is down (an endpoint nothing listens on).
// For each: p50/p99/mean of the flow's latency, the server's CPU per flow,
// and the ratios to condition 1 measured in the same run; then the server's
// tracing metrics.
//
//   scripts/with-postgres.sh bazel run -c opt //bench:tracing_bench [-- --flows 300]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "integration/harness.h"
#include "integration/otel_collector.h"
#include "nlohmann/json.hpp"

namespace {

using nlohmann::json;
using sluice::integration::Http;
using sluice::integration::HttpResponse;
using sluice::integration::Stack;

struct Result {
  std::string name;
  double p50 = 0, p99 = 0, mean = 0, cpu_ms_per_flow = 0;
  std::string trace_metrics;
};

HttpResponse Call(const Stack& s, const std::string& method, const std::string& path,
                  const json& body, const std::string& as) {
  return Http(method, absl::StrCat(s.http_base(), "/api/v1beta1", path),
              body.is_null() ? "" : body.dump(), {"X-Auth-Email: " + as});
}

bool Run(const std::string& name, std::map<std::string, std::string> env, int flows, Result* out) {
  Stack::Options opts;
  opts.server_env = env;
  opts.gateway_env = env;
  auto stack = Stack::Start(opts);
  if (!stack.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), stack.status().ToString().c_str());
    return false;
  }
  Stack& s = **stack;
  json policy = {{"id", "bench"},
                 {"steps", {{{"name", "approver"}, {"strategy", "manual"},
                             {"approvers", {"approver@example.com"}}}}},
                 {"appeal", {{"allow_permanent_access", true}, {"allow_on_behalf", true}}}};
  json provider = {{"type", "noop"},
                   {"urn", "noop-bench"},
                   {"allowed_account_types", {"user"}},
                   {"resources",
                    {{{"type", "noop"},
                      {"policy", {{"id", "bench"}, {"version", 1}}},
                      {"roles", {{{"id", "viewer"}}}}}}}};
  if (Call(s, "POST", "/policies", policy, "alice@example.com").status != 200 ||
      Call(s, "POST", "/providers", provider, "alice@example.com").status != 200) {
    std::fprintf(stderr, "%s: setup failed\n", name.c_str());
    return false;
  }
  std::string rid = Call(s, "GET", "/resources?urn=noop-bench", nullptr, "alice@example.com")
                        .Json()["resources"][0]["id"];
  std::vector<double> ms;
  const absl::Duration cpu0 = sluice::integration::CpuTime(s.server().pid());
  for (int i = 0; i < flows + 20; ++i) {
    // Each flow appeals for another account, so no appeal is a duplicate.
    json appeal = {{"resources", {{{"id", rid}, {"role", "viewer"}}}},
                   {"account_id", absl::StrCat("user", i, "@example.com")}};
    const absl::Time t0 = absl::Now();
    auto a = Call(s, "POST", "/appeals", appeal, "alice@example.com");
    if (a.status != 200) {
      std::fprintf(stderr, "%s: appeal %d: %ld %s\n", name.c_str(), i, a.status, a.body.c_str());
      return false;
    }
    std::string id = a.Json()["appeals"][0]["id"];
    auto r = Call(s, "POST", "/appeals/" + id + "/approvals/approver",
                  json{{"action", "approve"}, {"reason", "bench"}}, "approver@example.com");
    if (r.status != 200) {
      std::fprintf(stderr, "%s: approve %d: %ld %s\n", name.c_str(), i, r.status, r.body.c_str());
      return false;
    }
    if (i >= 20) ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - t0));  // 20 to warm up
  }
  const absl::Duration cpu = sluice::integration::CpuTime(s.server().pid()) - cpu0;
  std::sort(ms.begin(), ms.end());
  out->name = name;
  out->p50 = ms[ms.size() / 2];
  out->p99 = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  double sum = 0;
  for (double m : ms) sum += m;
  out->mean = sum / ms.size();
  out->cpu_ms_per_flow = absl::ToDoubleMilliseconds(cpu) / (flows + 20);
  // The server's own tracing metrics, when it has them.
  auto metrics = Http("GET", absl::StrCat("http://127.0.0.1:", s.metrics_port(), "/metrics"));
  for (absl::string_view line : absl::StrSplit(metrics.body, '\n')) {
    if (absl::StrContains(line, "span") && !absl::StartsWith(line, "#")) {
      absl::StrAppend(&out->trace_metrics, "    ", line, "\n");
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int flows = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--flows") (void)absl::SimpleAtoi(argv[i + 1], &flows);
  }
  sluice::integration::SpanSink sink;
  const int live_port = sluice::integration::FreePort();
  auto collector = sluice::integration::StartCollector(sink, live_port);
  if (!collector) return 1;
  const int dead_port = sluice::integration::FreePort();  // nothing listens there
  std::vector<Result> results(3);
  if (!Run("no OTLP endpoint", {}, flows, &results[0]) ||
      !Run("export to a live collector", sluice::integration::OtelEnv(live_port), flows,
           &results[1]) ||
      !Run("export to a stopped collector", sluice::integration::OtelEnv(dead_port), flows,
           &results[2])) {
    return 1;
  }
  std::printf("appeal + approval + grant over REST, %d flows per condition (after 20 to warm up)\n",
              flows);
  std::printf("%-32s %9s %9s %9s %14s %10s %10s\n", "condition", "p50 ms", "p99 ms", "mean ms",
              "server CPU ms", "p50 ratio", "CPU ratio");
  for (const auto& r : results) {
    std::printf("%-32s %9.2f %9.2f %9.2f %14.2f %10.2f %10.2f\n", r.name.c_str(), r.p50, r.p99,
                r.mean, r.cpu_ms_per_flow, r.p50 / results[0].p50,
                r.cpu_ms_per_flow / results[0].cpu_ms_per_flow);
  }
  for (const auto& r : results) {
    if (!r.trace_metrics.empty()) std::printf("%s, server metrics:\n%s", r.name.c_str(), r.trace_metrics.c_str());
  }
  std::printf("spans the live collector exported: %zu\n", sink.Spans().size());
  return 0;
}
