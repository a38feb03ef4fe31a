// End to end: slack receivers made from Siren's OAuth configuration and
// slack_channel children (parent_id) deliver through the real server to
// integration/slack_fake (a stateful Slack Web API fake, proven against
// @slack/web-api in //integration/gcp_fake:slack_official_client_test), the
// server pointed at it by notification.slack_api_url.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "integration/notification_helpers.h"
#include "integration/slack_fake/slack_fake_process.h"
#include "integration/suite_stack.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

class NotificationSlackTest : public SuiteStackTest {
 protected:
  static void SetUpTestSuite() {
    auto fake = SlackFake::Start();
    ASSERT_TRUE(fake.ok()) << fake.status();
    slack_ = fake->release();
    StartSuiteStack(absl::StrCat(
        "notification:\n  workers: 1\n  poll_interval_ms: 100\n  retry_backoff_ms: 200\n"
        "  slack_api_url: ",
        slack_->ApiUrl(), "\n"));
  }
  static void TearDownTestSuite() {
    SuiteStackTest::TearDownTestSuite();
    delete slack_;
    slack_ = nullptr;
  }
  void SetUp() override {
    slack_->Reset();
    slack_->Setup({{"apps",
                    {{{"client_id", "cid"}, {"client_secret", "csecret"}, {"code", "code-1"},
                      {"access_token", "xoxb-acme"}, {"team", {{"id", "T1"}, {"name", "acme"}}}}}},
                   {"channels", {{{"id", "C1"}, {"name", "alerts"}}}}});
  }
  static SlackFake* slack_;
  NotificationApi api_{stack_};
};

SlackFake* NotificationSlackTest::slack_ = nullptr;

TEST_F(NotificationSlackTest, OAuthParentAndChannelChildDeliverWithTheExchangedToken) {
  // A wrong code: Slack's refusal, nothing stored.
  auto bad = api_.Call("POST", "/receivers",
                       {{"name", "ws-bad"}, {"type", "slack"},
                        {"configurations",
                         {{"client_id", "cid"}, {"client_secret", "csecret"}, {"auth_code", "nope"}}}});
  ExpectError(bad, 9, "slack oauth.v2.access: invalid_code");

  uint64_t parent = api_.CreateReceiver(
      {{"name", "ws"}, {"type", "slack"},
       {"configurations",
        {{"client_id", "cid"}, {"client_secret", "csecret"}, {"auth_code", "code-1"}}}});
  ASSERT_NE(parent, 0u);
  json got = api_.Call("GET", absl::StrCat("/receivers/", parent)).Json()["receiver"];
  EXPECT_EQ(got["configurations"], json({{"token", "*****"}, {"workspace", "acme"}})) << got;
  EXPECT_EQ(slack_->State()["exchanged"].size(), 1u);

  // slack_channel needs a slack parent.
  ExpectError(api_.Call("POST", "/receivers",
                        {{"name", "ch0"}, {"type", "slack_channel"},
                         {"configurations", {{"channel_name", "alerts"}}}}),
              3, "parent_id");
  uint64_t child = api_.CreateReceiver({{"name", "ch"}, {"type", "slack_channel"},
                                        {"parent_id", std::to_string(parent)},
                                        {"labels", {{"team", "ops"}}},
                                        {"configurations", {{"channel_name", "alerts"}}}});
  ASSERT_NE(child, 0u);
  json child_got = api_.Call("GET", absl::StrCat("/receivers/", child)).Json()["receiver"];
  EXPECT_EQ(U64(child_got["parent_id"]), parent) << child_got;

  // A rate limit first (HTTP 429 + Retry-After): retried, then delivered.
  slack_->Fail({{"method", "chat.postMessage"}, {"status", 429}, {"retry_after", 0}});
  uint64_t n = api_.Notify({{"receivers", {{{"team", "ops"}}}}, {"data", {{"text", "disk full"}}}});
  json msgs = api_.WaitSettled(n);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0]["status"], "published") << msgs.dump();
  json state = slack_->State();
  ASSERT_EQ(state["messages"].size(), 1u) << state.dump();
  EXPECT_EQ(state["messages"][0]["channel"], "C1");
  EXPECT_EQ(state["messages"][0]["team"], "acme");  // sent with the exchanged token
  EXPECT_EQ(state["messages"][0]["text"], "disk full");
  int posts = 0;
  for (const auto& c : state["calls"]) posts += c["method"] == "chat.postMessage";
  EXPECT_EQ(posts, 2);
}

}  // namespace
}  // namespace sluice::integration
