#include "server/slack/interactions.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http_client.h"
#include "server/slack/request_signature.h"

namespace sluice::slack {
namespace {

using notification::receivers::SlackWebApi;

constexpr char kSecret[] = "a-signing-secret-of-the-acme-app";
constexpr char kTeam[] = "T1";
constexpr char kAppeal[] = "4f1c0d62-6f0e-4a47-9d8e-0b6f2b8c1a11";
const absl::Time kNow = absl::FromUnixSeconds(1800000000);

// Slack's Web API as the tests need it: auth.test names the token's team,
// users.info knows U7 (approver@acme.io); writes are recorded.
class FakeSlack : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& r) override {
    std::string method = r.url.substr(r.url.rfind('/') + 1);
    calls.push_back({method, r.body});
    if (method == "auth.test") return HttpResult{200, nlohmann::json{{"ok", true}, {"team_id", token_team}}.dump()};
    if (method == "users.info") {
      if (!absl::StrContains(r.body, "user=U7")) return HttpResult{200, R"({"ok":false,"error":"user_not_found"})"};
      nlohmann::json user = {{"id", "U7"}, {"profile", nlohmann::json::object()}};
      if (with_email) user["profile"]["email"] = "approver@acme.io";
      return HttpResult{200, nlohmann::json{{"ok", true}, {"user", user}}.dump()};
    }
    return HttpResult{200, R"({"ok":true})"};
  }
  // The JSON bodies sent to `method`.
  std::vector<nlohmann::json> Sent(const std::string& method) const {
    std::vector<nlohmann::json> out;
    for (const auto& [m, body] : calls) {
      if (m == method) out.push_back(nlohmann::json::parse(body));
    }
    return out;
  }
  std::string token_team = kTeam;
  bool with_email = true;
  std::vector<std::pair<std::string, std::string>> calls;
};

// `j` with `key` set to `value`.
nlohmann::json With(nlohmann::json j, const std::string& key, nlohmann::json value) {
  j[key] = std::move(value);
  return j;
}

struct ActCall {
  std::string appeal, step, action, actor, reason;
  nlohmann::json extra;
};

class SlackInteractionsTest : public ::testing::Test {
 protected:
  SlackInteractionsTest() {
    InteractionDeps deps;
    deps.signing_secrets = {{kTeam, kSecret}};
    deps.slack = [this](uint64_t id) -> absl::StatusOr<std::unique_ptr<SlackWebApi>> {
      if (id != 42) return absl::NotFoundError(absl::StrCat("receiver ", id));
      return std::make_unique<SlackWebApi>(&http_, "http://slack.test/api", "xoxb-acme");
    };
    deps.act = [this](const std::string& appeal, const std::string& step, const std::string& action,
                      const std::string& actor, const std::string& reason,
                      const nlohmann::json& extra) -> absl::StatusOr<access::v1beta1::Appeal> {
      acts_.push_back({appeal, step, action, actor, reason, extra});
      if (!act_result_.ok()) return act_result_;
      access::v1beta1::Appeal a;
      a.set_id(appeal);
      a.set_status(action == "approve" ? "approved" : "rejected");
      return a;
    };
    deps.remember = [this](const std::string& signature, absl::Time expires) -> absl::Status {
      EXPECT_GT(expires, kNow);
      if (!seen_.insert(signature).second) return absl::AlreadyExistsError("seen");
      return absl::OkStatus();
    };
    deps.now = [] { return kNow; };
    handler_ = std::make_unique<SlackInteractions>(std::move(deps));
  }

  static nlohmann::json Button(const std::string& action_id) {
    nlohmann::json value = {{"appeal_id", kAppeal}, {"approval_name", "manager"}, {"receiver_id", 42}};
    return {{"type", "block_actions"},
            {"team", {{"id", kTeam}}},
            {"user", {{"id", "U7"}}},
            {"trigger_id", "1.2.abc"},
            {"container", {{"type", "message"}, {"channel_id", "C1"}, {"message_ts", "1.000100"}}},
            {"message",
             {{"text", "You have an appeal"},
              {"blocks",
               {{{"type", "section"}, {"text", {{"type", "mrkdwn"}, {"text", "You have an appeal"}}}},
                {{"type", "actions"}, {"block_id", "sluice_approval"}, {"elements", nlohmann::json::array()}}}}}},
            {"actions", {{{"action_id", action_id}, {"value", value.dump()}}}}};
  }

