// End to end: notifications delivered through the durable queue to real
// HTTP endpoints served by this test (scripted answers), Slack and PagerDuty
// fakes checking the vendors' request shapes, the alert hook, and delivery
// across a server restart.
#include <gtest/gtest.h>

#include <set>

#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"
#include "integration/suite_stack.h"

namespace sluice::integration {
namespace {

using nlohmann::json;
using Response = FakeHttpServer::Response;

std::set<uint64_t> ReceiverIds(const json& messages) {
  std::set<uint64_t> out;
  for (const auto& m : messages) out.insert(U64(m["receiver_id"]));
  return out;
}

class NotificationDeliveryTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() {
    // other-team@example.com sends too (IdempotentRepeatSendsOnce: keys per caller).
    StartSuiteStack(
        "notification:\n  workers: 2\n  poll_interval_ms: 100\n  retry_backoff_ms: 200\n"
        "  senders: [other-team@example.com]\n");
  }
  void SetUp() override {
    fake_ = FakeHttpServer::Start();
    ASSERT_NE(fake_, nullptr);
  }
  uint64_t HttpReceiver(const std::string& name, const std::string& path, json labels) {
    return api_.CreateReceiver({{"name", name}, {"type", "http"}, {"labels", labels},
                                {"configurations", {{"url", fake_->Url(path)}}}});
  }
  // POST /alerts/alertmanager/prod with the hook's token, as Alertmanager sends it.
  HttpResponse PostAlert(const json& payload) {
    return api_.Call("POST", "/alerts/alertmanager/prod", payload,
                     {absl::StrCat("Authorization: Bearer ", kTestAlertToken)});
  }
  NotificationApi api_{stack_};
  std::unique_ptr<FakeHttpServer> fake_;
};

TEST_F(NotificationDeliveryTest, SelectorsByLabelSubsetIdAndUnion) {
  uint64_t a = HttpReceiver("sel-a", "/a", {{"grp", "sel"}, {"env", "prod"}});
  uint64_t b = HttpReceiver("sel-b", "/b", {{"grp", "sel"}, {"env", "dev"}});
  uint64_t c = HttpReceiver("sel-c", "/c", {{"grp", "other"}});

  // Label subset: only a has both pairs.
  uint64_t n1 = api_.Notify({{"receivers", {{{"grp", "sel"}, {"env", "prod"}}}},
                             {"data", {{"msg", "one"}}}});
  EXPECT_EQ(ReceiverIds(api_.WaitSettled(n1)), (std::set<uint64_t>{a}));
  // Subset of one label: a and b.
  uint64_t n2 = api_.Notify({{"receivers", {{{"grp", "sel"}}}}, {"data", {{"msg", "two"}}}});
  EXPECT_EQ(ReceiverIds(api_.WaitSettled(n2)), (std::set<uint64_t>{a, b}));
  // By integer id, and the union over selectors (b twice → once).
  uint64_t n3 = api_.Notify({{"receivers", {{{"id", c}}, {{"env", "dev"}}, {{"id", b}}}},
                             {"data", {{"msg", "three"}}}});
  json msgs = api_.WaitSettled(n3);
  EXPECT_EQ(ReceiverIds(msgs), (std::set<uint64_t>{b, c}));
  EXPECT_EQ(msgs.size(), 2u);
  for (const auto& m : msgs) EXPECT_EQ(m["status"], "published") << m.dump();

  // The default template sends the data object with Siren's
  // notification_type (and, for labels, the labels under the data).
  ASSERT_TRUE(fake_->WaitForRequests("/c", 1, absl::Seconds(5)));
  auto got = fake_->Requests("/c");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].method, "POST");
  EXPECT_EQ(got[0].headers["content-type"], "application/json");
  EXPECT_EQ(got[0].Json(), json({{"msg", "three"}, {"notification_type", "event"}}));
  EXPECT_EQ(fake_->Requests("/a").size(), 2u);
  EXPECT_EQ(fake_->Requests("/b").size(), 2u);
}

