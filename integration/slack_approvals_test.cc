// Approve or reject from Slack, end to end (issue 44): sluice-server and
// sluice-gateway, the Slack Web API fake (integration/slack_fake, proven
// against @slack/web-api) and a Grafana fake as the provider. An appeal's
// approver notification reaches the approver's Slack DM with Approve and
// Reject buttons; the test then plays Slack: it POSTs the interaction
// payload Slack would send to the gateway's /slack/interactions, signed
// with the Slack app's signing secret (server/slack:request_signature, the
// scheme @slack/bolt's verifySlackRequest accepts in
// //integration/gcp_fake:slack_signing_test).
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/http_client.h"
#include "integration/grafana_access.h"
#include "integration/harness.h"
#include "integration/slack_fake/slack_fake_process.h"
#include "nlohmann/json.hpp"
#include "server/access/providers/grafana/testing/fake_grafana.h"
#include "server/slack/request_signature.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kApprover[] = "approver@example.com";
constexpr char kAlice[] = "alice@example.com";  // requests, and is a listed approver too
constexpr char kOther[] = "other@example.com";
constexpr char kSecret[] = "8f742231b10e8888abcd99yyyzzz85a5";

class SlackApprovalsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fake = SlackFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    slack_ = std::move(*fake);
    slack_->Setup({{"tokens", {{{"access_token", "xoxb-acme"}, {"team", {{"id", "T1"}, {"name", "acme"}}}}}},
                   {"users",
                    {{{"id", "U7"}, {"email", kApprover}},
                     {{"id", "U9"}, {"email", kAlice}},
                     {{"id", "U8"}, {"email", kOther}}}},
                   {"triggers", {{{"trigger_id", "trigger-1"}, {"user", "U7"}, {"expires_ms", 600000}}}}});
    grafana_ = access::testing::FakeGrafana::Start("admin@localhost", "password", "unused");
    ASSERT_NE(grafana_, nullptr);
    std::string folder = grafana_->AddFolder("Ops");
    for (const char* name : {"CPU", "Memory"}) dashboards_.push_back(grafana_->AddDashboard(name, folder));
    grafana_->AddUser(kAlice);
    Stack::Options opts;
    opts.config_yaml = absl::StrCat(
        "access:\n  slack_interactions:\n    - team_id: T1\n      signing_secret_env: "
        "SLACK_SIGNING_SECRET\n  notifications:\n    poll_interval: 100ms\n"
        "notification:\n  workers: 1\n  poll_interval_ms: 100\n  slack_api_url: ",
        slack_->ApiUrl(), "\n");
    opts.server_env = {{"SLACK_SIGNING_SECRET", kSecret}};
    auto stack = Stack::Start(opts);
    ASSERT_TRUE(stack.ok()) << stack.status();
    stack_ = std::move(*stack);
    // The approver's DM: a slack receiver found by the approver's email.
    auto receiver = Http("POST", absl::StrCat(stack_->http_base(), "/v1beta1/receivers"),
                         json{{"name", "approver-dm"},
                              {"type", "slack"},
                              {"labels", {{"email", kApprover}}},
                              {"configurations",
                               {{"token", "xoxb-acme"},
                                {"channel_name", kApprover},
                                {"channel_type", "user"}}}}
                             .dump(),
                         {"X-Auth-Email: admin@example.com"});
    ASSERT_EQ(receiver.status, 200) << receiver.body;
    GrafanaAccess setup =
        GrafanaDashboardAccess("slack", "grafana-slack", grafana_->url(), {kApprover, kAlice});
    ASSERT_EQ(Call("POST", "/policies", setup.policy).status, 200);
    auto pr = Call("POST", "/providers", setup.provider);
    ASSERT_EQ(pr.status, 200) << pr.body;
    auto rs = Call("GET", "/resources?provider_urn=grafana-slack&type=dashboard");
    ASSERT_EQ(rs.status, 200) << rs.body;
    json listed = rs.Json();
    for (const auto& r : listed["resources"]) {
      resources_[r["name"].get<std::string>()] = r["id"].get<std::string>();
    }
    ASSERT_EQ(resources_.size(), 2u) << rs.body;
  }

  HttpResponse Call(const std::string& method, const std::string& path, const json& body = nullptr,
                    const std::string& as = kAlice) {
    return Http(method, absl::StrCat(stack_->http_base(), "/api/v1beta1", path),
                body.is_null() ? "" : body.dump(), {"X-Auth-Email: " + as});
  }

  // Alice appeals for dashboard `name`; returns the appeal id.
  std::string Appeal(const std::string& name) {
    auto a = Call("POST", "/appeals",
                  json{{"resources", {{{"id", resources_[name]}, {"role", "viewer"}}}}});
    EXPECT_EQ(a.status, 200) << a.body;
    return a.status == 200 ? a.Json()["appeals"][0]["id"].get<std::string>() : "";
  }

  // The approver's Slack message about `appeal_id` once delivered.
  json MessageAbout(const std::string& appeal_id) {
    json found;
    EXPECT_TRUE(WaitFor(
        [&] {
          json state = slack_->State();  // the loop's range must outlive it
          for (const auto& m : state["messages"]) {
            if (m["text"].is_string() && absl::StrContains(m["text"].get<std::string>(), appeal_id)) {
              found = m;
              return true;
            }
          }
          return false;
        },
        absl::Seconds(20)))
        << slack_->State().dump();
    return found;
  }

  // The button `action_id` of `message`.
  static json ButtonOf(const json& message, const std::string& action_id) {
    if (!message.contains("blocks") || !message["blocks"].is_array()) return nullptr;
    for (const auto& b : message["blocks"]) {
      if (b["type"] != "actions") continue;
      for (const auto& e : b["elements"]) {
        if (e["action_id"] == action_id) return e;
      }
    }
    return nullptr;
  }

  // The block_actions payload Slack sends when `user` clicks `action_id`.
  static json Click(const json& message, const std::string& action_id, const std::string& user,
                    const std::string& trigger = "trigger-unused") {
    json button = ButtonOf(message, action_id);
    return {{"type", "block_actions"},
            {"team", {{"id", "T1"}, {"domain", "acme"}}},
            {"user", {{"id", user}, {"team_id", "T1"}}},
            {"api_app_id", "A1"},
            {"trigger_id", trigger},
            {"container",
             {{"type", "message"}, {"message_ts", message["ts"]}, {"channel_id", message["channel"]}}},
            {"channel", {{"id", message["channel"]}}},
            {"message", {{"type", "message"}, {"text", message["text"]}, {"blocks", message["blocks"]},
                         {"ts", message["ts"]}}},
            {"actions",
             {{{"type", "button"}, {"action_id", action_id}, {"block_id", "sluice_approval"},
               {"value", button.is_null() ? json("") : button["value"]}}}}};
  }

  // POSTs `payload` to /slack/interactions as Slack does, signed at `at`.
  HttpResponse Post(const json& payload, absl::Time at = absl::Now(),
                    const std::string& secret = kSecret,
                    const std::string& content_type = "application/x-www-form-urlencoded") {
    std::string body = absl::StrCat("payload=", UrlEscape(payload.dump()));
    std::string ts = absl::StrCat(absl::ToUnixSeconds(at));
    return PostSigned(body, ts, slack::SlackSignature(secret, ts, body), content_type);
  }
  HttpResponse PostSigned(const std::string& body, const std::string& ts, const std::string& sig,
                          const std::string& content_type = "application/x-www-form-urlencoded") {
    return Http("POST", absl::StrCat(stack_->http_base(), "/slack/interactions"), body,
                {"Content-Type: " + content_type, "X-Slack-Request-Timestamp: " + ts,
                 "X-Slack-Signature: " + sig});
  }

  std::string AppealStatus(const std::string& id) {
    return Call("GET", "/appeals/" + id).Json()["appeal"]["status"].get<std::string>();
  }

  // The ephemeral answers the fake recorded for `user`.
  std::vector<std::string> EphemeralTo(const std::string& user) {
    std::vector<std::string> out;
    json state = slack_->State();
    for (const auto& e : state["ephemeral"]) {
      if (e["user"] == user) out.push_back(e["text"]);
    }
    return out;
  }

  int AuditRows(const std::string& action, const std::string& actor, const std::string& slack_user) {
    soci::session sql(soci::postgresql, stack_->database().dsn());
    int rows = 0;
    sql << "SELECT count(*) FROM audit_logs WHERE action = :a AND actor = :u AND "
           "data->>'via' = 'slack' AND data->>'slack_user_id' = :s",
        soci::use(action), soci::use(actor), soci::use(slack_user), soci::into(rows);
    return rows;
  }

  std::unique_ptr<SlackFake> slack_;
  std::unique_ptr<access::testing::FakeGrafana> grafana_;
  std::vector<int> dashboards_;
  std::unique_ptr<Stack> stack_;
  std::map<std::string, std::string> resources_;
};

