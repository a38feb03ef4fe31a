// Receiver type "http" against a fake HTTP client: request shape, URL rules
// and the retryable/permanent classification of failures.
#include "server/notification/receivers/http/http_receiver.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/testing/fake_http.h"

namespace sluice::notification::receivers {
namespace {

using nlohmann::json;
using receiver_testing::FakeHttp;

class HttpReceiverTest : public ::testing::Test {
 protected:
  ReceiverPlugin& P() { return *plugin_; }
  FakeHttp http_;
  std::unique_ptr<ReceiverPlugin> plugin_ = HttpReceiver::Create(ReceiverContext{&http_, {}});
};

TEST_F(HttpReceiverTest, HttpPostsJsonAndClassifiesStatuses) {
  EXPECT_NE(P().ValidateConfig(json::object()).message().find("configurations.url"),
            std::string::npos);
  EXPECT_FALSE(P().ValidateConfig({{"url", "ftp://x"}}).ok());
  for (json bad : {json{{"url", "gopher://redis:6379/_FLUSHALL"}}, json{{"url", "http://"}},
                   json{{"url", "file:///etc/passwd"}}, json{{"url", 1}}, json{{"url", nullptr}},
                   json{{"url", "http://h/a b"}}}) {
    absl::Status st = P().ValidateConfig(bad);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << bad.dump();
    EXPECT_NE(st.message().find("configurations.url"), std::string::npos) << st;
  }
  // A config that bypassed validation fails without throwing (H1).
  EXPECT_FALSE(P().Send({{"url", 1}}, json::object()).ok());
  EXPECT_FALSE(P().Send({{"url", nullptr}}, json::object()).ok());
  EXPECT_FALSE(P().Send(json(), json::object()).ok());
  EXPECT_TRUE(http_.requests.empty());
  json cfg = {{"url", "http://h/x"}};
  ASSERT_TRUE(P().Send(cfg, {{"a", 1}}).ok());
  EXPECT_EQ(http_.requests[0].method, "POST");
  EXPECT_EQ(http_.requests[0].url, "http://h/x");
  EXPECT_EQ(http_.requests[0].body, R"({"a":1})");
  http_.replies = {HttpResult{503, ""}, HttpResult{429, ""}, HttpResult{404, "gone"},
                   absl::UnavailableError("connect refused"), absl::DeadlineExceededError("t")};
  EXPECT_TRUE(IsRetryable(P().Send(cfg, json::object())));
  EXPECT_TRUE(IsRetryable(P().Send(cfg, json::object())));
  absl::Status perm = P().Send(cfg, json::object());
  EXPECT_FALSE(IsRetryable(perm));
  EXPECT_EQ(perm.message(), "POST http://h: HTTP 404");  // no body, no path
  EXPECT_TRUE(IsRetryable(P().Send(cfg, json::object())));
  EXPECT_TRUE(IsRetryable(P().Send(cfg, json::object())));
}

}  // namespace
}  // namespace sluice::notification::receivers
