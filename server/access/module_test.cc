#include "server/access/module.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

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

TEST(AccessConfigTest, MaxPageSizeAndReadScope) {
  auto d = ParseAccessConfig(YAML::Node());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->max_page_size, 1000);
  EXPECT_FALSE(d->read_scope_all);
  auto c = ParseAccessConfig(YAML::Load("max_page_size: 200\nread_scope: all"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->max_page_size, 200);
  EXPECT_TRUE(c->read_scope_all);
  auto own = ParseAccessConfig(YAML::Load("read_scope: own"));
  ASSERT_TRUE(own.ok());
  EXPECT_FALSE(own->read_scope_all);
  for (const char* bad : {"max_page_size: 0", "max_page_size: lots", "max_page_size: 100001",
                          "read_scope: everyone", "read_scope: [all]"}) {
    auto st = ParseAccessConfig(YAML::Load(bad)).status();
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << bad;
    EXPECT_NE(st.message().find(std::string(bad).substr(0, std::string(bad).find(':'))),
              std::string::npos)
        << st;
  }
}

TEST(AccessConfigTest, RejectsUnknownKeysAndBadDurations) {
  EXPECT_TRUE(absl::IsInvalidArgument(ParseAccessConfig(YAML::Load("sync: 2s")).status()));
  auto bad = ParseAccessConfig(YAML::Load("resource_sync_interval: soon"));
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_NE(bad.status().message().find("access.resource_sync_interval"), std::string::npos);
}

TEST(AccessConfigTest, Notifications) {
  auto d = ParseAccessConfig(YAML::Node());
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->notifications.events.disabled.empty());  // every event on by default
  EXPECT_EQ(d->notifications.reminders.expiring_grant_days, (std::vector<int>{7, 3, 1}));
  EXPECT_EQ(d->notifications.reminders.pending_approval_age, absl::Hours(24));
  EXPECT_EQ(d->notifications.pending_reminder_interval, absl::Hours(24));
  auto c = ParseAccessConfig(YAML::Load(
      "notifications:\n  disabled_events: [appeal.approved, grant.revoked]\n"
      "  expiring_grant_days: [14, 2]\n  pending_approval_age: 2h\n"
      "  expiring_grant_interval: 0s\n  poll_interval: 200ms\n  max_attempts: 4\n"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->notifications.events.disabled,
            (std::set<std::string>{"appeal.approved", "grant.revoked"}));
  EXPECT_EQ(c->notifications.reminders.expiring_grant_days, (std::vector<int>{14, 2}));
  EXPECT_EQ(c->notifications.reminders.pending_approval_age, absl::Hours(2));
  EXPECT_EQ(c->notifications.expiring_grant_interval, absl::ZeroDuration());
  EXPECT_EQ(c->notifications.dispatch.poll_interval, absl::Milliseconds(200));
  EXPECT_EQ(c->notifications.dispatch.max_attempts, 4);
  for (const char* bad : {"notifications:\n  disabled_events: [appeal.exploded]",
                          "notifications:\n  expiring_grant_days: [0]",
                          "notifications:\n  pending_approval_age: 0s",
                          "notifications:\n  colour: blue"}) {
    auto st = ParseAccessConfig(YAML::Load(bad)).status();
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << bad;
    EXPECT_NE(st.message().find("access.notifications."), std::string::npos) << st;
  }
}

// Every field of `c`, for comparing two parsed configs.
std::string Dump(const AccessConfig& c) {
  const auto& n = c.notifications;
  return absl::StrCat(
      absl::FormatDuration(c.resource_sync_interval), " ", absl::FormatDuration(c.grant_expiry_interval),
      " ", absl::FormatDuration(c.reconcile_interval), " ", absl::FormatDuration(c.max_grant_duration),
      " admins[", absl::StrJoin(c.admins.identities, ","), "] groups[",
      absl::StrJoin(c.admins.groups, ","), "] page ", c.max_page_size, " all ", c.read_scope_all,
      " disabled[", absl::StrJoin(n.events.disabled, ","), "] days[",
      absl::StrJoin(n.reminders.expiring_grant_days, ","), "] ",
      absl::FormatDuration(n.reminders.pending_approval_age), " ",
      absl::FormatDuration(n.expiring_grant_interval), " ",
      absl::FormatDuration(n.pending_reminder_interval), " ",
      absl::FormatDuration(n.dispatch.poll_interval), " ", n.dispatch.max_attempts);
}

// The documented keys (kAccessConfigKeys, which docs/configuration.md is
// generated from) are the parser's: a section that sets each of them to its
// documented default parses to the config of an empty section, and an
// unknown key's error lists exactly the documented ones.
TEST(AccessConfigTest, DocumentedKeysAndDefaultsAreTheParsers) {
  YAML::Node all;
  std::vector<std::string> top, nested;
  for (const auto& k : kAccessConfigKeys) {
    std::vector<std::string> parts = absl::StrSplit(k.key, '.');
    ASSERT_LE(parts.size(), 2u) << k.key;
    YAML::Node value = YAML::Load(k.default_yaml);
    if (parts.size() == 1) {
      all[parts[0]] = value;
      top.push_back(parts[0]);
    } else {
      all[parts[0]][parts[1]] = value;
      if (std::find(top.begin(), top.end(), parts[0]) == top.end()) top.push_back(parts[0]);
      nested.push_back(parts[1]);
    }
    YAML::Node alone;
    alone[parts[0]] = parts.size() == 1 ? value : all[parts[0]];
    EXPECT_TRUE(ParseAccessConfig(alone).ok()) << k.key << ": " << k.default_yaml;
  }
  auto documented = ParseAccessConfig(all);
  ASSERT_TRUE(documented.ok()) << documented.status();
  auto defaults = ParseAccessConfig(YAML::Node());
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(Dump(*documented), Dump(*defaults));

  auto unknown = ParseAccessConfig(YAML::Load("bogus: 1"));
  EXPECT_EQ(unknown.status().message(),
            absl::StrCat("access.bogus: unknown key (known: ", absl::StrJoin(top, ", "), ")"));
  auto unknown_nested = ParseAccessConfig(YAML::Load("notifications: {bogus: 1}"));
  EXPECT_EQ(unknown_nested.status().message(),
            absl::StrCat("access.notifications.bogus: unknown key (known: ",
                         absl::StrJoin(nested, ", "), ")"));
}

}  // namespace
}  // namespace sluice::access
