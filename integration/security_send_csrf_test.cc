// The reproductions of findings F-M1 and F-M2 of the security review round 2
// (shared/reviews/security-2026-11-r2.md), replayed through the real gateway
// against a real sluice-server:
//   F-M1  any authenticated user could POST /notifications: page every
//         PagerDuty service, phish approvers with the access-* templates,
//         forge access events through the `event` label
//   F-M2  a browser-shaped text/plain form post (CSRF behind a cookie-based
//         auth proxy) recorded an approval as the victim's
#include <gtest/gtest.h>

#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "integration/appeal_fixture.h"
#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kEve[] = "eve@example.com";              // a plain user
constexpr char kSender[] = "ci@example.com";            // in notification.senders
constexpr char kNotifyAdmin[] = "tester@example.com";   // in notification.admins
constexpr char kOwner[] = "owner@example.com";          // the approver of Setup()'s resource
constexpr char kAllowedOrigin[] = "https://ui.example.com";

class SendAndCsrfTest : public AppealTest {
 protected:
  static void SetUpTestSuite() {
    Stack::Options opts;
    opts.config_yaml = absl::StrCat("notification:\n  senders: [", kSender,
                                    "]\n  workers: 1\n  poll_interval_ms: 100\n");
    opts.gateway_args = {absl::StrCat("--allowed_origins=", kAllowedOrigin)};
    auto stack = Stack::Start(opts);
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = std::move(*stack).release();
  }
  void SetUp() override {
    fake_ = FakeHttpServer::Start();
    ASSERT_NE(fake_, nullptr);
  }
  // POST /notifications as `who`.
  static HttpResponse Send(const std::string& who, const json& body) {
    return Call("POST", "/notifications", body, who);
  }
  // POST /receivers as a notification admin; returns the id.
  static std::string Receiver(const json& body) {
    auto r = Call("POST", "/receivers", body, kNotifyAdmin);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.Json().value("id", "");
  }
  std::unique_ptr<FakeHttpServer> fake_;
};

// The review's reproduction: Eve pages every PagerDuty service and DMs an
// approver with the official access-appeal-created wording.
TEST_F(SendAndCsrfTest, FM1_PlainUserMayNotSendNotifications) {
  Receiver({{"name", "pd-db"}, {"type", "pagerduty"},
            {"configurations", {{"routing_key", "r0utingkey"}, {"api_url", fake_->Url("")}}}});
  Receiver({{"name", "owner-dm"}, {"type", "http"}, {"labels", {{"email", kOwner}}},
            {"configurations", {{"url", fake_->Url("/owner")}}}});
  auto page = Send(kEve, json::parse(R"({"receivers":[{"type":"pagerduty"}],
      "data":{"event_action":"trigger","payload":{"summary":"prod-db primary down",
      "source":"db","severity":"critical"}}})"));
  ExpectCode(page, 403, 7, "notification.senders");
  auto phish = Send(kEve, json::parse(R"j({"receivers":[{"email":"owner@example.com"}],
      "template":"access-appeal-created","data":{"requestor":"cto@example.com",
      "resource_name":"team-wiki (noop: wiki)","role":"viewer","appeal_id":"42"}})j"));
  ExpectCode(phish, 403, 7);
  absl::SleepFor(absl::Milliseconds(500));  // workers poll every 100 ms
  EXPECT_TRUE(fake_->Requests().empty());
}