TEST_F(NotificationDeliveryTest, SubscriptionMatchingAndOverride) {
  uint64_t r1 = HttpReceiver("subm-1", "/s1", {{"grp", "subm"}});
  uint64_t r2 = HttpReceiver("subm-2", "/s2", {{"grp", "subm"}});
  uint64_t r3 = HttpReceiver("subm-3", "/s3", {{"grp", "subm"}});
  api_.CreateSubscription({{"urn", "subm-team"}, {"receivers", {{{"id", r1}}}},
                           {"match", {{"subm_team", "payments"}}}});
  api_.CreateSubscription({{"urn", "subm-critical"}, {"receivers", {{{"id", r2}}}},
                           {"match", {{"subm_team", "payments"}, {"severity", "critical"}}}});
  // An override may not send an http receiver (its url is a secret) elsewhere.
  json sub = {{"urn", "subm-override"},
              {"receivers", {{{"id", r3}, {"configuration", {{"url", fake_->Url("/s3-override")}}}}}},
              {"match", {{"subm_team", "payments"}, {"env", "prod"}}}};
  ExpectError(api_.Call("POST", "/subscriptions", sub), 3,
              "receivers[0].configuration.url: secrets belong to the receiver");
  sub["receivers"] = {{{"id", r3}}};
  api_.CreateSubscription(sub);

  uint64_t n = api_.Notify({{"labels", {{"subm_team", "payments"}, {"env", "prod"}}},
                            {"data", {{"text", "hello"}}}});
  json msgs = api_.WaitSettled(n);
  EXPECT_EQ(ReceiverIds(msgs), (std::set<uint64_t>{r1, r3}));
  ASSERT_TRUE(fake_->WaitForRequests("/s3", 1, absl::Seconds(5)));
  EXPECT_EQ(fake_->Requests("/s3-override").size(), 0u);
  EXPECT_EQ(fake_->Requests("/s2").size(), 0u);

  // With severity=critical r2 joins too.
  uint64_t n2 = api_.Notify({{"labels", {{"subm_team", "payments"}, {"severity", "critical"}}},
                             {"data", {{"text", "again"}}}});
  EXPECT_EQ(ReceiverIds(api_.WaitSettled(n2)), (std::set<uint64_t>{r1, r2}));

  // Labels nobody subscribes to: InvalidArgument, as Siren answers.
  ExpectError(api_.Call("POST", "/notifications",
                        {{"labels", {{"subm_team", "nobody"}}}, {"data", json::object()}}),
              3, "no subscription matches");
}

// Overrides change what is not a destination, e.g. a Slack channel; the
// receiver's token goes to the receiver's api_url.
TEST_F(NotificationDeliveryTest, OverrideOfANonDestinationKey) {
  fake_->SetDefault("/ovr/chat.postMessage", {200, R"({"ok":true})"});
  uint64_t rid = api_.CreateReceiver(
      {{"name", "ovr-slack"}, {"type", "slack"},
       {"configurations", {{"token", "xoxb-ovr"}, {"channel_name", "#general"},
                           {"api_url", fake_->Url("/ovr")}}}});
  api_.CreateSubscription({{"urn", "ovr-sub"},
                           {"receivers", {{{"id", rid}, {"configuration", {{"channel_name", "#oncall"}}}}}},
                           {"match", {{"ovr", "yes"}}}});
  ExpectError(api_.Call("POST", "/subscriptions",
                        {{"urn", "ovr-evil"},
                         {"receivers", {{{"id", rid}, {"configuration", {{"api_url", "http://evil"}}}}}},
                         {"match", {{"ovr", "yes"}}}}),
              3, "receivers[0].configuration.api_url");
  uint64_t n = api_.Notify({{"labels", {{"ovr", "yes"}}}, {"data", {{"text", "hi"}}}});
  EXPECT_EQ(api_.WaitSettled(n)[0]["status"], "published");
  auto posts = fake_->Requests("/ovr/chat.postMessage");
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(posts[0].Json()["channel"], "#oncall");
  EXPECT_EQ(posts[0].headers["authorization"], "Bearer xoxb-ovr");
}

