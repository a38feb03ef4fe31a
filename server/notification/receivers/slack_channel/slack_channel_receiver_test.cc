// Receiver type "slack_channel": a child of a slack receiver.
#include "server/notification/receivers/slack_channel/slack_channel_receiver.h"

#include <gtest/gtest.h>

#include "server/notification/receivers/testing/fake_http.h"

namespace sluice::notification::receivers {
namespace {

using nlohmann::json;
using receiver_testing::FakeHttp;

TEST(SlackChannelReceiverTest, OwnConfigIsAChannelAndNoCredentials) {
  FakeHttp http;
  SlackChannelReceiver ch(&http, "http://fake/api");
  EXPECT_EQ(ch.ParentType(), "slack");
  EXPECT_TRUE(ch.SecretKeys().empty());
  absl::Status none = ch.ValidateConfig(json::object());
  EXPECT_EQ(none.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(none.message().find("configurations.channel_name"), std::string::npos);
  EXPECT_TRUE(ch.ValidateConfig({{"channel_name", "alerts"}}).ok());
  EXPECT_FALSE(ch.ValidateConfig({{"channel_name", "a"}, {"channel_type", "dm"}}).ok());
  for (const char* k : {"token", "workspace", "api_url", "auth_code"}) {
    auto st = ch.PrepareConfig({{"channel_name", "a"}, {k, "x"}}).status();
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << k;
    EXPECT_NE(st.message().find(std::string("configurations.") + k), std::string::npos) << st;
  }
  json own = {{"channel_name", "alerts"}};
  EXPECT_EQ(*ch.PrepareConfig(own), own);
}

TEST(SlackChannelReceiverTest, SendsWithTheMergedParentToken) {
  FakeHttp http;
  SlackChannelReceiver ch(&http, "http://fake/api");
  // Without the parent's token (not merged) nothing is sent.
  EXPECT_EQ(ch.Send({{"channel_name", "alerts"}}, {{"text", "x"}}).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(http.requests.empty());
  http.replies = {HttpResult{200, R"({"ok":true})"}};
  ASSERT_TRUE(
      ch.Send({{"channel_name", "alerts"}, {"token", "xoxb-p"}, {"workspace", "acme"}},
              {{"text", "x"}})
          .ok());
  ASSERT_EQ(http.requests.size(), 1u);
  EXPECT_EQ(http.requests[0].url, "http://fake/api/chat.postMessage");
  EXPECT_EQ(http.requests[0].headers[0], "Authorization: Bearer xoxb-p");
  EXPECT_EQ(json::parse(http.requests[0].body)["channel"], "alerts");
}

}  // namespace
}  // namespace sluice::notification::receivers
