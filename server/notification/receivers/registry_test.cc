// The registry: one row per receiver type, each built with the shared context.
#include "server/notification/receivers/registry.h"

#include <gtest/gtest.h>

#include "server/notification/receivers/testing/fake_http.h"

namespace sluice::notification::receivers {
namespace {

TEST(RegistryTest, ListsEveryTypeOnce) {
  receiver_testing::FakeHttp http;
  ReceiverPlugins plugins = NewReceiverPlugins(&http, ReceiverOptions{"/nonexistent"});
  std::vector<std::string> names;
  for (const auto& [n, p] : plugins) {
    names.push_back(n);
    EXPECT_NE(p, nullptr) << n;
  }
  EXPECT_EQ(names, ReceiverTypes());
  EXPECT_EQ(names, (std::vector<std::string>{"file", "http", "lark", "lark_channel", "pagerduty", "slack",
                                               "slack_channel"}));
  auto& P = plugins;  // by type
  EXPECT_EQ(P.at("slack")->SecretKeys(), std::vector<std::string>{"token"});
  EXPECT_EQ(P.at("pagerduty")->SecretKeys(), (std::vector<std::string>{"service_key", "routing_key"}));
  // The http url carries webhook secrets (M9).
  EXPECT_EQ(P.at("http")->SecretKeys(), std::vector<std::string>{"url"});
  EXPECT_EQ(P.at("http")->DestinationKeys(), std::vector<std::string>{"url"});
  EXPECT_EQ(P.at("slack")->DestinationKeys(), std::vector<std::string>{"api_url"});
  EXPECT_EQ(P.at("pagerduty")->DestinationKeys(), std::vector<std::string>{"api_url"});
}

}  // namespace
}  // namespace sluice::notification::receivers
