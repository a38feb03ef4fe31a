// A real Alertmanager (Debian's prometheus-alertmanager) sends its webhook to
// /api/v1beta1/alerts/<type>/<id>[/<namespace>] through the gateway; the alert
// reaches an http receiver through a matching subscription, unless a silence
// stops it. A namespace hook takes only its namespace's own token, which
// Sluice writes into the tenant's Alertmanager config at Cortex (here an
// HTTP fake recording what it is sent).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <memory>

#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"
#include "integration/slack_fake/slack_fake_process.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kAlertmanager[] = "/usr/bin/prometheus-alertmanager";

// A real Alertmanager sending every alert to `hook` with `token` as its
// bearer token; one group per alertname, short waits.
class RealAlertmanager {
 public:
  RealAlertmanager(const std::string& hook, const std::string& token) {
    static int instance = 0;
    dir_ = TempPath(absl::StrCat("alertmanager-", ++instance));
    if (system(("mkdir -p " + dir_ + "/data").c_str()) != 0) return;
    std::ofstream(dir_ + "/alertmanager.yml") << "route:\n"
                                                 "  receiver: sluice\n"
                                                 "  group_by: ['alertname']\n"
                                                 "  group_wait: 1s\n"
                                                 "  group_interval: 1s\n"
                                                 "  repeat_interval: 1h\n"
                                                 "receivers:\n"
                                                 "  - name: sluice\n"
                                                 "    webhook_configs:\n"
                                                 "      - url: '" << hook << "'\n"
                                                 "        send_resolved: true\n"
                                                 "        http_config:\n"
                                                 "          authorization:\n"
                                                 "            credentials: '" << token << "'\n";
    port_ = FreePort();
    auto am = Process::Start({kAlertmanager, "--config.file=" + dir_ + "/alertmanager.yml",
                              "--storage.path=" + dir_ + "/data",
                              "--web.listen-address=127.0.0.1:" + std::to_string(port_),
                              "--cluster.listen-address="},
                             {}, dir_ + "/alertmanager.log");
    if (!am.ok()) return;
    process_ = *std::move(am);
    started_ = WaitForPort(port_, absl::Seconds(30)).ok();
  }
  ~RealAlertmanager() {
    if (process_ != nullptr) process_->Stop();
  }
  bool Started() const { return started_; }
  std::string Output() const { return process_ == nullptr ? "not started" : process_->Output(); }
  // Posts one firing alert to Alertmanager's v2 API (retrying while it
  // finishes starting); true on 200.
  bool Post(const json& labels, const json& annotations) {
    std::string url = absl::StrCat("http://127.0.0.1:", port_, "/api/v2/alerts");
    json alerts = json::array({{{"labels", labels},
                                {"annotations", annotations},
                                {"generatorURL", "http://prometheus.local/graph"}}});
    for (int i = 0; i < 50; ++i) {
      if (Http("POST", url, alerts.dump()).status == 200) return true;
      absl::SleepFor(absl::Milliseconds(200));
    }
    return false;
  }

 private:
  std::string dir_;
  int port_ = 0;
  std::unique_ptr<Process> process_;
  bool started_ = false;
};

// Alertmanager's webhook token: the hook's own, sent as a bearer token.
constexpr char kHookToken[] = "am-hook-token-0123456789abcdef";
// Cortex providers 1 and 2's notification.alert_hook_secrets.
constexpr char kCortexSecret1[] = "cortex-1-hook-secret-0123456789abcdef";
constexpr char kCortexSecret2[] = "cortex-2-hook-secret-0123456789abcdef";
const std::string kCortexConfig =
    "  alert_hook_base_url: http://sluice-gateway.invalid:8080\n"
    "  alert_hook_secrets:\n"
    "    - {provider: cortex/1, secret_env: SLUICE_TEST_CORTEX_1_SECRET}\n"
    "    - {provider: cortex/2, secret_env: SLUICE_TEST_CORTEX_2_SECRET}\n";

// A tenant made through Siren's paths: a cortex provider (or an existing
// one) and a namespace on it, with what Sluice wrote into the tenant's
// Alertmanager config at the fake Cortex.
struct CortexTenant {
  uint64_t provider_id = 0, namespace_id = 0;
  std::string hook_url, token;  // the config's webhook url and bearer token
};