  // Slack's view_submission of the reject modal with `metadata` and `reason`.
  static nlohmann::json Submission(const nlohmann::json& metadata, const std::string& reason) {
    return {{"type", "view_submission"},
            {"team", {{"id", kTeam}}},
            {"user", {{"id", "U7"}}},
            {"view",
             {{"callback_id", "sluice_reject"},
              {"private_metadata", metadata},
              {"state",
               {{"values",
                 {{"reason", {{"reason", {{"type", "plain_text_input"}, {"value", reason}}}}}}}}}}}};
  }

  static std::string Body(const nlohmann::json& payload) {
    return absl::StrCat("payload=", UrlEscape(payload.dump()));
  }

  // Signs `body` now (or at `at`) with `secret` and hands it to the handler.
  absl::StatusOr<std::string> Post(const std::string& body, absl::Time at = kNow,
                                   const std::string& secret = kSecret) {
    std::string ts = absl::StrCat(absl::ToUnixSeconds(at));
    return handler_->Handle(body, ts, SlackSignature(secret, ts, body));
  }

  FakeSlack http_;
  std::vector<ActCall> acts_;
  absl::Status act_result_ = absl::OkStatus();
  std::set<std::string> seen_;
  std::unique_ptr<SlackInteractions> handler_;
};

TEST_F(SlackInteractionsTest, ApproveActsAsTheUsersSlackEmailAndUpdatesTheMessage) {
  auto r = Post(Body(Button("sluice_approve")));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "");
  ASSERT_EQ(acts_.size(), 1u);
  EXPECT_EQ(acts_[0].appeal, kAppeal);
  EXPECT_EQ(acts_[0].step, "manager");
  EXPECT_EQ(acts_[0].action, "approve");
  EXPECT_EQ(acts_[0].actor, "approver@acme.io");
  EXPECT_EQ(acts_[0].extra, (nlohmann::json{{"via", "slack"}, {"slack_user_id", "U7"}, {"slack_team_id", "T1"}}));
  auto updates = http_.Sent("chat.update");
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0]["channel"], "C1");
  EXPECT_EQ(updates[0]["ts"], "1.000100");
  const auto& blocks = updates[0]["blocks"];
  ASSERT_EQ(blocks.size(), 2u) << blocks;  // the section kept, the buttons replaced
  EXPECT_EQ(blocks[0]["type"], "section");
  EXPECT_EQ(blocks[1]["type"], "context");
  EXPECT_EQ(blocks[1]["elements"][0]["text"],
            "Approved by approver@acme.io via Slack; the appeal is approved");
}

TEST_F(SlackInteractionsTest, RefusesABadSignatureBeforeCallingSlackOrActing) {
  std::string body = Body(Button("sluice_approve"));
  auto r = Post(body, kNow, "another-secret");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnauthenticated);
  // A body changed after signing.
  std::string ts = absl::StrCat(absl::ToUnixSeconds(kNow));
  std::string sig = SlackSignature(kSecret, ts, body);
  std::string tampered = Body(With(Button("sluice_approve"), "user", {{"id", "U8"}}));
  EXPECT_EQ(handler_->Handle(tampered, ts, sig).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(http_.calls.empty());
  EXPECT_TRUE(acts_.empty());
}

TEST_F(SlackInteractionsTest, RefusesAnOldTimestamp) {
  auto r = Post(Body(Button("sluice_approve")), kNow - absl::Minutes(6));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "X-Slack-Request-Timestamp")) << r.status();
  EXPECT_TRUE(acts_.empty());
}

TEST_F(SlackInteractionsTest, RefusesAReplay) {
  std::string body = Body(Button("sluice_approve"));
  std::string ts = absl::StrCat(absl::ToUnixSeconds(kNow));
  std::string sig = SlackSignature(kSecret, ts, body);
  ASSERT_TRUE(handler_->Handle(body, ts, sig).ok());
  auto again = handler_->Handle(body, ts, sig);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(absl::StrContains(again.status().message(), "replay")) << again.status();
  EXPECT_EQ(acts_.size(), 1u);
}

TEST_F(SlackInteractionsTest, RefusesAWorkspaceWithoutASecret) {
  auto r = Post(Body(With(Button("sluice_approve"), "team", {{"id", "T9"}})));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "access.slack_interactions")) << r.status();
}

TEST_F(SlackInteractionsTest, RefusesAReceiverWhoseTokenIsOfAnotherWorkspace) {
  http_.token_team = "T2";
  auto r = Post(Body(Button("sluice_approve")));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(acts_.empty());
}

