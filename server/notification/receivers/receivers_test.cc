// Receiver types against a fake HTTP client: request shapes and the
// retryable/permanent classification of failures.
#include <gtest/gtest.h>

#include <deque>
#include <fstream>

#include "server/notification/receivers/registry.h"

namespace sluice::notification::receivers {
namespace {

using nlohmann::json;

class FakeHttp : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& r) override {
    requests.push_back(r);
    if (replies.empty()) return HttpResult{200, "{}"};
    auto next = replies.front();
    replies.pop_front();
    return next;
  }
  std::vector<HttpRequest> requests;
  std::deque<absl::StatusOr<HttpResult>> replies;
};

class ReceiversTest : public ::testing::Test {
 protected:
  ReceiverPlugin& P(const std::string& type) { return *plugins_.at(type); }
  FakeHttp http_;
  ReceiverPlugins plugins_ = NewReceiverPlugins(&http_);
};

TEST_F(ReceiversTest, RegistryListsEveryType) {
  std::vector<std::string> names;
  for (const auto& [n, _] : plugins_) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"file", "http", "pagerduty", "slack"}));
  EXPECT_EQ(P("slack").SecretKeys(), std::vector<std::string>{"token"});
  EXPECT_EQ(P("pagerduty").SecretKeys(), (std::vector<std::string>{"service_key", "routing_key"}));
}

TEST_F(ReceiversTest, HttpPostsJsonAndClassifiesStatuses) {
  EXPECT_NE(P("http").ValidateConfig(json::object()).message().find("configurations.url"),
            std::string::npos);
  EXPECT_FALSE(P("http").ValidateConfig({{"url", "ftp://x"}}).ok());
  json cfg = {{"url", "http://h/x"}};
  ASSERT_TRUE(P("http").Send(cfg, {{"a", 1}}).ok());
  EXPECT_EQ(http_.requests[0].method, "POST");
  EXPECT_EQ(http_.requests[0].url, "http://h/x");
  EXPECT_EQ(http_.requests[0].body, R"({"a":1})");
  http_.replies = {HttpResult{503, ""}, HttpResult{429, ""}, HttpResult{404, "gone"},
                   absl::UnavailableError("connect refused"), absl::DeadlineExceededError("t")};
  EXPECT_TRUE(IsRetryable(P("http").Send(cfg, json::object())));
  EXPECT_TRUE(IsRetryable(P("http").Send(cfg, json::object())));
  absl::Status perm = P("http").Send(cfg, json::object());
  EXPECT_FALSE(IsRetryable(perm));
  EXPECT_NE(perm.message().find("HTTP 404: gone"), std::string::npos);
  EXPECT_TRUE(IsRetryable(P("http").Send(cfg, json::object())));
  EXPECT_TRUE(IsRetryable(P("http").Send(cfg, json::object())));
}

TEST_F(ReceiversTest, FileAppendsJsonLines) {
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/out.jsonl";
  EXPECT_FALSE(P("file").ValidateConfig({{"url", "relative.txt"}}).ok());
  ASSERT_TRUE(P("file").ValidateConfig({{"url", path}}).ok());
  ASSERT_TRUE(P("file").Send({{"url", path}}, {{"n", 1}}).ok());
  ASSERT_TRUE(P("file").Send({{"url", path}}, {{"n", 2}}).ok());
  std::ifstream in(path);
  std::string l1, l2;
  std::getline(in, l1);
  std::getline(in, l2);
  EXPECT_EQ(l1, R"({"n":1})");
  EXPECT_EQ(l2, R"({"n":2})");
  EXPECT_FALSE(P("file").Send({{"url", "/nonexistent-dir/x"}}, json::object()).ok());
}

TEST_F(ReceiversTest, SlackShapesAndOkFalse) {
  EXPECT_NE(P("slack").ValidateConfig({{"token", "t"}}).message().find("channel_name"),
            std::string::npos);
  EXPECT_FALSE(P("slack").ValidateConfig({{"token", "t"}, {"channel_name", "c"}, {"channel_type", "dm"}}).ok());
  json cfg = {{"token", "xoxb-1"}, {"channel_name", "me@x.io"}, {"channel_type", "user"},
              {"api_url", "http://slack/api/"}};
  http_.replies = {HttpResult{200, R"({"ok":true,"user":{"id":"U1"}})"}, HttpResult{200, R"({"ok":true})"}};
  ASSERT_TRUE(P("slack").Send(cfg, {{"text", "hi"}}).ok());
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
  absl::Status st = P("slack").Send(chan, {{"other", 1}});
  EXPECT_FALSE(IsRetryable(st));
  EXPECT_EQ(st.message(), "slack chat.postMessage: not_in_channel");
  // A payload without text/blocks/attachments is sent as text.
  EXPECT_EQ(json::parse(http_.requests.back().body)["text"], R"({"other":1})");
  EXPECT_TRUE(IsRetryable(P("slack").Send(chan, {{"text", "x"}})));
}

TEST_F(ReceiversTest, PagerDutyEventsV2) {
  EXPECT_NE(P("pagerduty").ValidateConfig(json::object()).message().find("service_key"),
            std::string::npos);
  EXPECT_TRUE(P("pagerduty").ValidateConfig({{"routing_key", "r"}}).ok());
  json cfg = {{"service_key", "KEY"}, {"api_url", "http://pd"}};
  http_.replies = {HttpResult{202, R"({"status":"success"})"}, HttpResult{202, "{}"},
                   HttpResult{400, R"({"status":"invalid event"})"}};
  ASSERT_TRUE(P("pagerduty").Send(cfg, {{"event_action", "resolve"}, {"dedup_key", "d"}}).ok());
  EXPECT_EQ(http_.requests[0].url, "http://pd/v2/enqueue");
  EXPECT_EQ(json::parse(http_.requests[0].body),
            json({{"event_action", "resolve"}, {"dedup_key", "d"}, {"routing_key", "KEY"}}));
  // Free-form data becomes a trigger with custom_details.
  ASSERT_TRUE(P("pagerduty").Send(cfg, {{"summary", "disk full"}, {"host", "h1"}}).ok());
  json ev = json::parse(http_.requests[1].body);
  EXPECT_EQ(ev["event_action"], "trigger");
  EXPECT_EQ(ev["payload"]["summary"], "disk full");
  EXPECT_EQ(ev["payload"]["severity"], "info");
  EXPECT_EQ(ev["payload"]["custom_details"]["host"], "h1");
  EXPECT_FALSE(IsRetryable(P("pagerduty").Send(cfg, {{"event_action", "trigger"}})));
}

}  // namespace
}  // namespace sluice::notification::receivers
