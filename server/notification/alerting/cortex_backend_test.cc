// CortexBackend against a stateful, tenant-aware fake of the Cortex/Mimir
// ruler API and Alertmanager config API (Cortex docs "HTTP API": "Set rule
// group" POST /api/v1/rules/{namespace} → 202, "Get rule groups by
// namespace" GET /api/v1/rules/{namespace} → 200 YAML or 404, "Delete rule
// group" DELETE /api/v1/rules/{namespace}/{groupName} → 202, "Set
// Alertmanager configuration" POST /api/v1/alerts → 201, "Delete
// Alertmanager configuration" DELETE /api/v1/alerts → 200; every call needs
// X-Scope-OrgID). No official client is packaged here, so every rule group
// it receives must pass `promtool check rules` and every Alertmanager config
// `amtool check-config`; the fake refuses (400) what they refuse.
#include "server/notification/alerting/cortex_backend.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "server/notification/core/go_template.h"
#include "server/notification/core/hook_token.h"

namespace sluice::notification::alerting {
namespace {

bool ToolAccepts(const std::string& tool_args, const std::string& content) {
  std::string t = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  std::string path = t + "/cortex-fake-check.yml";
  std::ofstream(path) << content;
  return std::system((tool_args + " " + path + " >/dev/null 2>&1").c_str()) == 0;
}

class FakeCortex : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& r) override {
    std::string tenant;
    for (const std::string& h : r.headers) {
      if (absl::StartsWith(h, "X-Scope-OrgID: ")) tenant = h.substr(15);
    }
    if (tenant.empty()) return HttpResult{401, "no org id\n"};
    std::string path = r.url.substr(r.url.find("/api/"));
    std::vector<std::string> parts = absl::StrSplit(path, '/');  // "", api, v1, rules|alerts, ...
    if (parts.size() >= 4 && parts[3] == "alerts" && r.method == "DELETE") {
      // "Delete Alertmanager configuration": 200 whether or not there was one.
      alertmanager.erase(tenant);
      return HttpResult{200, ""};
    }
    if (parts.size() >= 4 && parts[3] == "alerts" && r.method == "POST") {
      auto body = YamlToJson(r.body);
      if (!body.ok() || !(*body)["alertmanager_config"].is_string()) return HttpResult{400, "bad"};
      std::string config = (*body)["alertmanager_config"].get<std::string>();
      bool ok = ToolAccepts("/usr/bin/amtool check-config", config);
      EXPECT_TRUE(ok) << "amtool refused:\n" << config;
      if (!ok) return HttpResult{400, "error validating Alertmanager config\n"};
      alertmanager[tenant] = config;
      return HttpResult{201, ""};
    }
    if (parts.size() < 5 || parts[3] != "rules") return HttpResult{404, "not found\n"};
    std::string ns = parts[4];
    auto& groups = rules[tenant][ns];
    if (r.method == "GET") {
      if (groups.empty()) return HttpResult{404, "no rule groups found\n"};
      nlohmann::json list = nlohmann::json::array();
      for (const auto& [name, g] : groups) list.push_back(g);
      return HttpResult{200, nlohmann::json{{ns, list}}.dump()};
    }
    if (r.method == "POST") {
      auto g = YamlToJson(r.body);
      if (!g.ok() || !g->is_object()) return HttpResult{400, "unable to decode rule group\n"};
      std::string name = g->value("name", "");
      if (name == refuse_group) return HttpResult{400, "invalid rules config: refused by test\n"};
      bool ok = ToolAccepts("/usr/bin/promtool check rules",
                            nlohmann::json{{"groups", {*g}}}.dump());
      EXPECT_TRUE(ok) << "promtool refused: " << g->dump();
      if (!ok) return HttpResult{400, "invalid rules config\n"};
      groups[name] = *g;
      return HttpResult{202, "{}"};
    }
    if (r.method == "DELETE" && parts.size() >= 6) {
      if (groups.erase(parts[5]) == 0) return HttpResult{404, "group does not exist\n"};
      return HttpResult{202, "{}"};
    }
    return HttpResult{405, "method not allowed\n"};
  }
  // tenant → ruler namespace → group name → group
  std::map<std::string, std::map<std::string, std::map<std::string, nlohmann::json>>> rules;
  std::map<std::string, std::string> alertmanager;  // tenant → config text
  std::string refuse_group;
};

nlohmann::json Group(const std::string& name, int threshold) {
  return {{"name", name},
          {"rules",
           {{{"alert", "CPUHighWarning"},
             {"expr", "avg by (host) (cpu_usage_user{cpu=\"cpu-total\"}) > " +
                          std::to_string(threshold)},
             {"for", "5m"},
             {"labels", {{"severity", "WARNING"}}},
             {"annotations", {{"description", "CPU above for 5m {{ $labels.host }}"}}}}}}};
}

class CortexBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/promtool", X_OK) != 0 || access("/usr/bin/amtool", X_OK) != 0) {
      GTEST_SKIP() << "promtool/amtool not installed (scripts/install-deps.sh)";
    }
    options.hook_base_url = "http://sluice:8080";
    provider.id = 4;
    provider.urn = "cortex-prod";
    provider.host = "http://cortex:9009/";
    a.id = 10;
    a.provider_id = 4;
    a.urn = "team-a";
    b.id = 11;
    b.provider_id = 4;
    b.urn = "team-b";
  }
  FakeCortex cortex;
  const std::string secret = "cortex-4-hook-secret-0123456789abcdef";
  AlertHookSecrets secrets = {{"cortex/4", secret}};
  PrometheusOptions options;
  AlertProvider provider;
  AlertNamespace a, b;
};

