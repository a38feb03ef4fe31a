// Receiver type "pagerduty" against a fake HTTP client.
#include "server/notification/receivers/pagerduty/pagerduty_receiver.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/testing/fake_http.h"

namespace sluice::notification::receivers {
namespace {

using nlohmann::json;
using receiver_testing::FakeHttp;

class PagerDutyReceiverTest : public ::testing::Test {
 protected:
  ReceiverPlugin& P() { return *plugin_; }
  FakeHttp http_;
  std::unique_ptr<ReceiverPlugin> plugin_ = PagerDutyReceiver::Create(ReceiverContext{&http_, {}});
};

TEST_F(PagerDutyReceiverTest, PagerDutyEventsV2) {
  EXPECT_NE(P().ValidateConfig(json::object()).message().find("service_key"),
            std::string::npos);
  EXPECT_TRUE(P().ValidateConfig({{"routing_key", "r"}}).ok());
  absl::Status gopher =
      P().ValidateConfig({{"routing_key", "r"}, {"api_url", "gopher://h:70/x?"}});
  EXPECT_EQ(gopher.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(gopher.message().find("configurations.api_url"), std::string::npos) << gopher;
  json cfg = {{"service_key", "KEY"}, {"api_url", "http://pd"}};
  http_.replies = {HttpResult{202, R"({"status":"success"})"}, HttpResult{202, "{}"},
                   HttpResult{400, R"({"status":"invalid event"})"}};
  ASSERT_TRUE(P().Send(cfg, {{"event_action", "resolve"}, {"dedup_key", "d"}}).ok());
  EXPECT_EQ(http_.requests[0].url, "http://pd/v2/enqueue");
  EXPECT_EQ(json::parse(http_.requests[0].body),
            json({{"event_action", "resolve"}, {"dedup_key", "d"}, {"routing_key", "KEY"}}));
  // Free-form data becomes a trigger with custom_details.
  ASSERT_TRUE(P().Send(cfg, {{"summary", "disk full"}, {"host", "h1"}}).ok());
  json ev = json::parse(http_.requests[1].body);
  EXPECT_EQ(ev["event_action"], "trigger");
  EXPECT_EQ(ev["payload"]["summary"], "disk full");
  EXPECT_EQ(ev["payload"]["severity"], "info");
  EXPECT_EQ(ev["payload"]["custom_details"]["host"], "h1");
  // The summary is cut at 1024 bytes without splitting a character (H1).
  http_.replies = {HttpResult{202, "{}"}};
  ASSERT_TRUE(P().Send(cfg, {{"k", std::string(1015, 'a') + "\xc3\xa9\xc3\xa9"}}).ok());
  EXPECT_EQ(json::parse(http_.requests.back().body)["payload"]["summary"].get<std::string>().size(),
            1023u);
  http_.replies = {HttpResult{400, R"({"status":"invalid event"})"}};
  absl::Status bad = P().Send(cfg, {{"event_action", "trigger"}});
  EXPECT_FALSE(IsRetryable(bad));
  EXPECT_EQ(bad.message(), "pagerduty enqueue: HTTP 400");
}

}  // namespace
}  // namespace sluice::notification::receivers
