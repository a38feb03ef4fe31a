// The whole alerting loop (issue #31) on real Prometheus 2.42 and Alertmanager
// (Debian's prometheus with --web.enable-lifecycle, and prometheus-alertmanager
// 0.25, whose /-/reload needs no flag), driven only through Sluice's REST API at Siren's
// paths: a `prometheus` provider and a namespace (Sluice writes the
// Alertmanager config routing it to its hook), Siren's CPU rule template
// (docs/docs/guides/template.md) and a rule whose threshold the metrics
// target exceeds, an http receiver and a subscription on the namespace's
// labels. The alert fires in Prometheus, passes the Alertmanager route Sluice
// wrote, reaches the hook and arrives at the receiver; disabling the rule
// resolves it. Every file Sluice wrote passes promtool / amtool.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <tuple>

#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kPrometheus[] = "/usr/bin/prometheus";
constexpr char kAlertmanager[] = "/usr/bin/prometheus-alertmanager";

// Siren's CPU template, as in Siren's docs (docs/docs/guides/template.md).
const char kCpuBody[] =
    "- alert: CPUHighWarning\n"
    "  expr: avg by (host) (cpu_usage_user{cpu=\"cpu-total\"}) > [[.warning]]\n"
    "  for: '[[.for]]'\n"
    "  labels:\n"
    "    severity: WARNING\n"
    "    team: '[[ .team ]]'\n"
    "  annotations:\n"
    "    dashboard: https://example.com\n"
    "    description: CPU has been above [[.warning]] for last [[.for]] {{ $labels.host }}\n"
    "- alert: CPUHighCritical\n"
    "  expr: avg by (host) (cpu_usage_user{cpu=\"cpu-total\"}) > [[.critical]]\n"
    "  for: '[[.for]]'\n"
    "  labels:\n"
    "    severity: CRITICAL\n"
    "    team: '[[ .team ]]'\n"
    "  annotations:\n"
    "    dashboard: example.com\n"
    "    description: CPU has been above [[.critical]] for last [[.for]] {{ $labels.host }}\n";

HttpResponse Siren(Stack* stack, const std::string& method, const std::string& path,
                   const json& body = nullptr) {
  return Http(method, stack->http_base() + path, body.is_null() ? "" : body.dump(),
              {"X-Auth-Email: tester@example.com"});
}

// Runs sluicectl as tester@example.com; returns {exit code, output}.
std::pair<int, std::string> Ctl(Stack* stack, std::vector<std::string> args) {
  static int runs = 0;
  std::vector<std::string> argv = {Runfile("cli/sluicectl"), "--host", stack->grpc_target(),
                                   "--email", "tester@example.com"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto p = Process::Start(argv, stack->ClientEnv(),
                          TempPath(absl::StrCat("alerting-ctl-", ++runs, ".log")));
  if (!p.ok()) return {-1, ""};
  int code = (*p)->Wait(absl::Seconds(30));
  return {code, (*p)->Output()};
}

// Waits for a receiver request whose status is `status`; null on timeout.
json WaitForStatus(FakeHttpServer* fake, const std::string& path, const std::string& status,
                   absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    for (const auto& r : fake->Requests(path)) {
      json j = r.Json();
      if (j.is_object() && j.value("status", "") == status) return j;
    }
    absl::SleepFor(absl::Milliseconds(200));
  }
  return nullptr;
}