TEST_F(NotificationDeliveryTest, IdempotentRepeatSendsOnce) {
  HttpReceiver("idem", "/idem", {{"grp", "idem"}});
  json body = {{"receivers", {{{"grp", "idem"}}}}, {"data", {{"n", 1}}}};
  uint64_t first = api_.Notify(body, {"Idempotency-Key: order-42-shipped"});
  api_.WaitSettled(first);
  uint64_t second = api_.Notify(body, {"Idempotency-Key: order-42-shipped"});
  EXPECT_EQ(first, second);
  absl::SleepFor(absl::Milliseconds(500));
  EXPECT_EQ(fake_->Requests("/idem").size(), 1u);
  EXPECT_EQ(api_.Messages(first).size(), 1u);
  // Another key is another notification.
  uint64_t third = api_.Notify(body, {"Idempotency-Key: order-43-shipped"});
  EXPECT_NE(third, first);
  api_.WaitSettled(third);
  EXPECT_EQ(fake_->Requests("/idem").size(), 2u);
  // Keys are per caller: another team's order-42-shipped is sent too.
  uint64_t other = api_.Notify(
      body, {"Idempotency-Key: order-42-shipped", "X-Auth-Email: other-team@example.com"});
  EXPECT_NE(other, first);
  api_.WaitSettled(other);
  EXPECT_EQ(fake_->Requests("/idem").size(), 3u);
}

