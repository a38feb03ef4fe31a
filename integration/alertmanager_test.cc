// A real Alertmanager (Debian's prometheus-alertmanager) sends its webhook to
// /api/v1beta1/alerts/alertmanager/<id> through the gateway; the alert reaches
// an http receiver through a matching subscription.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kAlertmanager[] = "/usr/bin/prometheus-alertmanager";

TEST(AlertmanagerTest, AlertReachesHttpReceiverThroughSubscription) {
  if (access(kAlertmanager, X_OK) != 0) GTEST_FAIL() << kAlertmanager << " is not installed";
  Stack::Options opts;
  // The hook's own token, which Alertmanager sends as a bearer token.
  const std::string token = "am-hook-token-0123456789abcdef";
  opts.server_env["SLUICE_TEST_ALERT_TOKEN"] = token;
  opts.config_yaml =
      "notification:\n  workers: 2\n  poll_interval_ms: 100\n"
      "  admins: [tester@example.com]\n"
      "  alert_hook_tokens:\n    - {provider: alertmanager/am-test, token_env: SLUICE_TEST_ALERT_TOKEN}\n";
  auto stack = Stack::Start(opts);
  ASSERT_TRUE(stack.ok()) << stack.status();
  NotificationApi api(stack->get());
  auto fake = FakeHttpServer::Start();
  uint64_t rid = api.CreateReceiver({{"name", "am-sink"}, {"type", "http"},
                                     {"configurations", {{"url", fake->Url("/am-sink")}}}});
  api.CreateSubscription({{"urn", "am-team-db"}, {"receivers", {{{"id", rid}}}},
                          {"match", {{"team", "db"}, {"severity", "page"}}}});

  // Alertmanager config: everything to our hook, short waits.
  std::string dir = TempPath("alertmanager");
  ASSERT_EQ(system(("mkdir -p " + dir + "/data").c_str()), 0);
  std::string hook = api.Url("/alerts/alertmanager/am-test");
  std::ofstream(dir + "/alertmanager.yml") << "route:\n"
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
  int port = FreePort();
  auto am = Process::Start({kAlertmanager, "--config.file=" + dir + "/alertmanager.yml",
                            "--storage.path=" + dir + "/data",
                            "--web.listen-address=127.0.0.1:" + std::to_string(port),
                            "--cluster.listen-address="},
                           {}, dir + "/alertmanager.log");
  ASSERT_TRUE(am.ok());
  ASSERT_TRUE(WaitForPort(port, absl::Seconds(30)).ok()) << (*am)->Output();

  // Post an alert to Alertmanager's v2 API (retry while it finishes starting).
  std::string am_url = absl::StrCat("http://127.0.0.1:", port, "/api/v2/alerts");
  json alerts = json::array({{{"labels", {{"alertname", "ReplicationLag"}, {"team", "db"},
                                          {"severity", "page"}, {"instance", "pg-2"}}},
                              {"annotations", {{"summary", "replica 2 is 40s behind"}}},
                              {"generatorURL", "http://prometheus.local/graph"}}});
  HttpResponse posted;
  for (int i = 0; i < 50; ++i) {
    posted = Http("POST", am_url, alerts.dump());
    if (posted.status == 200) break;
    absl::SleepFor(absl::Milliseconds(200));
  }
  ASSERT_EQ(posted.status, 200) << posted.body << (*am)->Output();

  // Alertmanager → gateway → server → queue → our endpoint.
  ASSERT_TRUE(fake->WaitForRequests("/am-sink", 1, absl::Seconds(40)))
      << (*am)->Output() << stack->get()->server().Output();
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
  json stored = api.Call("GET", "/alerts/alertmanager/am-test").Json()["alerts"];
  ASSERT_GE(stored.size(), 1u);
  EXPECT_EQ(stored[0]["labels"]["alertname"], "ReplicationLag");
  EXPECT_GT(U64(stored[0]["notification_id"]), 0u);
  (*am)->Stop();
}

}  // namespace
}  // namespace sluice::integration
