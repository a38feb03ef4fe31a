#include "server/access/module.h"

#include <gtest/gtest.h>

namespace sluice::access {
namespace {

TEST(AccessConfigTest, DefaultsAndOverrides) {
  auto d = ParseAccessConfig(YAML::Node());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->resource_sync_interval, absl::Hours(2));
  EXPECT_EQ(d->grant_expiry_interval, absl::Minutes(1));
  EXPECT_EQ(d->max_grant_duration, absl::Hours(24 * 90));
  auto c = ParseAccessConfig(YAML::Load(
      "resource_sync_interval: 2s\ngrant_expiry_interval: 500ms\nmax_grant_duration: 720h"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->resource_sync_interval, absl::Seconds(2));
  EXPECT_EQ(c->grant_expiry_interval, absl::Milliseconds(500));
  EXPECT_EQ(c->max_grant_duration, absl::Hours(720));
  auto zero = ParseAccessConfig(YAML::Load("max_grant_duration: 0s"));
  EXPECT_TRUE(absl::IsInvalidArgument(zero.status()));
  EXPECT_NE(zero.status().message().find("access.max_grant_duration"), std::string::npos);
}

TEST(AccessConfigTest, RejectsUnknownKeysAndBadDurations) {
  EXPECT_TRUE(absl::IsInvalidArgument(ParseAccessConfig(YAML::Load("sync: 2s")).status()));
  auto bad = ParseAccessConfig(YAML::Load("resource_sync_interval: soon"));
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_NE(bad.status().message().find("access.resource_sync_interval"), std::string::npos);
}

}  // namespace
}  // namespace sluice::access