// The Alertmanager config the fake Cortex last received for `tenant`
// (X-Scope-OrgID), parsed; null when none.
json TenantConfig(FakeHttpServer* cortex, const std::string& tenant) {
  json config;
  for (const auto& r : cortex->Requests("/api/v1/alerts")) {
    auto org = r.headers.find("x-scope-orgid");
    if (org == r.headers.end() || org->second != tenant) continue;
    if (r.method == "DELETE") config = nullptr;
    if (r.method == "POST") config = json::parse(r.Json().value("alertmanager_config", ""), nullptr, false);
  }
  return config;
}

// The lowercase hex HMAC-SHA256 the README tells operators to compute with
// `printf %s <type>/<provider>/<namespace> | openssl dgst -sha256 -hmac <secret>`.
std::string OpensslHookToken(const std::string& secret, const std::string& message) {
  std::string cmd = absl::StrCat("printf %s '", message, "' | openssl dgst -sha256 -hmac '",
                                 secret, "'");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  char buf[256] = {0};
  std::string out = fgets(buf, sizeof(buf), p) ? buf : "";
  pclose(p);
  size_t eq = out.rfind("= ");
  if (eq == std::string::npos) return "";
  out = out.substr(eq + 2);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// Each test's stack (fast delivery, tester@example.com a notification admin,
// the hook token for one provider) and a real Alertmanager sending to it.
class AlertmanagerTest : public testing::Test {
 protected:
  void SetUp() override {
    if (access(kAlertmanager, X_OK) != 0) GTEST_FAIL() << kAlertmanager << " is not installed";
  }

  // Starts the stack taking Alertmanager's hook for `provider` ("cortex/3")
  // with kHookToken; `extra` holds more `notification:` config lines.
  void StartStack(const std::string& provider, const std::string& extra = "") {
    Stack::Options opts;
    opts.server_env["SLUICE_TEST_ALERT_TOKEN"] = kHookToken;
    opts.server_env["SLUICE_TEST_CORTEX_1_SECRET"] = kCortexSecret1;
    opts.server_env["SLUICE_TEST_CORTEX_2_SECRET"] = kCortexSecret2;
    opts.config_yaml = absl::StrCat(
        "notification:\n  workers: 2\n  poll_interval_ms: 100\n"
        "  admins: [tester@example.com]\n", extra,
        "  alert_hook_tokens:\n    - {provider: ", provider,
        ", token_env: SLUICE_TEST_ALERT_TOKEN}\n");
    auto stack = Stack::Start(opts);
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = *std::move(stack);
    api_ = std::make_unique<NotificationApi>(stack_.get());
  }

  // Starts Alertmanager sending every alert to `hook` with `token`.
  void StartAlertmanager(const std::string& hook, const std::string& token = kHookToken) {
    am_ = std::make_unique<RealAlertmanager>(hook, token);
    ASSERT_TRUE(am_->Started()) << am_->Output();
  }

  // Siren's paths (/v1beta1 at the gateway's root) as tester@example.com.
  HttpResponse Siren(const std::string& method, const std::string& path,
                     const json& body = nullptr) {
    return Http(method, absl::StrCat(stack_->http_base(), "/v1beta1", path),
                body.is_null() ? "" : body.dump(), {"X-Auth-Email: tester@example.com"});
  }

  // A cortex provider at `cortex` (created unless `provider_id` is given)
  // and namespace `urn` on it; the hook URL and token are the ones Sluice
  // wrote into the tenant's Alertmanager config there.
  CortexTenant CreateTenant(FakeHttpServer* cortex, const std::string& urn,
                            uint64_t provider_id = 0) {
    CortexTenant t;
    if (provider_id == 0) {
      auto p = Siren("POST", "/providers",
                     {{"host", cortex->Url("")}, {"urn", "cortex-" + urn}, {"name", "cortex-" + urn},
                      {"type", "cortex"}});
      EXPECT_EQ(p.status, 200) << p.body;
      provider_id = U64(p.Json()["id"]);
    }
    t.provider_id = provider_id;
    auto n = Siren("POST", "/namespaces",
                   {{"urn", urn}, {"name", urn}, {"provider", provider_id}});
    EXPECT_EQ(n.status, 200) << n.body << Logs();
    t.namespace_id = U64(n.Json()["id"]);
    json config = TenantConfig(cortex, urn);
    EXPECT_TRUE(config.is_object()) << "no Alertmanager config for tenant " << urn;
    if (!config.is_object()) return t;
    const json& hook = config["receivers"][0]["webhook_configs"][0];
    t.hook_url = hook.value("url", "");
    t.token = hook["http_config"]["authorization"].value("credentials", "");
    return t;
  }

  // POSTs one firing alert (summary `summary`, team db) straight to Siren's
  // namespace hook /v1beta1/alerts/cortex/{provider_id}/{namespace_id}.
  HttpResponse PostToNamespace(uint64_t provider_id, uint64_t namespace_id,
                               const std::string& token, const std::string& summary) {
    json body = {{"version", "4"},
                 {"status", "firing"},
                 {"groupKey", "{}:{team=\"db\"}"},
                 {"commonLabels", {{"team", "db"}}},
                 {"alerts",
                  {{{"status", "firing"},
                    // Siren's cortex plugin needs severity and these annotations.
                    {"labels", {{"team", "db"}, {"alertname", "Forged"}, {"severity", "WARNING"}}},
                    {"annotations",
                     {{"summary", summary}, {"resource", "db"}, {"template", "CPU"},
                      {"metric_name", "cpu"}, {"metric_value", "1"}}},
                    {"startsAt", "2026-11-26T10:00:00Z"},
                    {"fingerprint", "f-forged"}}}}};
    return Http("POST",
                absl::StrCat(stack_->http_base(), "/v1beta1/alerts/cortex/", provider_id, "/",
                             namespace_id),
                body.dump(), {"Authorization: Bearer " + token});
  }

  // Fires alert `name` (team db, severity CRITICAL) on `resource` with
  // Siren's CPU rule annotations plus `more`; true once Alertmanager took it.
  bool FireCpu(const std::string& name, const std::string& resource,
               const json& more = json::object()) {
    json annotations = {{"resource", resource},
                        {"metric_name", "cpu_usage_user"},
                        {"metric_value", "97"},
                        {"template", "CPU"}};
    annotations.update(more);
    return am_->Post({{"alertname", name}, {"team", "db"}, {"severity", "CRITICAL"}}, annotations);
  }

  // `fetch()` polled every 200 ms for up to 40 s until `done` holds of it;
  // the last value fetched.
  static json Poll(const std::function<json()>& fetch, const std::function<bool(const json&)>& done) {
    absl::Time deadline = absl::Now() + absl::Seconds(40);
    json got;
    while (absl::Now() < deadline) {
      got = fetch();
      if (done(got)) break;
      absl::SleepFor(absl::Milliseconds(200));
    }
    return got;
  }

  // The stored alert of `resource` from GET `alerts_url`?resource_name= once
  // it is there (null on timeout).
  json Stored(const std::string& alerts_url, const std::string& resource) {
    json list = Poll(
        [&] {
          return Http("GET", alerts_url + "?resource_name=" + resource, "",
                      {"X-Auth-Email: tester@example.com"})
              .Json()["alerts"];
        },
        [](const json& l) { return l.is_array() && !l.empty(); });
    return list.is_array() && !list.empty() ? list[0] : json();
  }

  // Alertmanager's and the server's output, for failure messages.
  std::string Logs() const {
    return (am_ ? am_->Output() : "") + (stack_ ? stack_->server().Output() : "");
  }

  std::unique_ptr<Stack> stack_;
  std::unique_ptr<NotificationApi> api_;
  std::unique_ptr<RealAlertmanager> am_;
};

TEST_F(AlertmanagerTest, AlertReachesHttpReceiverThroughSubscription) {
  ASSERT_NO_FATAL_FAILURE(StartStack("alertmanager/am-test"));
  auto fake = FakeHttpServer::Start();
  uint64_t rid = api_->CreateReceiver({{"name", "am-sink"}, {"type", "http"},
                                       {"configurations", {{"url", fake->Url("/am-sink")}}}});
  api_->CreateSubscription({{"urn", "am-team-db"}, {"receivers", {{{"id", rid}}}},
                            {"match", {{"team", "db"}, {"severity", "page"}}}});

  ASSERT_NO_FATAL_FAILURE(StartAlertmanager(api_->Url("/alerts/alertmanager/am-test")));
  ASSERT_TRUE(am_->Post({{"alertname", "ReplicationLag"}, {"team", "db"}, {"severity", "page"},
                         {"instance", "pg-2"}},
                        {{"summary", "replica 2 is 40s behind"}}))
      << Logs();

  // Alertmanager → gateway → server → queue → our endpoint.
  ASSERT_TRUE(fake->WaitForRequests("/am-sink", 1, absl::Seconds(40))) << Logs();
  json got = fake->Requests("/am-sink")[0].Json();
  EXPECT_EQ(got["version"], "4");
  EXPECT_EQ(got["status"], "firing");
  EXPECT_EQ(got["receiver"], "sluice");
  EXPECT_FALSE(got["groupKey"].get<std::string>().empty());
  ASSERT_EQ(got["alerts"].size(), 1u);
  EXPECT_EQ(got["alerts"][0]["labels"]["instance"], "pg-2");
  EXPECT_EQ(got["alerts"][0]["annotations"]["summary"], "replica 2 is 40s behind");
  EXPECT_EQ(got["alerts"][0]["generatorURL"], "http://prometheus.local/graph");
  EXPECT_FALSE(got["alerts"][0]["fingerprint"].get<std::string>().empty());

  // Stored, and linked to the notification.
  json stored = api_->Call("GET", "/alerts/alertmanager/am-test").Json()["alerts"];
  ASSERT_GE(stored.size(), 1u);
  EXPECT_EQ(stored[0]["labels"]["alertname"], "ReplicationLag");
  EXPECT_GT(U64(stored[0]["notification_id"]), 0u);
}

// Siren's flow: the namespace hook stores Siren's alert fields; a silence
// stops the next alert (stored with silence_status "total", not delivered);
// expiring it lets the next one through.
TEST_F(AlertmanagerTest, SilenceStopsAlertsUntilExpired) {
  ASSERT_NO_FATAL_FAILURE(StartStack("cortex/1", kCortexConfig));
  NotificationApi& api = *api_;
  // The tenant whose namespace hook Alertmanager calls, with the token
  // Sluice wrote into its config at the (fake) Cortex.
  auto cortex = FakeHttpServer::Start();
  CortexTenant t = CreateTenant(cortex.get(), "team-db");
  ASSERT_FALSE(t.token.empty());
  const uint64_t ns = t.namespace_id;
  auto fake = FakeHttpServer::Start();
  uint64_t rid = api.CreateReceiver({{"name", "oncall"}, {"type", "http"},
                                     {"configurations", {{"url", fake->Url("/oncall")}}}});
  uint64_t sub = api.CreateSubscription({{"urn", "db-oncall"},
                                         {"namespace", ns},
                                         {"receivers", {{{"id", rid}}}},
                                         {"match", {{"team", "db"}}}});
  ASSERT_GT(sub, 0u);

  // Siren's URL shape with the namespace: /alerts/cortex/{provider}/{namespace}.
  ASSERT_NO_FATAL_FAILURE(StartAlertmanager(
      api.Url(absl::StrCat("/alerts/cortex/", t.provider_id, "/", ns)), t.token));
  const std::string alerts = api.Url(absl::StrCat("/alerts/cortex/", t.provider_id));

  // 1. Delivered, with Siren's fields.
  ASSERT_TRUE(FireCpu("CPUCritical1", "db-1")) << Logs();
  ASSERT_TRUE(fake->WaitForRequests("/oncall", 1, absl::Seconds(40))) << Logs();
  json first = Stored(alerts, "db-1");
  ASSERT_FALSE(first.is_null());
  EXPECT_EQ(first["resource_name"], "db-1");
  EXPECT_EQ(first["metric_name"], "cpu_usage_user");
  EXPECT_EQ(first["metric_value"], "97");
  EXPECT_EQ(first["severity"], "CRITICAL");
  EXPECT_EQ(first["rule"], "CPU");
  EXPECT_EQ(U64(first["namespace_id"]), ns);
  EXPECT_EQ(first["silence_status"], "");
  EXPECT_FALSE(first["triggered_at"].get<std::string>().empty());

  // A rule outside the dialect is a 400 naming the field.
  ExpectError(api.Call("POST", "/silences",
                       {{"type", "subscription"},
                        {"target_id", sub},
                        {"target_expression", {{"rule", "all(Labels, {# == 1})"}}}}),
              3, "target_expression.rule");
  // Only notification admins silence.
  ExpectError(api.Call("POST", "/silences",
                       {{"type", "Matchers"}, {"target_expression", {{"team", "db"}}}},
                       {"X-Auth-Email: someone@example.com"}),
              7);

  // 2. Silenced (Siren's subscription silence): stored, not delivered.
  auto created = api.Call("POST", "/silences",
                          {{"type", "subscription"},
                           {"namespace_id", ns},
                           {"target_id", sub},
                           {"target_expression", {{"rule", "Type == 'http'"}}},
                           {"comment", "db maintenance"}});
  ASSERT_EQ(created.status, 200) << created.body;
  std::string silence_id = created.Json()["id"];
  json got = api.Call("GET", "/silences/" + silence_id).Json()["silence"];
  EXPECT_EQ(got["creator"], "tester@example.com");
  EXPECT_EQ(got["comment"], "db maintenance");
  EXPECT_EQ(api.Call("GET", absl::StrCat("/silences?subscription_id=", sub))
                .Json()["silences"].size(),
            1u);
  // A Matchers silence elsewhere, found by Siren's match[...] filters.
  auto other = api.Call("POST", "/silences",
                        {{"type", "Matchers"},
                         {"namespace_id", 8},
                         {"target_expression", {{"team", "db"}, {"env", "staging"}}}});
  ASSERT_EQ(other.status, 200) << other.body;
  json matched = api.Call("GET", "/silences?match[env]=staging").Json()["silences"];
  ASSERT_EQ(matched.size(), 1u) << matched.dump();
  EXPECT_EQ(matched[0]["id"], other.Json()["id"]);
  EXPECT_EQ(matched[0]["type"], "Matchers");
  EXPECT_EQ(api.Call("GET", "/silences?subscription_match[team]=db")
                .Json()["silences"].size(),
            0u);  // its matchers are not within {team: db}
  ASSERT_TRUE(FireCpu("CPUCritical2", "db-2")) << Logs();
  json second = Stored(alerts, "db-2");
  ASSERT_FALSE(second.is_null()) << Logs();
  EXPECT_EQ(second["silence_status"], "total");
  EXPECT_EQ(U64(second["notification_id"]), 0u);
  json by_silence =
      api.Call("GET", absl::StrCat("/alerts/cortex/", t.provider_id, "?silence_id=", silence_id))
          .Json()["alerts"];
  ASSERT_EQ(by_silence.size(), 1u);
  EXPECT_EQ(by_silence[0]["resource_name"], "db-2");
  absl::SleepFor(absl::Seconds(2));  // a delivery would have happened by now
  EXPECT_EQ(fake->Requests("/oncall").size(), 1u);

  // 3. Expired: the next alert goes through.
  auto expired = api.Call("DELETE", "/silences/" + silence_id);
  ASSERT_EQ(expired.status, 200) << expired.body;
  EXPECT_EQ(api.Call("GET", "/silences").Json()["silences"].size(), 1u);  // the staging one
  EXPECT_FALSE(api.Call("GET", "/silences/" + silence_id)
                   .Json()["silence"]["deleted_at"].is_null());
  ASSERT_TRUE(FireCpu("CPUCritical3", "db-3")) << Logs();
  ASSERT_TRUE(fake->WaitForRequests("/oncall", 2, absl::Seconds(40))) << Logs();
  // An http receiver gets the alert's flat details, as from Siren.
  json delivered = fake->Requests("/oncall")[1].Json();
  EXPECT_EQ(delivered["alertname"], "CPUCritical3");
  EXPECT_EQ(delivered["resource"], "db-3");
  EXPECT_EQ(delivered["notification_type"], "alert");
  EXPECT_EQ(Stored(alerts, "db-3")["silence_status"], "");
}

// Issue #30 "Done when": a real Alertmanager configured with Siren's URL
// shape (root /v1beta1 path, namespace variant) plus the hook's bearer token
// delivers to a Slack receiver (Siren's OAuth config, a slack_channel child)
// through a subscription; the message is Siren's default Slack template
// rendered for the alert (the renderer is proven byte for byte against Go's
// text/template in //common/gotemplate/difftest); a silence made at Siren's
// path stops it; expiring the silence lets the next alert through. The Slack
// side is integration/slack_fake, proven with @slack/web-api.
TEST_F(AlertmanagerTest, SirenShapedHookToSlackSilencedThenExpired) {
  auto slack = SlackFake::Start();
  ASSERT_TRUE(slack.ok()) << slack.status();
  (*slack)->Setup({{"apps",
                    {{{"client_id", "cid"}, {"client_secret", "csecret"}, {"code", "code-1"},
                      {"access_token", "xoxb-acme"}, {"team", {{"id", "T1"}, {"name", "acme"}}}}}},
                   {"channels", {{{"id", "C1"}, {"name", "db-alerts"}}}}});
  ASSERT_NO_FATAL_FAILURE(StartStack(
      "cortex/1", absl::StrCat("  slack_api_url: ", (*slack)->ApiUrl(), "\n", kCortexConfig)));
  auto cortex = FakeHttpServer::Start();
  CortexTenant t = CreateTenant(cortex.get(), "team-db");
  ASSERT_FALSE(t.token.empty());
  const uint64_t ns = t.namespace_id;
  // Siren's paths, at the gateway's root.
  const std::string root = absl::StrCat(stack_->http_base(), "/v1beta1");
  auto siren = [&](const std::string& method, const std::string& path, const json& body = {}) {
    return Http(method, root + path, body.is_null() ? "" : body.dump(),
                {"X-Auth-Email: tester@example.com"});
  };
  auto parent = siren("POST", "/receivers",
                      {{"name", "acme"}, {"type", "slack"},
                       {"configurations",
                        {{"client_id", "cid"}, {"client_secret", "csecret"}, {"auth_code", "code-1"}}}});
  ASSERT_EQ(parent.status, 200) << parent.body;
  auto channel = siren("POST", "/receivers",
                       {{"name", "db-alerts"}, {"type", "slack_channel"},
                        {"parent_id", U64(parent.Json()["id"])},
                        {"configurations", {{"channel_name", "db-alerts"}}}});
  ASSERT_EQ(channel.status, 200) << channel.body;
  auto sub = siren("POST", "/subscriptions",
                   {{"urn", "db-oncall"},
                    {"namespace", ns},
                    {"receivers", {{{"id", U64(channel.Json()["id"])}}}},
                    {"match", {{"team", "db"}}}});
  ASSERT_EQ(sub.status, 200) << sub.body;

  // The URL and token Sluice wrote into the tenant's config (its base is
  // alert_hook_base_url; Alertmanager here reaches the test's gateway).
  const std::string hook_path = absl::StrCat("/alerts/cortex/", t.provider_id, "/", ns);
  EXPECT_EQ(t.hook_url, "http://sluice-gateway.invalid:8080/v1beta1" + hook_path);
  ASSERT_NO_FATAL_FAILURE(StartAlertmanager(root + hook_path, t.token));
  auto fire = [&](const std::string& name, const std::string& resource) {
    return FireCpu(name, resource,
                   {{"summary", "CPU of " + resource + " is 97%"},
                    {"dashboard", "http://grafana.local/d/cpu"},
                    {"playbook", "http://runbook.local/cpu"}});
  };
  auto slack_messages = [&](size_t want) {
    return Poll([&] { return (*slack)->State()["messages"]; },
                [want](const json& msgs) { return msgs.size() >= want; });
  };
  const std::string alerts = absl::StrCat(root, "/alerts/cortex/", t.provider_id);

  // 1. Delivered: Siren's default Slack message for this alert.
  ASSERT_TRUE(fire("CPUHigh1", "db-1")) << Logs();
  json msgs = slack_messages(1);
  ASSERT_EQ(msgs.size(), 1u) << Logs();
  EXPECT_EQ(msgs[0]["channel"], "C1");
  EXPECT_EQ(msgs[0]["team"], "acme");  // the token exchanged from Siren's OAuth config
  json att = msgs[0]["attachments"][0];
  EXPECT_EQ(att["title"], "");
  EXPECT_EQ(att["pretext"], ":fire: (FIRING:1) *(CRITICAL)* CPUHigh1");
  EXPECT_EQ(att["text"], "CPU of db-1 is 97%\n");
  EXPECT_EQ(att["color"], "danger");
  EXPECT_EQ(att["actions"][0]["text"], "Runbook :books:");
  EXPECT_EQ(att["actions"][0]["url"], "http://runbook.local/cpu");
  EXPECT_EQ(att["actions"][1]["text"], "Dashboard :bar_chart:");
  EXPECT_EQ(att["actions"][1]["url"], "http://grafana.local/d/cpu");

  // 2. A Matchers silence at Siren's path: stored with its status, not sent.
  auto silence = siren("POST", "/silences",
                       {{"namespace_id", ns}, {"type", "matchers"},
                        {"target_expression", {{"team", "db"}}}});
  ASSERT_EQ(silence.status, 200) << silence.body;
  std::string silence_id = silence.Json()["id"];
  ASSERT_FALSE(silence_id.empty()) << silence.body;
  ASSERT_TRUE(fire("CPUHigh2", "db-2")) << Logs();
  json second = Stored(alerts, "db-2");
  ASSERT_FALSE(second.is_null()) << Logs();
  EXPECT_EQ(second["silence_status"], "total");
  absl::SleepFor(absl::Seconds(2));  // a delivery would have happened by now
  EXPECT_EQ((*slack)->State()["messages"].size(), 1u);

  // 3. Expired: the next alert reaches Slack again.
  auto expired = siren("DELETE", "/silences/" + silence_id);
  ASSERT_EQ(expired.status, 200) << expired.body;
  ASSERT_TRUE(fire("CPUHigh3", "db-3")) << Logs();
  msgs = slack_messages(2);
  ASSERT_EQ(msgs.size(), 2u) << Logs();
  EXPECT_EQ(msgs[1]["attachments"][0]["pretext"], ":fire: (FIRING:1) *(CRITICAL)* CPUHigh3");
  EXPECT_EQ(Stored(alerts, "db-3")["silence_status"], "");
}

// Review R3-M2 end to end, through the gateway at Siren's paths: each
// Cortex tenant's Alertmanager config carries its own namespace's token
// (what operators compute with openssl), never the provider route's token.
// With it a tenant posts to its own namespace, delivered to its own
// subscription only; on another tenant's namespace, or a namespace of
// another provider, it gets 401 and nobody is notified. A deleted
// namespace's tenant loses its config at Cortex and its old token gets 404.
// namespace_id 0 is refused before anyone is notified (R3-L3), and a
// provider without a hook secret gets no namespace.
TEST_F(AlertmanagerTest, CortexTenantTokenOpensOnlyItsOwnNamespace) {
  ASSERT_NO_FATAL_FAILURE(StartStack("cortex/1", kCortexConfig));
  auto cortex1 = FakeHttpServer::Start();
  auto cortex2 = FakeHttpServer::Start();
  CortexTenant a = CreateTenant(cortex1.get(), "team-a");
  ASSERT_EQ(a.provider_id, 1u);  // the ids kCortexConfig's secrets name (a fresh database)
  CortexTenant b = CreateTenant(cortex1.get(), "team-b", a.provider_id);
  CortexTenant c = CreateTenant(cortex2.get(), "team-c");
  ASSERT_EQ(c.provider_id, 2u);
  ASSERT_FALSE(a.token.empty());
  ASSERT_FALSE(b.token.empty());
  EXPECT_EQ(a.token, OpensslHookToken(kCortexSecret1, absl::StrCat("cortex/1/", a.namespace_id)));
  EXPECT_EQ(c.token, OpensslHookToken(kCortexSecret2, absl::StrCat("cortex/2/", c.namespace_id)));
  EXPECT_NE(a.token, b.token);
  for (FakeHttpServer* fake : {cortex1.get(), cortex2.get()}) {
    for (const auto& r : fake->Requests("/api/v1/alerts")) {
      EXPECT_EQ(r.body.find(kHookToken), std::string::npos) << "provider token in a tenant config";
    }
  }

  // Each namespace subscribes its own receiver to team=db.
  auto sink = FakeHttpServer::Start();
  for (const CortexTenant* t : {&a, &b, &c}) {
    std::string path = absl::StrCat("/ns-", t->namespace_id);
    auto r = Siren("POST", "/receivers",
                   {{"name", path.substr(1)}, {"type", "http"},
                    {"configurations", {{"url", sink->Url(path)}}}});
    ASSERT_EQ(r.status, 200) << r.body;
    auto sub = Siren("POST", "/subscriptions",
                     {{"urn", path.substr(1)}, {"namespace", t->namespace_id},
                      {"receivers", {{{"id", U64(r.Json()["id"])}}}},
                      {"match", {{"team", "db"}}}});
    ASSERT_EQ(sub.status, 200) << sub.body;
  }

  // team-a's token elsewhere: 401.
  auto forged = PostToNamespace(1, b.namespace_id, a.token, "forged by team-a");
  EXPECT_EQ(forged.status, 401) << forged.body;
  forged = PostToNamespace(1, c.namespace_id, a.token, "forged by team-a");  // provider 2's
  EXPECT_EQ(forged.status, 401) << forged.body;
  forged = PostToNamespace(2, c.namespace_id, a.token, "forged by team-a");
  EXPECT_EQ(forged.status, 401) << forged.body;
  // The provider route's token opens no namespace route.
  forged = PostToNamespace(1, b.namespace_id, kHookToken, "forged with the provider token");
  EXPECT_EQ(forged.status, 401) << forged.body;
  // Namespace 0 (every namespace's routes): 400, before any notification.
  auto zero = PostToNamespace(1, 0, a.token, "to everyone");
  ExpectError(zero, 3, "namespace_id");

  auto own = PostToNamespace(1, a.namespace_id, a.token, "team-a's own");  // goes through
  ASSERT_EQ(own.status, 200) << own.body << Logs();
  std::string mine = absl::StrCat("/ns-", a.namespace_id);
  ASSERT_TRUE(sink->WaitForRequests(mine, 1, absl::Seconds(30))) << Logs();
  absl::SleepFor(absl::Seconds(2));  // a forged delivery would have happened by now
  EXPECT_EQ(sink->Requests("").size(), 1u);
  EXPECT_NE(sink->Requests(mine)[0].body.find("team-a's own"), std::string::npos);
  json stored = Siren("GET", "/alerts/cortex/1").Json()["alerts"];
  ASSERT_EQ(stored.size(), 1u) << stored.dump();
  EXPECT_EQ(U64(stored[0]["namespace_id"]), a.namespace_id);
  EXPECT_TRUE(Siren("GET", "/alerts/cortex/2").Json()["alerts"].empty());

  // Deleting team-b's namespace deletes its tenant's config at Cortex; the
  // token it still holds gets 404.
  auto del = Siren("DELETE", absl::StrCat("/namespaces/", b.namespace_id));
  ASSERT_EQ(del.status, 200) << del.body;
  EXPECT_TRUE(TenantConfig(cortex1.get(), "team-b").is_null());
  EXPECT_TRUE(TenantConfig(cortex1.get(), "team-a").is_object());
  auto stale = PostToNamespace(1, b.namespace_id, b.token, "after delete");
  EXPECT_EQ(stale.status, 404) << stale.body;

  // A provider without a hook secret (cortex/3) gets no namespace.
  auto p3 = Siren("POST", "/providers",
                  {{"host", cortex2->Url("")}, {"urn", "cortex-3"}, {"name", "cortex-3"},
                   {"type", "cortex"}});
  ASSERT_EQ(p3.status, 200) << p3.body;
  ASSERT_EQ(U64(p3.Json()["id"]), 3u);
  auto refused = Siren("POST", "/namespaces", {{"urn", "team-d"}, {"name", "team-d"}, {"provider", 3}});
  ExpectError(refused, 9, "notification.alert_hook_secrets");
  EXPECT_TRUE(TenantConfig(cortex2.get(), "team-d").is_null());
  EXPECT_EQ(Siren("GET", "/namespaces").Json()["namespaces"].size(), 2u);
}

}  // namespace
}  // namespace sluice::integration