TEST_F(NotificationDeliveryTest, RetriesThenPublishedAndPermanentFailure) {
  HttpReceiver("flaky", "/flaky", {{"grp", "flaky"}});
  HttpReceiver("bad", "/bad", {{"grp", "bad"}});
  fake_->Script("/flaky", {{500, "{}"}, {500, "{}"}, {200, "{}"}});
  fake_->Script("/bad", {{400, R"({"error":"nope"})"}});

  uint64_t n = api_.Notify({{"receivers", {{{"grp", "flaky"}}}}, {"data", {{"k", "v"}}}});
  json m = api_.WaitSettled(n)[0];
  EXPECT_EQ(m["status"], "published") << m.dump();
  EXPECT_EQ(m["try_count"], 3);
  EXPECT_EQ(m["max_tries"], 3);
  EXPECT_EQ(fake_->Requests("/flaky").size(), 3u);

  uint64_t n2 = api_.Notify({{"receivers", {{{"grp", "bad"}}}}, {"data", {{"k", "v"}}}});
  json m2 = api_.WaitSettled(n2)[0];
  EXPECT_EQ(m2["status"], "failed");
  EXPECT_EQ(m2["try_count"], 1);
  EXPECT_NE(m2["last_error"].get<std::string>().find("HTTP 400"), std::string::npos) << m2.dump();
  absl::SleepFor(absl::Milliseconds(600));
  EXPECT_EQ(fake_->Requests("/bad").size(), 1u);
  auto metrics = Http("GET", absl::StrCat("http://127.0.0.1:", stack_->metrics_port(), "/metrics"));
  EXPECT_NE(metrics.body.find("sluice_notification_messages_total{outcome=\"retried\"}"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("sluice_notification_messages_total{outcome=\"failed\"}"),
            std::string::npos);

  // Always 503: three tries, then failed.
  HttpReceiver("down", "/down", {{"grp", "down"}});
  fake_->SetDefault("/down", {503, "{}"});
  uint64_t n3 = api_.Notify({{"receivers", {{{"grp", "down"}}}}, {"data", {{"k", "v"}}}});
  json m3 = api_.WaitSettled(n3)[0];
  EXPECT_EQ(m3["status"], "failed");
  EXPECT_EQ(m3["try_count"], 3);
  EXPECT_NE(m3["last_error"].get<std::string>().find("after 3 tries"), std::string::npos);
}

TEST_F(NotificationDeliveryTest, UserTemplateAndRenderFailure) {
  HttpReceiver("tmpl", "/tmpl", {{"grp", "tmpl"}});
  ASSERT_EQ(api_.Call("PUT", "/templates",
                      {{"name", "greeting"},
                       {"body", R"({"greeting": "hello {{name}}", "count": {{count}}, )"
                                R"("kind": "{{#receiver.http}}http{{/receiver.http}}"})"},
                       {"variables", {{{"name", "count"}, {"default", "1"}}}}})
                .status,
            200);
  uint64_t n = api_.Notify({{"receivers", {{{"grp", "tmpl"}}}},
                            {"template", "greeting"},
                            {"data", {{"name", "Ann \"the\" admin"}}}});
  EXPECT_EQ(api_.WaitSettled(n)[0]["status"], "published");
  ASSERT_TRUE(fake_->WaitForRequests("/tmpl", 1, absl::Seconds(5)));
  EXPECT_EQ(fake_->Requests("/tmpl")[0].Json(),
            json({{"greeting", "hello Ann \"the\" admin"}, {"count", 1}, {"kind", "http"}}));

  // A value that breaks the JSON (count must be a number): failed with a clear error.
  uint64_t bad = api_.Notify({{"receivers", {{{"grp", "tmpl"}}}},
                              {"template", "greeting"},
                              {"data", {{"name", "x"}, {"count", "not a number"}}}});
  json m = api_.WaitSettled(bad)[0];
  EXPECT_EQ(m["status"], "failed");
  EXPECT_NE(m["last_error"].get<std::string>().find("rendered invalid JSON"), std::string::npos)
      << m.dump();
}

TEST_F(NotificationDeliveryTest, SlackChannelAndUserShapes) {
  fake_->SetDefault("/slack/api/chat.postMessage", {200, R"({"ok":true,"ts":"1.2"})"});
  fake_->SetDefault("/slack/api/users.lookupByEmail",
                    {200, R"({"ok":true,"user":{"id":"U024BE7LH"}})"});
  std::string api_url = fake_->Url("/slack/api");
  api_.CreateReceiver({{"name", "slack-chan"}, {"type", "slack"}, {"labels", {{"grp", "slack"}}},
                       {"configurations", {{"token", "xoxb-chan-token"}, {"channel_name", "#ops"},
                                           {"api_url", api_url}}}});
  api_.CreateReceiver({{"name", "slack-user"}, {"type", "slack"}, {"labels", {{"grp", "slackdm"}}},
                       {"configurations", {{"token", "xoxb-user-token"},
                                           {"channel_name", "ann@example.com"},
                                           {"channel_type", "user"}, {"api_url", api_url}}}});
  uint64_t n = api_.Notify({{"receivers", {{{"grp", "slack"}}, {{"grp", "slackdm"}}}},
                            {"data", {{"text", "deploy finished"}}}});
  for (const auto& m : api_.WaitSettled(n)) EXPECT_EQ(m["status"], "published") << m.dump();

  auto lookups = fake_->Requests("/slack/api/users.lookupByEmail");
  ASSERT_EQ(lookups.size(), 1u);
  EXPECT_EQ(lookups[0].method, "GET");
  EXPECT_EQ(lookups[0].query, "email=ann%40example.com");
  EXPECT_EQ(lookups[0].headers["authorization"], "Bearer xoxb-user-token");

  auto posts = fake_->Requests("/slack/api/chat.postMessage");
  ASSERT_EQ(posts.size(), 2u);
  std::map<std::string, FakeHttpServer::Request> by_channel;
  for (const auto& p : posts) by_channel[p.Json().value("channel", "")] = p;
  ASSERT_TRUE(by_channel.count("#ops"));
  ASSERT_TRUE(by_channel.count("U024BE7LH"));
  auto& chan = by_channel["#ops"];
  EXPECT_EQ(chan.method, "POST");
  EXPECT_EQ(chan.headers["authorization"], "Bearer xoxb-chan-token");
  EXPECT_EQ(chan.headers["content-type"], "application/json; charset=utf-8");
  EXPECT_EQ(chan.Json(), json({{"channel", "#ops"}, {"text", "deploy finished"}}));

  // {"ok": false} is an error (not retried).
  fake_->Script("/slack/api/chat.postMessage", {{200, R"({"ok":false,"error":"channel_not_found"})"}});
  uint64_t n2 = api_.Notify({{"receivers", {{{"grp", "slack"}}}}, {"data", {{"text", "x"}}}});
  json m = api_.WaitSettled(n2)[0];
  EXPECT_EQ(m["status"], "failed");
  EXPECT_NE(m["last_error"].get<std::string>().find("channel_not_found"), std::string::npos);
}

json AlertPayload(const std::string& status, const std::string& team) {
  return json::parse(R"({
    "version": "4", "groupKey": "{}/{team=\")" + team + R"(\"}:{alertname=\"HighLatency\"}",
    "truncatedAlerts": 0, "status": ")" + status + R"(", "receiver": "sluice",
    "groupLabels": {"alertname": "HighLatency"},
    "commonLabels": {"alertname": "HighLatency", "team": ")" + team + R"(", "severity": "critical"},
    "commonAnnotations": {"summary": "p99 above 2s"},
    "externalURL": "http://alertmanager:9093",
    "alerts": [{"status": ")" + status + R"(",
      "labels": {"alertname": "HighLatency", "team": ")" + team + R"(", "severity": "critical", "instance": "api-1"},
      "annotations": {"summary": "p99 above 2s", "runbook_url": "https://runbooks/latency"},
      "startsAt": "2024-05-01T10:00:00.5Z", "endsAt": "0001-01-01T00:00:00Z",
      "generatorURL": "http://prometheus/graph?g0.expr=x", "fingerprint": ")" +
                     (team == "infra" ? std::string("c0ffee") : "f00d-" + team) + R"("}]
  })");
}

TEST_F(NotificationDeliveryTest, AlertHookToHttpSlackAndPagerDuty) {
  fake_->SetDefault("/pd/v2/enqueue", {202, R"({"status":"success","dedup_key":"k"})"});
  fake_->SetDefault("/slk/chat.postMessage", {200, R"({"ok":true})"});
  uint64_t h = HttpReceiver("alert-http", "/alert-http", {{"grp", "alerts"}});
  uint64_t pd = api_.CreateReceiver(
      {{"name", "alert-pd"}, {"type", "pagerduty"},
       {"configurations", {{"service_key", "R0UT1NGKEY"}, {"api_url", fake_->Url("/pd")}}}});
  uint64_t sl = api_.CreateReceiver(
      {{"name", "alert-slack"}, {"type", "slack"},
       {"configurations", {{"token", "xoxb-a"}, {"channel_name", "#alerts"},
                           {"api_url", fake_->Url("/slk")}}}});
  api_.CreateSubscription({{"urn", "alerts-infra"},
                           {"receivers", {{{"id", h}}, {{"id", pd}}, {{"id", sl}}}},
                           {"match", {{"team", "infra"}}}});

  auto r = PostAlert(AlertPayload("firing", "infra"));
  ASSERT_EQ(r.status, 200) << r.body;
  uint64_t n = U64(r.Json()["notification_id"]);
  ASSERT_GT(n, 0u);
  json msgs = api_.WaitSettled(n);
  EXPECT_EQ(ReceiverIds(msgs), (std::set<uint64_t>{h, pd, sl}));
  for (const auto& m : msgs) EXPECT_EQ(m["status"], "published") << m.dump();

  // http: the Alertmanager payload itself.
  json raw = fake_->Requests("/alert-http").at(0).Json();
  EXPECT_EQ(raw["groupKey"], AlertPayload("firing", "infra")["groupKey"]);
  EXPECT_EQ(raw["alerts"][0]["fingerprint"], "c0ffee");
  EXPECT_EQ(raw["alerts"][0]["startsAt"], "2024-05-01T10:00:00.5Z");

  // PagerDuty Events API v2.
  json ev = fake_->Requests("/pd/v2/enqueue").at(0).Json();
  EXPECT_EQ(ev["routing_key"], "R0UT1NGKEY");
  EXPECT_EQ(ev["event_action"], "trigger");
  EXPECT_EQ(ev["dedup_key"], raw["groupKey"]);
  EXPECT_EQ(ev["payload"]["summary"], "HighLatency: p99 above 2s");
  EXPECT_EQ(ev["payload"]["severity"], "critical");
  EXPECT_EQ(ev["payload"]["source"], "alertmanager/prod");
  EXPECT_EQ(ev["payload"]["custom_details"]["groupKey"], raw["groupKey"]);
  EXPECT_EQ(ev["client_url"], "http://alertmanager:9093");

  // Slack: Siren's default alert message (siren_templates/slack.goyaml),
  // as Siren renders it for this alert: its colours and emoji match the
  // severities "CRITICAL"/"WARNING" exactly, so "critical" gets the default.
  json sm = fake_->Requests("/slk/chat.postMessage").at(0).Json();
  EXPECT_EQ(sm["channel"], "#alerts");
  EXPECT_EQ(sm["username"], "Siren");
  EXPECT_EQ(sm["icon_emoji"], ":eagle:");
  json att = sm["attachments"][0];
  EXPECT_EQ(att["pretext"], ":question: (FIRING:1) *(CRITICAL)* HighLatency");
  EXPECT_EQ(att["color"], "#439FE0");
  EXPECT_EQ(att["text"], "p99 above 2s\n");
  EXPECT_EQ(att["actions"][1]["url"], "<no value>");  // no dashboard annotation: Siren prints Go's <no value>

  // Resolved → resolve event, good colour.
  auto res = PostAlert(AlertPayload("resolved", "infra"));
  api_.WaitSettled(U64(res.Json()["notification_id"]));
  EXPECT_EQ(fake_->Requests("/pd/v2/enqueue").at(1).Json()["event_action"], "resolve");
  EXPECT_EQ(fake_->Requests("/slk/chat.postMessage").at(1).Json()["attachments"][0]["color"], "good");

  // No subscription: stored, logged, still OK.
  auto none = PostAlert(AlertPayload("firing", "nobody"));
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(U64(none.Json()["notification_id"]), 0u);

  // One row per alert instance: the resolved resend updated the firing one.
  json alerts = api_.Call("GET", "/alerts/alertmanager/prod").Json()["alerts"];
  ASSERT_EQ(alerts.size(), 2u) << alerts.dump();
  EXPECT_EQ(alerts[0]["fingerprint"], "f00d-nobody");  // same starts_at, newer row
  EXPECT_EQ(alerts[1]["fingerprint"], "c0ffee");
  EXPECT_EQ(alerts[1]["status"], "resolved");
  EXPECT_EQ(alerts[1]["labels"]["instance"], "api-1");
  // Time range on starts_at (2024-05-01T10:00:00Z = 1714557600).
  EXPECT_EQ(api_.Call("GET", "/alerts/alertmanager/prod?start_time=1714557600&end_time=1714557700")
                .Json()["alerts"].size(), 2u);
  EXPECT_EQ(api_.Call("GET", "/alerts/alertmanager/prod?start_time=1714557700").Json()["alerts"].size(),
            0u);
  EXPECT_EQ(api_.Call("GET", "/alerts/alertmanager/staging").Json()["alerts"].size(), 0u);
}

// Queued messages survive a restart: the first server has no workers.
TEST(NotificationRestartTest, QueuedMessagesAreDeliveredAfterRestart) {
  Stack::Options opts;
  opts.config_yaml = "notification:\n  workers: 0\n";
  auto stack = Stack::Start(opts);
  ASSERT_TRUE(stack.ok()) << stack.status();
  auto fake = FakeHttpServer::Start();
  NotificationApi api(stack->get());
  api.CreateReceiver({{"name", "later"}, {"type", "http"}, {"labels", {{"grp", "later"}}},
                      {"configurations", {{"url", fake->Url("/later")}}}});
  std::vector<uint64_t> ids;
  for (int i = 0; i < 5; ++i) {
    ids.push_back(api.Notify({{"receivers", {{{"grp", "later"}}}}, {"data", {{"i", i}}}}));
  }
  absl::SleepFor(absl::Seconds(1));
  EXPECT_EQ(fake->Requests().size(), 0u);
  EXPECT_EQ(api.Messages(ids[0])[0]["status"], "enqueued");

  ASSERT_TRUE(
      (*stack)->RestartServer("notification:\n  workers: 2\n  poll_interval_ms: 100\n").ok());
  for (uint64_t id : ids) EXPECT_EQ(api.WaitSettled(id)[0]["status"], "published");
  EXPECT_EQ(fake->Requests("/later").size(), 5u);
}

}  // namespace
}  // namespace sluice::integration

namespace sluice::integration {
namespace {

// Messages still waiting past message_validity_seconds become `expired`.
TEST(NotificationExpiryTest, UndeliveredMessagesExpire) {
  Stack::Options opts;
  opts.config_yaml = "notification:\n  workers: 0\n  message_validity_seconds: 1\n";
  auto stack = Stack::Start(opts);
  ASSERT_TRUE(stack.ok()) << stack.status();
  auto fake = FakeHttpServer::Start();
  NotificationApi api(stack->get());
  api.CreateReceiver({{"name", "too-late"}, {"type", "http"}, {"labels", {{"grp", "late"}}},
                      {"configurations", {{"url", fake->Url("/late")}}}});
  uint64_t id = api.Notify({{"receivers", {{{"grp", "late"}}}}, {"data", {{"x", 1}}}});
  absl::SleepFor(absl::Milliseconds(1500));
  ASSERT_TRUE(
      (*stack)->RestartServer("notification:\n  workers: 1\n  poll_interval_ms: 100\n").ok());
  nlohmann::json m = api.WaitSettled(id)[0];
  EXPECT_EQ(m["status"], "expired") << m.dump();
  EXPECT_EQ(m["try_count"], 0);
  EXPECT_EQ(m["last_error"], "expired before delivery");
  EXPECT_TRUE(fake->Requests().empty());
}

}  // namespace
}  // namespace sluice::integration