TEST(AlertingLoopTest, RuleFiresThroughPrometheusAlertmanagerAndHookThenResolves) {
  if (access(kPrometheus, X_OK) != 0) GTEST_FAIL() << kPrometheus << " is not installed";
  if (access(kAlertmanager, X_OK) != 0) GTEST_FAIL() << kAlertmanager << " is not installed";
  std::string dir = TempPath("alerting-loop");
  ASSERT_EQ(system(("rm -rf " + dir + " && mkdir -p " + dir + "/rules " + dir + "/am " + dir +
                    "/am-data " + dir + "/prom-data")
                       .c_str()),
            0);

  // The metrics target: a real HTTP server serving a gauge above 50.
  auto target = FakeHttpServer::Start();
  ASSERT_NE(target, nullptr);
  target->SetDefault("/metrics",
                     {200, "# TYPE cpu_usage_user gauge\n"
                           "cpu_usage_user{cpu=\"cpu-total\",host=\"web-1\"} 97\n"});

  int am_port = FreePort(), prom_port = FreePort();
  std::ofstream(dir + "/am/alertmanager.yml") << "route: {receiver: none}\nreceivers: [{name: none}]\n";
  std::ofstream(dir + "/prometheus.yml")
      << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
      << "rule_files: ['" << dir << "/rules/*.yml']\n"
      << "alerting: {alertmanagers: [{static_configs: [{targets: ['127.0.0.1:" << am_port
      << "']}]}]}\n"
      << "scrape_configs: [{job_name: target, static_configs: [{targets: ['127.0.0.1:"
      << target->port() << "']}]}]\n";
  auto am = Process::Start({kAlertmanager, "--config.file=" + dir + "/am/alertmanager.yml",
                            "--storage.path=" + dir + "/am-data",
                            "--web.listen-address=127.0.0.1:" + std::to_string(am_port),
                            "--cluster.listen-address="},
                           {}, dir + "/alertmanager.log");
  ASSERT_TRUE(am.ok()) << am.status();
  auto prom = Process::Start({kPrometheus, "--config.file=" + dir + "/prometheus.yml",
                              "--storage.tsdb.path=" + dir + "/prom-data",
                              "--web.listen-address=127.0.0.1:" + std::to_string(prom_port),
                              "--web.enable-lifecycle", "--rules.alert.resend-delay=1s"},
                             {}, dir + "/prometheus.log");
  ASSERT_TRUE(prom.ok()) << prom.status();
  ASSERT_TRUE(WaitForPort(am_port, absl::Seconds(20)).ok()) << (*am)->Output();
  ASSERT_TRUE(WaitForPort(prom_port, absl::Seconds(20)).ok()) << (*prom)->Output();

  const std::string token = "loop-hook-token-0123456789abcdef";
  Stack::Options opts;
  opts.server_env["SLUICE_TEST_ALERT_TOKEN"] = token;
  std::string config =
      "notification:\n  workers: 2\n  poll_interval_ms: 100\n"
      "  admins: [tester@example.com]\n"
      "  alert_hook_tokens:\n    - {provider: \"*\", token_env: SLUICE_TEST_ALERT_TOKEN}\n"
      "  alert_hook_secrets:\n    - {provider: \"*\", secret_env: SLUICE_TEST_ALERT_HOOK_SECRET}\n"
      "  prometheus:\n    rules_dir: " + dir + "/rules\n"
      "    alertmanager_config_file: " + dir + "/am/alertmanager.yml\n"
      "    alertmanager_url: http://127.0.0.1:" + std::to_string(am_port) + "\n"
      "    group_wait: 1s\n    group_interval: 1s\n    repeat_interval: 1h\n";
  opts.config_yaml = config;
  auto started = Stack::Start(opts);
  ASSERT_TRUE(started.ok()) << started.status();
  Stack* stack = started->get();
  // The hook's base URL is the gateway's, known once it runs.
  ASSERT_TRUE(stack->RestartServer(config + "  alert_hook_base_url: " + stack->http_base() + "\n")
                  .ok());

  // 1. Provider and namespace.
  auto r = Siren(stack, "POST", "/v1beta1/providers",
                 {{"host", absl::StrCat("http://127.0.0.1:", prom_port)},
                  {"urn", "prom-local"},
                  {"name", "prom-local"},
                  {"type", "prometheus"},
                  {"credentials", {{"token", "not-used"}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  uint64_t pid = U64(r.Json()["id"]);
  r = Siren(stack, "GET", absl::StrCat("/v1beta1/providers/", pid));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["provider"]["type"], "prometheus");
  EXPECT_EQ(r.Json()["provider"]["credentials"]["token"], "*****");
  r = Siren(stack, "POST", "/v1beta1/namespaces",
            {{"urn", "team-a"}, {"name", "team-a"}, {"provider", pid},
             {"labels", {{"team", "team-a"}}}});
  ASSERT_EQ(r.status, 200) << r.body << stack->server().Output();
  uint64_t nsid = U64(r.Json()["id"]);
  std::string am_config = dir + "/am/alertmanager.yml";
  EXPECT_EQ(system(("/usr/bin/amtool check-config " + am_config + " >/dev/null").c_str()), 0);
  // Not world-readable (R3-L5), and the route carries the namespace's own
  // token, never the provider route's "*" token (R3-M2).
  struct stat st;
  ASSERT_EQ(stat(am_config.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  std::ifstream am_in(am_config);
  std::string am_text((std::istreambuf_iterator<char>(am_in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(am_text.find(token), std::string::npos);
  EXPECT_NE(am_text.find(absl::StrCat("/v1beta1/alerts/prometheus/", pid, "/", nsid)),
            std::string::npos);

  // 2. Siren's CPU template and a rule the target exceeds (97 > 50).
  r = Siren(stack, "PUT", "/v1beta1/templates",
            {{"name", "CPU"},
             {"body", kCpuBody},
             {"tags", {"firehose"}},
             {"variables",
              {{{"name", "team"}, {"type", "string"}, {"default", "gotocompany"}},
               {{"name", "for"}, {"type", "string"}, {"default", "10m"}},
               {{"name", "warning"}, {"type", "int"}, {"default", "85"}},
               {{"name", "critical"}, {"type", "int"}, {"default", "95"}}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  json rule = {{"enabled", true},
               {"group_name", "CPUHigh"},
               {"namespace", "team-a"},
               {"template", "CPU"},
               {"provider_namespace", nsid},
               {"variables",
                {{{"name", "for"}, {"value", "1s"}},
                 {{"name", "warning"}, {"value", "50"}},
                 {{"name", "critical"}, {"value", "99"}},
                 {{"name", "team"}, {"value", "team-a"}}}}};
  r = Siren(stack, "PUT", "/v1beta1/rules", rule);
  ASSERT_EQ(r.status, 200) << r.body << stack->server().Output();
  EXPECT_EQ(r.Json()["rule"]["name"], "siren_api_prom-local_team-a_team-a_CPUHigh_CPU");
  std::string rules_file = absl::StrCat(dir, "/rules/sluice-p", pid, "-n", nsid, ".rules.yml");
  EXPECT_EQ(system(("/usr/bin/promtool check rules " + rules_file + " >/dev/null").c_str()), 0);
  r = Siren(stack, "GET", absl::StrCat("/v1beta1/rules?provider_namespace=", nsid, "&template=CPU"));
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.Json()["rules"].size(), 1u) << r.body;
  // The same through sluicectl, as tables.
  auto [rc, out] = Ctl(stack, {"-o", "table", "alerting", "provider", "list"});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("URN"), std::string::npos) << out;
  EXPECT_NE(out.find("prom-local"), std::string::npos) << out;
  std::tie(rc, out) = Ctl(stack, {"-o", "table", "alerting", "rule", "list", "--provider-namespace",
                                  std::to_string(nsid)});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("siren_api_prom-local_team-a_team-a_CPUHigh_CPU"), std::string::npos) << out;

  // 3. An http receiver and a subscription on the namespace's labels.
  auto sink = FakeHttpServer::Start();
  r = Siren(stack, "POST", "/v1beta1/receivers",
            {{"name", "team-a-sink"}, {"type", "http"},
             {"configurations", {{"url", sink->Url("/team-a")}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  uint64_t rid = U64(r.Json()["id"]);
  r = Siren(stack, "POST", "/v1beta1/subscriptions",
            {{"urn", "team-a-cpu"}, {"namespace", nsid}, {"receivers", {{{"id", rid}}}},
             {"match", {{"team", "team-a"}}}});
  ASSERT_EQ(r.status, 200) << r.body;

  // Prometheus → Alertmanager (Sluice's route) → hook → subscription → receiver.
  json fired = WaitForStatus(sink.get(), "/team-a", "firing", absl::Seconds(40));
  ASSERT_FALSE(fired.is_null()) << (*prom)->Output() << (*am)->Output()
                                << stack->server().Output();
  std::string text = fired.dump();
  EXPECT_NE(text.find("CPUHighWarning"), std::string::npos) << text;
  EXPECT_EQ(text.find("CPUHighCritical"), std::string::npos) << text;

  // 4. Disabling the rule removes it from Prometheus; the alert resolves.
  rule["enabled"] = false;
  r = Siren(stack, "PUT", "/v1beta1/rules", rule);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["rule"]["enabled"], false);
  EXPECT_EQ(system(("/usr/bin/promtool check rules " + rules_file + " >/dev/null").c_str()), 0);
  json resolved = WaitForStatus(sink.get(), "/team-a", "resolved", absl::Seconds(40));
  ASSERT_FALSE(resolved.is_null()) << (*am)->Output() << stack->server().Output();
  EXPECT_NE(resolved.dump().find("CPUHighWarning"), std::string::npos);

  (*prom)->Stop();
  (*am)->Stop();
}

}  // namespace
}  // namespace sluice::integration