TEST_F(SendAndCsrfTest, FM1_ConfiguredSenderSendsAndAllowedSendersNarrow) {
  std::string ci = Receiver({{"name", "ci-hook"}, {"type", "http"}, {"labels", {{"team", "ci"}}},
                             {"configurations", {{"url", fake_->Url("/ci")}}}});
  std::string pager =
      Receiver({{"name", "sre-pager"}, {"type", "http"}, {"labels", {{"team", "sre"}}},
                {"allowed_senders", {"sre-bot@example.com"}},
                {"configurations", {{"url", fake_->Url("/sre")}}}});
  EXPECT_EQ(Send(kSender, {{"receivers", {{{"team", "ci"}}}}, {"data", {{"build", 7}}}}).status, 200);

  // The receiver's allowed_senders narrow notification.senders ...
  ExpectCode(Send(kSender, {{"receivers", {{{"team", "sre"}}}}, {"data", json::object()}}), 403, 7,
             "receiver " + pager + " (sre-pager)");
  // ... and so do a subscription's, for what reaches a receiver through it.
  auto sub = Call("POST", "/subscriptions",
                  {{"urn", "sre-route"}, {"receivers", {{{"id", ci}}}}, {"match", {{"route", "sre"}}},
                   {"allowed_senders", {"sre-bot@example.com"}}},
                  kNotifyAdmin);
  ASSERT_EQ(sub.status, 200) << sub.body;
  ExpectCode(Send(kSender, {{"labels", {{"route", "sre"}}}, {"data", json::object()}}), 403, 7,
             "subscription sre-route");
  // Notification admins may always send.
  EXPECT_EQ(Send(kNotifyAdmin, {{"receivers", {{{"team", "sre"}}}}, {"data", json::object()}}).status,
            200);
  EXPECT_EQ(Send(kNotifyAdmin, {{"labels", {{"route", "sre"}}}, {"data", json::object()}}).status,
            200);

  // The lists are read back, and validated.
  EXPECT_EQ(Call("GET", "/receivers/" + pager, nullptr, kEve).Json()["receiver"]["allowed_senders"],
            json({"sre-bot@example.com"}));
  std::string sid = sub.Json().value("id", "");
  EXPECT_EQ(Call("GET", "/subscriptions/" + sid, nullptr, kEve)
                .Json()["subscription"]["allowed_senders"],
            json({"sre-bot@example.com"}));
  ExpectCode(Call("POST", "/receivers",
                  {{"name", "bad"}, {"type", "http"}, {"allowed_senders", {""}},
                   {"configurations", {{"url", fake_->Url("/x")}}}},
                  kNotifyAdmin),
             400, 3, "allowed_senders");
}

// access-* and system-* templates and the `event` label belong to the
// access module's system sender: not even notification admins use them.
TEST_F(SendAndCsrfTest, FM1_ReservedTemplatesAndEventLabel) {
  Receiver({{"name", "res-hook"}, {"type", "http"}, {"labels", {{"team", "res"}}},
            {"configurations", {{"url", fake_->Url("/res")}}}});
  for (const std::string who : {kNotifyAdmin, kSender}) {
    ExpectCode(Send(who, {{"receivers", {{{"team", "res"}}}}, {"template", "access-appeal-created"},
                          {"data", {{"appeal_id", "1"}}}}),
               403, 7, "template \"access-appeal-created\"");
    ExpectCode(Send(who, {{"receivers", {{{"team", "res"}}}}, {"template", "system-alert-pagerduty"},
                          {"data", json::object()}}),
               403, 7, "template \"system-alert-pagerduty\"");
    ExpectCode(Send(who, {{"receivers", {{{"team", "res"}}}},
                          {"labels", {{"event", "appeal.approved"}}}, {"data", json::object()}}),
               403, 7, "label \"event\"");
  }
}

// Bad sender settings stop the server at start, naming the key.
TEST_F(SendAndCsrfTest, FM1_BadSenderSettingsRefuseToStart) {
  const std::pair<const char*, const char*> cases[] = {
      {"senders: ci@example.com", "notification.senders"},
      {"senders: [\"\"]", "notification.senders"},
      {"sender_groups: [\"*\"]", "notification.sender_groups"},
      {"sendres: [ci@example.com]", "notification.sendres"}};
  int n = 0;
  for (const auto& [setting, key] : cases) {
    std::string path = TempPath(absl::StrCat("bad-senders-", ++n, ".yaml"));
    std::ofstream(path) << "auth:\n  mode: header\n  header:\n    proxy_token_env: SLUICE_PROXY_TOKEN\n"
                        << "notification:\n  " << setting << "\n";
    auto p = Process::Start(
        {Runfile("server/sluice-server"), "--config", path, "job", "run", "cleanup_queue"},
        {{"SLUICE_DB_DSN", stack_->database().dsn()},
         {"SLUICE_PROXY_TOKEN", "a-proxy-token-of-some-length"},
         {"SLUICE_ENCRYPTION_KEY", std::string(64, 'a')}});
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_NE((*p)->Wait(absl::Seconds(30)), 0) << setting;
    EXPECT_NE((*p)->Output().find(key), std::string::npos) << setting << ": " << (*p)->Output();
  }
}