TEST_F(SlackInteractionsTest, ARefusalIsToldToTheClickingUserOnly) {
  act_result_ = absl::PermissionDeniedError("approver@acme.io is not an approver of step \"manager\"");
  auto r = Post(Body(Button("sluice_approve")));
  ASSERT_TRUE(r.ok()) << r.status();
  auto ephemeral = http_.Sent("chat.postEphemeral");
  ASSERT_EQ(ephemeral.size(), 1u);
  EXPECT_EQ(ephemeral[0]["user"], "U7");
  EXPECT_EQ(ephemeral[0]["channel"], "C1");
  EXPECT_TRUE(absl::StrContains(ephemeral[0]["text"].get<std::string>(), "is not an approver"));
  EXPECT_TRUE(http_.Sent("chat.update").empty());
}

TEST_F(SlackInteractionsTest, ASettledStepSaysSoAndChangesNothing) {
  act_result_ = absl::FailedPreconditionError("approval \"manager\" is approved, not pending");
  ASSERT_TRUE(Post(Body(Button("sluice_approve"))).ok());
  auto ephemeral = http_.Sent("chat.postEphemeral");
  ASSERT_EQ(ephemeral.size(), 1u);
  EXPECT_TRUE(absl::StrContains(ephemeral[0]["text"].get<std::string>(), "is approved, not pending"));
  EXPECT_TRUE(http_.Sent("chat.update").empty());
}

TEST_F(SlackInteractionsTest, WithoutTheEmailScopeNothingIsDone) {
  http_.with_email = false;
  auto r = Post(Body(Button("sluice_approve")));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "users:read.email")) << r.status();
  EXPECT_TRUE(acts_.empty());
}

TEST_F(SlackInteractionsTest, RejectOpensTheReasonModalThenRejectsWithTheReason) {
  ASSERT_TRUE(Post(Body(Button("sluice_reject"))).ok());
  EXPECT_TRUE(acts_.empty());
  auto views = http_.Sent("views.open");
  ASSERT_EQ(views.size(), 1u);
  EXPECT_EQ(views[0]["trigger_id"], "1.2.abc");
  const nlohmann::json& view = views[0]["view"];
  EXPECT_EQ(view["callback_id"], "sluice_reject");
  auto r = Post(Body(Submission(view["private_metadata"], "not <needed>")), kNow + absl::Seconds(10));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "");
  ASSERT_EQ(acts_.size(), 1u);
  EXPECT_EQ(acts_[0].action, "reject");
  EXPECT_EQ(acts_[0].reason, "not <needed>");
  EXPECT_EQ(acts_[0].actor, "approver@acme.io");
  auto updates = http_.Sent("chat.update");
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0]["ts"], "1.000100");
  EXPECT_EQ(updates[0]["blocks"].back()["elements"][0]["text"],
            "Rejected by approver@acme.io via Slack; the appeal is rejected: not &lt;needed&gt;");
  EXPECT_TRUE(absl::StrContains(updates[0]["text"].get<std::string>(), "You have an appeal"));
}

TEST_F(SlackInteractionsTest, ARefusedRejectShowsTheReasonUnderTheField) {
  act_result_ = absl::PermissionDeniedError("approver@acme.io requested or created appeal");
  nlohmann::json meta = {{"appeal_id", kAppeal}, {"approval_name", "manager"}, {"receiver_id", 42},
                         {"channel", "C1"}, {"ts", "1.000100"}};
  auto r = Post(Body(Submission(meta.dump(), "no")));
  ASSERT_TRUE(r.ok()) << r.status();
  auto answer = nlohmann::json::parse(*r);
  EXPECT_EQ(answer["response_action"], "errors");
  EXPECT_TRUE(absl::StrContains(answer["errors"]["reason"].get<std::string>(), "requested or created"));
  EXPECT_TRUE(http_.Sent("chat.update").empty());
}

TEST_F(SlackInteractionsTest, RefusesWhatIsNotSluicesPayload) {
  EXPECT_EQ(Post("text=hello").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Post("payload=%7Bnot").status().code(), absl::StatusCode::kInvalidArgument);
  auto other = Post(Body(Button("somebody_elses")));
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(other.status().message(), "action_id")) << other.status();
  auto shortcut = Post(Body({{"type", "shortcut"}, {"team", {{"id", kTeam}}}}));
  EXPECT_EQ(shortcut.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(acts_.empty());
}

TEST(FormPayload, DecodesPercentAndPlus) {
  auto p = FormPayload("a=1&payload=%7B%22x%22%3A+%22a+b%22%7D&b=2");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, R"({"x": "a b"})");
  EXPECT_FALSE(FormPayload("payloadx=1").ok());
}

}  // namespace
}  // namespace sluice::slack
