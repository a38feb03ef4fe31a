// Receiver type "slack" against a fake HTTP client.
#include "server/notification/receivers/slack/slack_receiver.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/testing/fake_http.h"

namespace sluice::notification::receivers {
namespace {

using nlohmann::json;
using receiver_testing::FakeHttp;

class SlackReceiverTest : public ::testing::Test {
 protected:
  ReceiverPlugin& P() { return *plugin_; }
  FakeHttp http_;
  std::unique_ptr<ReceiverPlugin> plugin_ = SlackReceiver::Create(ReceiverContext{&http_, {}});
};

TEST_F(SlackReceiverTest, SlackShapesAndOkFalse) {
  EXPECT_NE(P().ValidateConfig({{"token", "t"}}).message().find("channel_name"),
            std::string::npos);
  EXPECT_FALSE(P().ValidateConfig({{"token", "t"}, {"channel_name", "c"}, {"channel_type", "dm"}}).ok());
  json cfg = {{"token", "xoxb-1"}, {"channel_name", "me@x.io"}, {"channel_type", "user"},
              {"api_url", "http://slack/api/"}};
  http_.replies = {HttpResult{200, R"({"ok":true,"user":{"id":"U1"}})"}, HttpResult{200, R"({"ok":true})"}};
  ASSERT_TRUE(P().Send(cfg, {{"text", "hi"}}).ok());
  ASSERT_EQ(http_.requests.size(), 2u);
  EXPECT_EQ(http_.requests[0].method, "GET");
  EXPECT_EQ(http_.requests[0].url, "http://slack/api/users.lookupByEmail?email=me%40x.io");
  EXPECT_EQ(http_.requests[1].url, "http://slack/api/chat.postMessage");
  EXPECT_EQ(http_.requests[1].headers,
            (std::vector<std::string>{"Authorization: Bearer xoxb-1",
                                      "Content-Type: application/json; charset=utf-8"}));
  EXPECT_EQ(json::parse(http_.requests[1].body), json({{"channel", "U1"}, {"text", "hi"}}));

  json chan = {{"token", "xoxb-1"}, {"channel_name", "#c"}, {"api_url", "http://slack/api"}};
  http_.replies = {HttpResult{200, R"({"ok":false,"error":"not_in_channel"})"},
                   HttpResult{200, R"({"ok":false,"error":"ratelimited"})"}};
  absl::Status st = P().Send(chan, {{"other", 1}});
  EXPECT_FALSE(IsRetryable(st));
  EXPECT_EQ(st.message(), "slack chat.postMessage: not_in_channel");
  // A payload without text/blocks/attachments is sent as text.
  EXPECT_EQ(json::parse(http_.requests.back().body)["text"], R"({"other":1})");
  EXPECT_TRUE(IsRetryable(P().Send(chan, {{"text", "x"}})));

  // api_url must be an http(s) URL (C4).
  absl::Status file_url = P().ValidateConfig(
      {{"token", "x"}, {"channel_name", "y"}, {"api_url", "file:///proc/self/environ#"}});
  EXPECT_EQ(file_url.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(file_url.message().find("configurations.api_url"), std::string::npos) << file_url;
  EXPECT_FALSE(P().ValidateConfig({{"token", "x"}, {"channel_name", "y"}, {"api_url", 5}}).ok());
  EXPECT_FALSE(P().ValidateConfig({{"token", "x"}, {"channel_name", "y"}, {"channel_type", 5}}).ok());
}

TEST_F(SlackReceiverTest, SlackNeverEchoesBodiesAndSurvivesOddReplies) {
  json chan = {{"token", "xoxb-1"}, {"channel_name", "#c"}, {"api_url", "http://slack/api"}};
  json user = {{"token", "xoxb-1"}, {"channel_name", "me@x.io"}, {"channel_type", "user"},
               {"api_url", "http://slack/api"}};
  // A non-2xx body (e.g. a local file read through file://) is never repeated.
  http_.replies = {HttpResult{500, "SLUICE_DB_DSN=host=db password=hunter2"}};
  absl::Status st = P().Send(chan, {{"text", "x"}});
  EXPECT_EQ(st.message(), "slack chat.postMessage: HTTP 500");
  // Slack's error code is repeated only when it is a short [a-z_] token.
  http_.replies = {HttpResult{200, R"({"ok":false,"error":"SLUICE_DB_DSN=host=db password=x"})"},
                   HttpResult{200, absl::StrCat(R"({"ok":false,"error":")", std::string(65, 'a'),
                                                R"("})")},
                   HttpResult{200, R"({"ok":false,"error":7})"}};
  EXPECT_EQ(P().Send(chan, {{"text", "x"}}).message(),
            "slack chat.postMessage: unrecognised_error");
  EXPECT_EQ(P().Send(chan, {{"text", "x"}}).message(),
            "slack chat.postMessage: unrecognised_error");
  EXPECT_EQ(P().Send(chan, {{"text", "x"}}).message(),
            "slack chat.postMessage: unknown_error");
  // Replies that used to throw (H1): no "ok", a non-boolean "ok", no user.
  http_.replies = {HttpResult{200, R"({"ok":"x"})"}, HttpResult{200, R"({})"},
                   HttpResult{200, R"({"ok":true})"}, HttpResult{200, R"({"ok":true,"user":5})"},
                   HttpResult{200, R"({"ok":true,"user":{"id":5}})"}, HttpResult{200, "[1]"}};
  EXPECT_FALSE(P().Send(chan, {{"text", "x"}}).ok());
  EXPECT_FALSE(P().Send(chan, {{"text", "x"}}).ok());
  for (int i = 0; i < 3; ++i) {
    absl::Status u = P().Send(user, {{"text", "x"}});
    EXPECT_EQ(u.message(), "slack users.lookupByEmail: reply has no user.id") << u;
  }
  EXPECT_FALSE(P().Send(chan, {{"text", "x"}}).ok());
}

TEST_F(SlackReceiverTest, OAuthConfigIsExchangedForATokenAndWorkspace) {
  SlackReceiver slack(&http_, "http://fake/api");
  http_.replies = {HttpResult{200, R"({"ok":true,"access_token":"xoxb-new","token_type":"bot",
                                      "team":{"id":"T1","name":"acme"}})"}};
  auto out = slack.PrepareConfig(
      {{"client_id", "c1"}, {"client_secret", "s&1"}, {"auth_code", "code 1"}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, json({{"token", "xoxb-new"}, {"workspace", "acme"}}));
  ASSERT_EQ(http_.requests.size(), 1u);
  EXPECT_EQ(http_.requests[0].method, "POST");
  EXPECT_EQ(http_.requests[0].url, "http://fake/api/oauth.v2.access");
  EXPECT_EQ(http_.requests[0].body, "code=code%201&client_id=c1&client_secret=s%261");
  EXPECT_EQ(http_.requests[0].headers,
            std::vector<std::string>{"Content-Type: application/x-www-form-urlencoded"});
  // A workspace receiver needs no channel_name (the subscription gives it),
  // but Send does.
  EXPECT_TRUE(slack.ValidateConfig(*out).ok());
  absl::Status no_channel = slack.Send(*out, {{"text", "x"}});
  EXPECT_EQ(no_channel.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(no_channel.message().find("configurations.channel_name"), std::string::npos);
  json with_channel = *out;
  with_channel["channel_name"] = "alerts";
  http_.replies = {HttpResult{200, R"({"ok":true})"}};
  ASSERT_TRUE(slack.Send(with_channel, {{"text", "x"}}).ok());
  EXPECT_EQ(http_.requests.back().url, "http://fake/api/chat.postMessage");
  EXPECT_EQ(http_.requests.back().headers[0], "Authorization: Bearer xoxb-new");
}

TEST_F(SlackReceiverTest, OAuthErrorsNameTheFieldOrSlacksCode) {
  SlackReceiver slack(&http_, "http://fake/api");
  auto missing = slack.PrepareConfig({{"client_id", "c1"}, {"client_secret", "s"}});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("configurations.auth_code"), std::string::npos);
  EXPECT_TRUE(http_.requests.empty());
  json creds = {{"client_id", "c1"}, {"client_secret", "s"}, {"auth_code", "a"}};
  http_.replies = {HttpResult{200, R"({"ok":false,"error":"invalid_code"})"},
                   HttpResult{429, ""}, HttpResult{200, R"({"ok":true,"access_token":"x"})"}};
  auto refused = slack.PrepareConfig(creds);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(), "slack oauth.v2.access: invalid_code");
  EXPECT_TRUE(IsRetryable(slack.PrepareConfig(creds).status()));
  EXPECT_EQ(slack.PrepareConfig(creds).status().message(),
            "slack oauth.v2.access: reply has no access_token or team.name");
  // Other configurations pass unchanged, without a call.
  size_t calls = http_.requests.size();
  json plain = {{"token", "t"}, {"channel_name", "c"}};
  EXPECT_EQ(*slack.PrepareConfig(plain), plain);
  EXPECT_EQ(http_.requests.size(), calls);
}

}  // namespace
}  // namespace sluice::notification::receivers