TEST_F(SlackApprovalsTest, ApproveFromSlackGrantsAndUpdatesTheMessage) {
  std::string id = Appeal("CPU");
  ASSERT_FALSE(id.empty());
  json message = MessageAbout(id);
  ASSERT_FALSE(message.is_null());
  json approve = ButtonOf(message, "sluice_approve");
  ASSERT_FALSE(approve.is_null()) << message.dump();
  ASSERT_FALSE(ButtonOf(message, "sluice_reject").is_null()) << message.dump();
  // The button names the appeal, the step and the receiver; nothing secret.
  json value = json::parse(approve["value"].get<std::string>());
  EXPECT_EQ(value["appeal_id"], id);
  EXPECT_EQ(value["approval_name"], "approver");
  EXPECT_FALSE(absl::StrContains(message.dump(), "xoxb-acme"));

  auto r = Post(Click(message, "sluice_approve", "U7"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(AppealStatus(id), "approved");
  EXPECT_TRUE(WaitFor([&] { return grafana_->Level(grafana_->DashboardUid(dashboards_[0]), kAlice) > 0; },
                      absl::Seconds(15)));
  json updates = slack_->State()["updates"];
  ASSERT_EQ(updates.size(), 1u) << updates.dump();
  EXPECT_EQ(updates[0]["ts"], message["ts"]);
  EXPECT_TRUE(absl::StrContains(updates[0].dump(), "Approved by approver@example.com via Slack"))
      << updates.dump();
  EXPECT_TRUE(ButtonOf(updates[0], "sluice_approve").is_null()) << "the buttons are gone";
  EXPECT_EQ(AuditRows("appeal.approve", kApprover, "U7"), 1);

  // A second click on the settled step says so and changes nothing.
  r = Post(Click(message, "sluice_approve", "U7"), absl::Now() + absl::Seconds(1));
  ASSERT_EQ(r.status, 200) << r.body;
  auto told = EphemeralTo("U7");
  ASSERT_EQ(told.size(), 1u);
  EXPECT_TRUE(absl::StrContains(told[0], "not pending")) << told[0];
  EXPECT_EQ(slack_->State()["updates"].size(), 1u);
  EXPECT_EQ(AuditRows("appeal.approve", kApprover, "U7"), 1);
}

TEST_F(SlackApprovalsTest, RefusesBadSignaturesOldTimestampsReplaysAndOtherContentTypes) {
  std::string id = Appeal("CPU");
  json message = MessageAbout(id);
  ASSERT_FALSE(message.is_null());
  json click = Click(message, "sluice_approve", "U7");
  // Signed with another secret.
  auto bad = Post(click, absl::Now(), "another-secret-another-secret-00");
  EXPECT_EQ(bad.status, 401) << bad.body;
  EXPECT_TRUE(absl::StrContains(bad.body, "X-Slack-Signature")) << bad.body;
  // Tampered after signing: another user in the body.
  std::string body = absl::StrCat("payload=", UrlEscape(click.dump()));
  std::string ts = absl::StrCat(absl::ToUnixSeconds(absl::Now()));
  std::string sig = slack::SlackSignature(kSecret, ts, body);
  json other = click;
  other["user"]["id"] = "U8";
  EXPECT_EQ(PostSigned(absl::StrCat("payload=", UrlEscape(other.dump())), ts, sig).status, 401);
  // Six minutes old.
  auto old = Post(click, absl::Now() - absl::Minutes(6));
  EXPECT_EQ(old.status, 401) << old.body;
  EXPECT_TRUE(absl::StrContains(old.body, "X-Slack-Request-Timestamp")) << old.body;
  // JSON is not what Slack posts: refused before the server.
  EXPECT_EQ(Post(click, absl::Now(), kSecret, "application/json").status, 415);
  EXPECT_EQ(AppealStatus(id), "pending");
  // The genuine request once, then its replay.
  ASSERT_EQ(PostSigned(body, ts, sig).status, 200);
  EXPECT_EQ(AppealStatus(id), "approved");
  auto replay = PostSigned(body, ts, sig);
  EXPECT_EQ(replay.status, 401) << replay.body;
  EXPECT_TRUE(absl::StrContains(replay.body, "replay")) << replay.body;
}

TEST_F(SlackApprovalsTest, OnlyAListedApproverWhoDidNotAskMayAct) {
  std::string id = Appeal("CPU");
  json message = MessageAbout(id);
  ASSERT_FALSE(message.is_null());
  // other@example.com is not an approver of the step.
  ASSERT_EQ(Post(Click(message, "sluice_approve", "U8")).status, 200);
  auto told = EphemeralTo("U8");
  ASSERT_EQ(told.size(), 1u);
  EXPECT_TRUE(absl::StrContains(told[0], "is not an approver")) << told[0];
  // alice is listed, but asked for the access herself.
  ASSERT_EQ(Post(Click(message, "sluice_approve", "U9"), absl::Now() + absl::Seconds(1)).status, 200);
  told = EphemeralTo("U9");
  ASSERT_EQ(told.size(), 1u);
  EXPECT_TRUE(absl::StrContains(told[0], "requested or created")) << told[0];
  EXPECT_EQ(AppealStatus(id), "pending");
  EXPECT_TRUE(slack_->State()["updates"].empty());
}

TEST_F(SlackApprovalsTest, RejectAsksForAReasonInAModal) {
  std::string id = Appeal("Memory");
  json message = MessageAbout(id);
  ASSERT_FALSE(message.is_null());
  ASSERT_EQ(Post(Click(message, "sluice_reject", "U7", "trigger-1")).status, 200);
  EXPECT_EQ(AppealStatus(id), "pending");
  json views = slack_->State()["views"];
  ASSERT_EQ(views.size(), 1u) << slack_->State().dump();
  json view = views[0]["view"];
  EXPECT_EQ(view["callback_id"], "sluice_reject");
  // Slack's view_submission when the approver submits a reason.
  json submission = {
      {"type", "view_submission"},
      {"team", {{"id", "T1"}, {"domain", "acme"}}},
      {"user", {{"id", "U7"}, {"team_id", "T1"}}},
      {"view",
       {{"id", "V1"},
        {"type", "modal"},
        {"callback_id", "sluice_reject"},
        {"private_metadata", view["private_metadata"]},
        {"state",
         {{"values",
           {{"reason", {{"reason", {{"type", "plain_text_input"}, {"value", "not needed"}}}}}}}}}}}};
  auto r = Post(submission, absl::Now() + absl::Seconds(1));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(AppealStatus(id), "rejected");
  auto appeal = Call("GET", "/appeals/" + id).Json()["appeal"];
  EXPECT_EQ(appeal["approvals"][0]["reason"], "not needed") << appeal.dump();
  json updates = slack_->State()["updates"];
  ASSERT_EQ(updates.size(), 1u) << updates.dump();
  EXPECT_EQ(updates[0]["ts"], message["ts"]);
  EXPECT_TRUE(absl::StrContains(updates[0].dump(), "Rejected by approver@example.com via Slack"))
      << updates.dump();
  EXPECT_EQ(AuditRows("appeal.reject", kApprover, "U7"), 1);
}

}  // namespace
}  // namespace sluice::integration