TEST_F(CortexBackendTest, GroupsLandInTheNamespacesTenantAndGoneGroupsAreDeleted) {
  CortexBackend backend(options, &cortex, &secrets);
  ASSERT_TRUE(backend.SyncRules(provider, a, {{"odpf", {Group("CPUHigh", 80), Group("Mem", 1)}}})
                  .ok());
  ASSERT_TRUE(backend.SyncRules(provider, b, {{"odpf", {Group("CPUHigh", 90)}}}).ok());
  EXPECT_EQ(cortex.rules["team-a"]["odpf"].size(), 2u);
  EXPECT_EQ(cortex.rules["team-b"]["odpf"].size(), 1u);  // tenants apart
  // The set without Mem: Mem is deleted from team-a only.
  ASSERT_TRUE(backend.SyncRules(provider, a, {{"odpf", {Group("CPUHigh", 85)}}}).ok());
  EXPECT_EQ(cortex.rules["team-a"]["odpf"].count("Mem"), 0u);
  EXPECT_EQ(cortex.rules["team-b"]["odpf"].size(), 1u);
  // An empty set removes the ruler namespace's groups.
  ASSERT_TRUE(backend.SyncRules(provider, a, {{"odpf", {}}}).ok());
  EXPECT_TRUE(cortex.rules["team-a"]["odpf"].empty());
}

// The error names the status, never the answer's body (review R3-L2: the
// host may be any URL, and its answer anything).
TEST_F(CortexBackendTest, RefusalRestoresFormerGroupsAndNamesOnlyTheStatus) {
  CortexBackend backend(options, &cortex, &secrets);
  ASSERT_TRUE(backend.SyncRules(provider, a, {{"odpf", {Group("CPUHigh", 80)}}}).ok());
  cortex.refuse_group = "Bad";
  absl::Status st =
      backend.SyncRules(provider, a, {{"odpf", {Group("CPUHigh", 70), Group("Bad", 1)}}});
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("cortex provider cortex-prod: HTTP 400 (the provider refused"),
            std::string::npos)
      << st;
  EXPECT_EQ(st.message().find("refused by test"), std::string::npos) << st;
  ASSERT_EQ(cortex.rules["team-a"]["odpf"].size(), 1u);
  EXPECT_NE(cortex.rules["team-a"]["odpf"]["CPUHigh"].dump().find("> 80"), std::string::npos);
}

// Review R3-M2: each tenant's config carries its own namespace's token,
// derived from the provider's secret; a tenant reading its config back gets
// nothing that opens another tenant's hook.
TEST_F(CortexBackendTest, EachTenantGetsAnAlertmanagerConfigWithItsOwnToken) {
  CortexBackend backend(options, &cortex, &secrets);
  ASSERT_TRUE(backend.SyncRoutes({{provider, a}, {provider, b}}).ok());
  ASSERT_EQ(cortex.alertmanager.size(), 2u);
  auto config_a = YamlToJson(cortex.alertmanager["team-a"]);
  auto config_b = YamlToJson(cortex.alertmanager["team-b"]);
  ASSERT_TRUE(config_a.ok());
  ASSERT_TRUE(config_b.ok());
  const auto& hook_a = (*config_a)["receivers"][0]["webhook_configs"][0];
  const auto& hook_b = (*config_b)["receivers"][0]["webhook_configs"][0];
  EXPECT_EQ(hook_b["url"], "http://sluice:8080/v1beta1/alerts/cortex/4/11");
  std::string token_a = hook_a["http_config"]["authorization"]["credentials"];
  std::string token_b = hook_b["http_config"]["authorization"]["credentials"];
  EXPECT_EQ(token_b, NamespaceHookToken(secret, "cortex", 4, 11));
  EXPECT_EQ(token_a, NamespaceHookToken(secret, "cortex", 4, 10));
  EXPECT_NE(token_a, token_b);
  EXPECT_EQ(cortex.alertmanager["team-a"].find(secret), std::string::npos);
}

// Without a secret for the provider there is no token to write: no tenant
// is written at all (never a provider route token such as "*").
TEST_F(CortexBackendTest, ProviderWithoutHookSecretIsRefusedBeforeAnyTenantIsWritten) {
  AlertHookSecrets other = {{"cortex/5", secret}};
  CortexBackend backend(options, &cortex, &other);
  AlertProvider p5 = provider;
  p5.id = 5;
  AlertNamespace c = a;
  c.provider_id = 5;
  c.urn = "team-c";
  absl::Status st = backend.SyncRoutes({{p5, c}, {provider, a}});
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("alert provider cortex/4 has no hook secret"), std::string::npos)
      << st;
  EXPECT_NE(st.message().find("notification.alert_hook_secrets"), std::string::npos) << st;
  EXPECT_TRUE(cortex.alertmanager.empty());
}

// Review R3-M2: a deleted namespace's tenant keeps no config with Sluice's
// receiver (and its token); the other tenants keep theirs.
TEST_F(CortexBackendTest, RemoveRouteDeletesOnlyThatTenantsConfig) {
  CortexBackend backend(options, &cortex, &secrets);
  ASSERT_TRUE(backend.SyncRoutes({{provider, a}, {provider, b}}).ok());
  ASSERT_TRUE(backend.RemoveRoute({provider, a}).ok());
  EXPECT_EQ(cortex.alertmanager.count("team-a"), 0u);
  EXPECT_EQ(cortex.alertmanager.count("team-b"), 1u);
  EXPECT_TRUE(backend.RemoveRoute({provider, a}).ok());  // already gone: fine
}

}  // namespace
}  // namespace sluice::notification::alerting
