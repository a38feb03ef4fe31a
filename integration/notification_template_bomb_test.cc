// Security review round 3, R3-H1 (shared/reviews/security-2026-11-r3.md),
// replayed end to end through the gateway against a fresh sluice-server: the
// ~600-byte render request that took the server from 34 MB to 1.83 GB, and
// the same text in an alert's annotation delivered to a Slack receiver.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"
#include "integration/suite_stack.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

// The review's `playbook`: a `"` ends Siren's quoted `url:` scalar, then
// levels l0..l6 of ten aliases each (10^7 leaves), then a scalar to close.
std::string Playbook(const std::string& start) {
  std::string y = start + "\"\n      l0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (int k = 1; k <= 6; ++k) {
    y += absl::StrCat("      l", k, ": &a", k, " [");
    for (int i = 0; i < 10; ++i) y += absl::StrCat(i ? "," : "", "*a", k - 1);
    y += "]\n";
  }
  return y + "      zz: \"";
}

class TemplateBombTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() {
    StartSuiteStack("notification:\n  workers: 1\n  poll_interval_ms: 100\n  retry_backoff_ms: 200\n");
  }
  void TearDown() override { EXPECT_TRUE(stack_->server().Running()) << stack_->server().Output(); }
  NotificationApi api_{stack_};
};

TEST_F(TemplateBombTest, RenderIsForAdminsAndQuotesTheText) {
  std::string playbook = Playbook("x");
  json vars = {{"status", "firing"}, {"severity", "CRITICAL"}, {"alertname", "CPUHigh"},
               {"summary", "cpu high"}, {"playbook", playbook}};
  json body = {{"receiver_type", "slack"}, {"variables", vars}};
  EXPECT_LT(body.dump().size(), 800u);

  // A signed-in user who is neither admin nor sender: 403 on both paths.
  ExpectError(api_.Call("POST", "/templates/system-alert-slack/render", body, {"X-Auth-Email: bob@example.com"}),
              7, "system-alert-slack");
  json siren_body = {{"variables", vars}};
  auto siren = Http("POST", absl::StrCat(stack_->http_base(), "/v1beta1/templates/system-alert-slack/render"),
                    siren_body.dump(), {"X-Auth-Email: bob@example.com", "Content-Type: application/json"});
  ExpectError(siren, 7, "system-alert-slack");

  // A notification admin: the playbook is one string, quoted; no key added.
  auto admin = api_.Call("POST", "/templates/system-alert-slack/render", body);
  ASSERT_EQ(admin.status, 200) << admin.body.substr(0, 500);
  json payload = json::parse(admin.Json()["body"].get<std::string>());
  json runbook = payload["attachments"][0]["actions"][0];
  EXPECT_EQ(runbook["url"], playbook);
  EXPECT_EQ(runbook.size(), 3u) << runbook.dump().substr(0, 300);
  long peak = PeakRssKiB(stack_->server().pid());
  EXPECT_GT(peak, 0);
  EXPECT_LT(peak, 100 * 1024) << "server peak RSS " << peak << " KiB";
  std::cout << "R3-H1: admin render answered " << admin.status << " (" << admin.body.size()
            << " bytes); server peak RSS " << peak / 1024 << " MiB\n";
}

TEST_F(TemplateBombTest, AlertAnnotationIsDeliveredQuoted) {
  auto fake = FakeHttpServer::Start();
  ASSERT_NE(fake, nullptr);
  fake->SetDefault("/slk/chat.postMessage", {200, R"({"ok":true})"});
  uint64_t sl = api_.CreateReceiver(
      {{"name", "bomb-slack"}, {"type", "slack"},
       {"configurations", {{"token", "xoxb-a"}, {"channel_name", "#alerts"}, {"api_url", fake->Url("/slk")}}}});
  api_.CreateSubscription({{"urn", "bomb"}, {"receivers", {{{"id", sl}}}}, {"match", {{"team", "bomb"}}}});
  std::string playbook = Playbook("https://runbooks.example.com/db");
  json alert = {{"version", "4"}, {"receiver", "sluice"}, {"status", "firing"},
                {"groupKey", "{}:{alertname=\"DB\"}"}, {"groupLabels", {{"alertname", "DB"}}},
                {"commonLabels", {{"alertname", "DB"}, {"team", "bomb"}}}, {"commonAnnotations", json::object()},
                {"externalURL", "http://alertmanager:9093"},
                {"alerts", {{{"status", "firing"},
                             {"labels", {{"alertname", "DB"}, {"team", "bomb"}, {"severity", "CRITICAL"}}},
                             {"annotations", {{"summary", "db down"}, {"playbook", playbook}}},
                             {"startsAt", "2026-11-28T10:00:00Z"}, {"endsAt", "0001-01-01T00:00:00Z"},
                             {"generatorURL", "http://prometheus/graph"}, {"fingerprint", "b0mb"}}}}};
  auto r = api_.Call("POST", "/alerts/alertmanager/prod", alert,
                     {absl::StrCat("Authorization: Bearer ", kTestAlertToken)});
  ASSERT_EQ(r.status, 200) << r.body;
  json msgs = api_.WaitSettled(U64(r.Json()["notification_id"]));
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0]["status"], "published") << msgs.dump();
  auto posts = fake->Requests("/slk/chat.postMessage");
  ASSERT_EQ(posts.size(), 1u);
  json runbook = posts[0].Json()["attachments"][0]["actions"][0];
  EXPECT_EQ(runbook["url"], playbook);
  EXPECT_EQ(runbook.size(), 3u) << runbook.dump().substr(0, 300);
  long peak = PeakRssKiB(stack_->server().pid());
  EXPECT_LT(peak, 100 * 1024) << "server peak RSS " << peak << " KiB";
}

}  // namespace
}  // namespace sluice::integration