// The review's CSRF page: <form enctype=text/plain> posting
// {"action":"approve","reason":"lgtm","x":"="} to the victim's approval.
TEST_F(SendAndCsrfTest, FM2_BrowserFormPostsAndCrossOriginWritesAreRefused) {
  std::string rid = Setup("csrf", TwoStep(), kOwner);
  auto created = Appeal(rid, "viewer", "", "bob@example.com");
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["appeals"][0]["id"];
  std::string url = absl::StrCat(stack_->http_base(), "/api/v1beta1/appeals/", id, "/approvals/owner");
  const std::string form = R"({"action":"approve","reason":"lgtm","x":"="})";
  const std::string as_owner = absl::StrCat("X-Auth-Email: ", kOwner);

  auto plain = Http("POST", url, form, {as_owner, "Content-Type: text/plain"});
  ExpectCode(plain, 415, 3, "text/plain");
  EXPECT_NE(plain.Json().value("message", "").find("application/json"), std::string::npos)
      << plain.body;
  // curl -d's default.
  ExpectCode(Http("POST", url, form, {as_owner, "Content-Type: application/x-www-form-urlencoded"}),
             415, 3, "application/x-www-form-urlencoded");
  ExpectCode(Http("POST", url, form, {as_owner, "Content-Type: multipart/form-data; boundary=x"}),
             415, 3);
  // JSON from a foreign page: the Origin, or Sec-Fetch-Site without one.
  ExpectCode(Http("POST", url, form, {as_owner, "Origin: https://evil.example"}), 403, 7,
             "https://evil.example");
  ExpectCode(Http("POST", url, form, {as_owner, "Sec-Fetch-Site: cross-site"}), 403, 7,
             "cross-site");
  ExpectCode(Http("POST", url, form,
                  {as_owner, "Origin: https://evil.example", "Content-Type: text/plain"}),
             403, 7);

  // Nothing was recorded.
  json appeal = Call("GET", "/appeals/" + id).Json()["appeal"];
  EXPECT_EQ(appeal["approvals"][0]["status"], "pending") << appeal.dump();
  // Reads from elsewhere are not writes: still answered.
  EXPECT_EQ(Http("GET", absl::StrCat(stack_->http_base(), "/api/v1beta1/appeals/", id),
                 "", {"X-Auth-Email: alice@example.com", "Origin: https://evil.example",
                      "Sec-Fetch-Site: cross-site"}).status,
            200);

  // The allowed origin, with a charset, approves, once the body is the
  // route's own (strict requests refuse the form trick's padding field "x").
  ExpectCode(Http("POST", url, form,
                  {as_owner, absl::StrCat("Origin: ", kAllowedOrigin),
                   "Content-Type: application/json; charset=utf-8"}),
             400, 3, R"(unknown field "x" in UpdateApprovalRequest)");
  auto ok = Http("POST", url, R"({"action":"approve","reason":"lgtm"})",
                 {as_owner, absl::StrCat("Origin: ", kAllowedOrigin), "Sec-Fetch-Site: cross-site",
                  "Content-Type: application/json; charset=utf-8"});
  ASSERT_EQ(ok.status, 200) << ok.body;
  appeal = Call("GET", "/appeals/" + id).Json()["appeal"];
  EXPECT_EQ(appeal["approvals"][0]["status"], "approved") << appeal.dump();
  EXPECT_EQ(appeal["approvals"][0]["actor"], kOwner);
}

}  // namespace
}  // namespace sluice::integration
