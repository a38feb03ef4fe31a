// Receiver types "lark" and "lark_channel" against a fake HTTP client.
#include "server/notification/receivers/lark/lark_receiver.h"

#include <gtest/gtest.h>

#include "server/notification/receivers/lark_channel/lark_channel_receiver.h"
#include "server/notification/receivers/testing/fake_http.h"

namespace sluice::notification::receivers {
namespace {

using nlohmann::json;
using receiver_testing::FakeHttp;

const HttpResult kToken{200, R"({"code":0,"msg":"ok","tenant_access_token":"t-1","expire":7200})"};

TEST(LarkReceiverTest, TokenThenChatLookupThenMessage) {
  FakeHttp http;
  LarkReceiver lark(&http, "http://fake");
  EXPECT_NE(lark.ValidateConfig({{"client_id", "a"}}).message().find("configurations.client_secret"),
            std::string::npos);
  EXPECT_FALSE(lark.ValidateConfig({{"client_id", "a"}, {"client_secret", "b"}, {"api_url", "file:///x"}}).ok());
  json cfg = {{"client_id", "cli_1"}, {"client_secret", "sec"}, {"channel_name", "ops"}};
  ASSERT_TRUE(lark.ValidateConfig(cfg).ok());
  http.replies = {kToken,
                  HttpResult{200, R"({"code":0,"data":{"items":[{"chat_id":"oc_0","name":"x"}],
                                      "has_more":true,"page_token":"p2"}})"},
                  HttpResult{200, R"({"code":0,"data":{"items":[{"chat_id":"oc_1","name":"ops"}],
                                      "has_more":false}})"},
                  HttpResult{200, R"({"code":0,"data":{"message_id":"om_1"}})"}};
  ASSERT_TRUE(lark.Send(cfg, {{"text", "disk full"}}).ok());
  ASSERT_EQ(http.requests.size(), 4u);
  EXPECT_EQ(http.requests[0].url, "http://fake/open-apis/auth/v3/tenant_access_token/internal");
  EXPECT_EQ(json::parse(http.requests[0].body), json({{"app_id", "cli_1"}, {"app_secret", "sec"}}));
  EXPECT_EQ(http.requests[1].url, "http://fake/open-apis/im/v1/chats?page_size=100");
  EXPECT_EQ(http.requests[1].headers[0], "Authorization: Bearer t-1");
  EXPECT_EQ(http.requests[2].url, "http://fake/open-apis/im/v1/chats?page_size=100&page_token=p2");
  EXPECT_EQ(http.requests[3].url, "http://fake/open-apis/im/v1/messages?receive_id_type=chat_id");
  EXPECT_EQ(json::parse(http.requests[3].body),
            json({{"receive_id", "oc_1"}, {"msg_type", "text"},
                  {"content", json({{"text", "disk full"}}).dump()}}));
  // A user by email; a card payload is sent as an interactive message.
  http.requests.clear();
  http.replies = {kToken, HttpResult{200, R"({"code":0})"}};
  json card = {{"header", {{"title", {{"tag", "plain_text"}, {"content", "x"}}}}}, {"elements", json::array()}};
  ASSERT_TRUE(lark.Send({{"client_id", "c"}, {"client_secret", "s"}, {"channel_name", "a@b.io"},
                         {"channel_type", "user"}},
                        card)
                  .ok());
  EXPECT_EQ(http.requests[1].url, "http://fake/open-apis/im/v1/messages?receive_id_type=email");
  json body = json::parse(http.requests[1].body);
  EXPECT_EQ(body["msg_type"], "interactive");
  EXPECT_EQ(json::parse(body["content"].get<std::string>()), card);
}

TEST(LarkReceiverTest, ErrorsCarryLarksCodeOnlyAndRateLimitsRetry) {
  FakeHttp http;
  LarkReceiver lark(&http, "http://fake");
  json cfg = {{"client_id", "c"}, {"client_secret", "s"}, {"channel_name", "a@b.io"},
              {"channel_type", "user"}};
  http.replies = {HttpResult{200, R"({"code":10014,"msg":"app secret invalid: s"})"}};
  absl::Status st = lark.Send(cfg, {{"text", "x"}});
  EXPECT_FALSE(IsRetryable(st));
  EXPECT_EQ(st.message(), "lark tenant_access_token: code 10014");
  http.replies = {kToken, HttpResult{200, R"({"code":99991400,"msg":"limit"})"}};
  EXPECT_TRUE(IsRetryable(lark.Send(cfg, {{"text", "x"}})));
  http.replies = {kToken, HttpResult{429, ""}};
  EXPECT_TRUE(IsRetryable(lark.Send(cfg, {{"text", "x"}})));
  http.replies = {HttpResult{200, "not json"}};
  EXPECT_FALSE(lark.Send(cfg, {{"text", "x"}}).ok());
  // No channel: nothing is called.
  size_t calls = http.requests.size();
  EXPECT_EQ(lark.Send({{"client_id", "c"}, {"client_secret", "s"}}, {{"text", "x"}}).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(http.requests.size(), calls);
}

TEST(LarkChannelReceiverTest, AChildOfLarkWithoutCredentialsOfItsOwn) {
  FakeHttp http;
  LarkChannelReceiver ch(&http, "http://fake");
  EXPECT_EQ(ch.ParentType(), "lark");
  EXPECT_TRUE(ch.SecretKeys().empty());
  EXPECT_NE(ch.ValidateConfig(json::object()).message().find("configurations.channel_name"),
            std::string::npos);
  EXPECT_TRUE(ch.ValidateConfig({{"channel_name", "ops"}}).ok());
  auto st = ch.PrepareConfig({{"channel_name", "ops"}, {"client_secret", "x"}}).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("configurations.client_secret"), std::string::npos);
  EXPECT_EQ(ch.Send({{"channel_name", "ops"}}, {{"text", "x"}}).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(http.requests.empty());
  http.replies = {kToken, HttpResult{200, R"({"code":0})"}};
  ASSERT_TRUE(ch.Send({{"channel_name", "a@b.io"}, {"channel_type", "user"}, {"client_id", "c"},
                       {"client_secret", "s"}},
                      {{"text", "x"}})
                  .ok());
  EXPECT_EQ(http.requests.size(), 2u);
}

}  // namespace
}  // namespace sluice::notification::receivers
