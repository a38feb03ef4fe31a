#include "server/notification/alerting/prometheus_backend.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace sluice::notification::alerting {
namespace {

// Answers every request with `status` and records the URLs.
class FakeHttp : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& r) override {
    urls.push_back(r.method + " " + r.url);
    return HttpResult{status, body};
  }
  long status = 200;
  std::string body;
  std::vector<std::string> urls;
};

std::string TempDir() {
  std::string t = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  std::string dir = t + "/promXXXXXX";
  return mkdtemp(dir.data());
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Have(const char* tool) {
  return access((std::string("/usr/bin/") + tool).c_str(), X_OK) == 0;
}

RuleGroups CpuGroups() {
  return {{{"name", "cpu"},
           {"rules",
            {{{"alert", "CPUHighWarning"},
              {"expr", "avg by (host) (cpu_usage_user{cpu=\"cpu-total\"}) > 80"},
              {"for", "1m"},
              {"labels", {{"severity", "WARNING"}}},
              {"annotations", {{"summary", "CPU usage has been above 80% for last 1m {{ $labels.host }}"}}}}}}}};
}

TEST(PrometheusBackend, WritesRuleFileThatPromtoolAcceptsAndReloads) {
  FakeHttp http;
  AlertHookSecrets secrets = {{"*", "hook-secret-0123456789abcdef0123456789"}};
  PrometheusOptions o;
  o.rules_dir = TempDir();
  PrometheusBackend b(o, &http, &secrets);
  AlertProvider p;
  p.id = 3;
  p.urn = "prom";
  p.host = "http://127.0.0.1:9090/";
  AlertNamespace ns;
  ns.id = 7;
  ns.provider_id = 3;
  ASSERT_TRUE(b.SyncRules(p, ns, {{"team-a", CpuGroups()}}).ok());
  ASSERT_EQ(http.urls.size(), 1u);
  EXPECT_EQ(http.urls[0], "POST http://127.0.0.1:9090/-/reload");
  std::string file = o.rules_dir + "/sluice-p3-n7.rules.yml";
  auto j = nlohmann::json::parse(Read(file));
  EXPECT_EQ(j["groups"][0]["name"], "team-a/cpu");
  EXPECT_EQ(j["groups"][0]["rules"][0]["labels"][kNamespaceLabel], "3/7");
  if (Have("promtool")) {
    EXPECT_EQ(std::system(("/usr/bin/promtool check rules " + file + " >/dev/null").c_str()), 0);
  }
}

TEST(PrometheusBackend, RefusedReloadPutsFormerFileBackAndNamesOnlyTheStatus) {
  FakeHttp http;
  AlertHookSecrets secrets;
  PrometheusOptions o;
  o.rules_dir = TempDir();
  PrometheusBackend b(o, &http, &secrets);
  AlertProvider p;
  p.id = 1;
  p.urn = "prom";
  p.host = "http://127.0.0.1:9090";
  AlertNamespace ns;
  ns.id = 2;
  ns.provider_id = 1;
  ASSERT_TRUE(b.SyncRules(p, ns, {{"a", CpuGroups()}}).ok());
  std::string file = o.rules_dir + "/sluice-p1-n2.rules.yml";
  std::string before = Read(file);
  // The host is any URL an admin names: its answer is never quoted (R3-L2).
  http.status = 500;
  http.body = "internal-admin-console: db_password=hunter2\n";
  absl::Status st = b.SyncRules(p, ns, {{"a", {}}});
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("prometheus provider prom reload: HTTP 500 (the provider failed"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(st.message().find("hunter2"), std::string::npos) << st.message();
  EXPECT_EQ(Read(file), before);
}

TEST(PrometheusBackend, DoesNotFollowSymlinkAtTarget) {
  std::string dir = TempDir(), outside = TempDir();
  std::string victim = outside + "/victim";
  std::ofstream(victim) << "keep";
  ASSERT_EQ(symlink(victim.c_str(), (dir + "/sluice-p1-n1.rules.yml").c_str()), 0);
  std::optional<std::string> prev;
  // The read of the former content refuses the link (ELOOP).
  EXPECT_FALSE(WriteConfined(dir, "sluice-p1-n1.rules.yml", "x", &prev).ok());
  // Without reading, the rename replaces the link itself, never the target.
  EXPECT_TRUE(WriteConfined(dir, "sluice-p1-n1.rules.yml", "x").ok());
  EXPECT_EQ(Read(victim), "keep");
  EXPECT_FALSE(WriteConfined(dir, "../escape", "x").ok());
  EXPECT_FALSE(WriteConfined(dir, ".hidden", "x").ok());
}

// Review R3-L5: the rule files and the Alertmanager config (which holds the
// hook tokens) are 0640, whatever the umask: never readable by others.
TEST(PrometheusBackend, FilesAreWrittenOwnerAndGroupOnly) {
  mode_t old_mask = umask(0);
  FakeHttp http;
  AlertHookSecrets secrets = {{"prometheus/1", "prometheus-1-secret-0123456789abcdef"}};
  PrometheusOptions o;
  o.rules_dir = TempDir();
  o.alertmanager_config_file = TempDir() + "/alertmanager.yml";
  o.alertmanager_url = "http://127.0.0.1:9093";
  o.hook_base_url = "http://gateway:8080";
  PrometheusBackend b(o, &http, &secrets);
  AlertProvider p;
  p.id = 1;
  p.host = "http://127.0.0.1:9090";
  AlertNamespace ns;
  ns.id = 2;
  ns.provider_id = 1;
  absl::Status rules = b.SyncRules(p, ns, {{"a", CpuGroups()}});
  absl::Status routes = b.SyncRoutes({{p, ns}});
  umask(old_mask);
  ASSERT_TRUE(rules.ok()) << rules;
  ASSERT_TRUE(routes.ok()) << routes;
  for (const std::string& path :
       {o.rules_dir + "/sluice-p1-n2.rules.yml", o.alertmanager_config_file}) {
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_mode & 0777, 0640u) << path;
  }
}

TEST(PrometheusBackend, AlertmanagerConfigRoutesNamespacesToHookAndAmtoolAccepts) {
  FakeHttp http;
  AlertHookSecrets secrets = {{"prometheus/3", "prometheus-3-secret-0123456789abcdef"}};
  PrometheusOptions o;
  std::string dir = TempDir();
  o.alertmanager_config_file = dir + "/alertmanager.yml";
  o.alertmanager_url = "http://127.0.0.1:9093";
  o.hook_base_url = "http://gateway:8080/";
  PrometheusBackend b(o, &http, &secrets);
  NamespaceRoute r;
  r.provider.id = 3;
  r.ns.id = 7;
  r.ns.provider_id = 3;
  ASSERT_TRUE(b.SyncRoutes({r}).ok());
  EXPECT_EQ(http.urls.back(), "POST http://127.0.0.1:9093/-/reload");
  auto j = nlohmann::json::parse(Read(o.alertmanager_config_file));
  const auto& hook = j["receivers"][1]["webhook_configs"][0];
  EXPECT_EQ(hook["url"], "http://gateway:8080/v1beta1/alerts/prometheus/3/7");
  // The namespace's own token (review R3-M2).
  EXPECT_EQ(hook["http_config"]["authorization"]["credentials"],
            NamespaceHookToken("prometheus-3-secret-0123456789abcdef", "prometheus", 3, 7));
  EXPECT_EQ(j["route"]["routes"][0]["matchers"][0], "sluice_namespace=\"3/7\"");
  if (Have("amtool")) {
    EXPECT_EQ(std::system(("/usr/bin/amtool check-config " + o.alertmanager_config_file +
                           " >/dev/null").c_str()),
              0);
  }
}

// Without a hook secret for the provider no route is written, and the
// file stays as it was.
TEST(PrometheusBackend, ProviderWithoutHookSecretIsRefusedAndFileKept) {
  FakeHttp http;
  AlertHookSecrets secrets = {{"prometheus/9", "prometheus-9-secret-0123456789abcdef"}};
  PrometheusOptions o;
  o.alertmanager_config_file = TempDir() + "/alertmanager.yml";
  o.alertmanager_url = "http://127.0.0.1:9093";
  o.hook_base_url = "http://gateway:8080";
  std::ofstream(o.alertmanager_config_file) << "before\n";
  PrometheusBackend b(o, &http, &secrets);
  NamespaceRoute r;
  r.provider.id = 3;
  r.ns.id = 7;
  r.ns.provider_id = 3;
  absl::Status st = b.SyncRoutes({r});
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("prometheus/3"), std::string::npos) << st;
  EXPECT_EQ(Read(o.alertmanager_config_file), "before\n");
  EXPECT_TRUE(http.urls.empty());
}

}  // namespace
}  // namespace sluice::notification::alerting
