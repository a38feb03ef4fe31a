#include "server/notification/module.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sluice::notification {
namespace {

// The documented keys (kNotificationConfigKeys, which docs/configuration.md
// is generated from) are the parser's: a section that sets each key that
// has a default to that default describes the same settings as an empty
// section, each of those keys is accepted alone, and an unknown key's error
// lists exactly the documented top-level keys.
TEST(NotificationConfigTest, DocumentedKeysAndDefaultsAreTheParsers) {
  YAML::Node all;
  std::vector<std::string> top, prometheus;
  int with_default = 0;
  for (const auto& k : kNotificationConfigKeys) {
    std::vector<std::string> parts = absl::StrSplit(k.key, '.');
    ASSERT_LE(parts.size(), 2u) << k.key;
    if (std::find(top.begin(), top.end(), parts[0]) == top.end()) top.push_back(parts[0]);
    if (parts.size() == 2) prometheus.push_back(parts[1]);
    if (std::string(k.default_yaml).empty()) continue;  // unset by default
    ++with_default;
    YAML::Node value = YAML::Load(k.default_yaml);
    YAML::Node alone;
    if (parts.size() == 1) {
      all[parts[0]] = value;
      alone[parts[0]] = value;
    } else {
      all[parts[0]][parts[1]] = value;
      alone[parts[0]][parts[1]] = value;
    }
    EXPECT_TRUE(DescribeNotificationConfig(alone).ok()) << k.key << ": " << k.default_yaml;
  }
  EXPECT_GE(with_default, 20);
  auto documented = DescribeNotificationConfig(all);
  ASSERT_TRUE(documented.ok()) << documented.status();
  auto defaults = DescribeNotificationConfig(YAML::Node());
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(*documented, *defaults);
  // Every documented key has its line in the description.
  for (const auto& k : kNotificationConfigKeys) {
    EXPECT_NE(absl::StrCat("\n", *defaults).find(absl::StrCat("\n", k.key, "=")), std::string::npos)
        << k.key << " missing from:\n" << *defaults;
  }

  auto unknown = DescribeNotificationConfig(YAML::Load("bogus: 1"));
  EXPECT_EQ(unknown.status().message(),
            absl::StrCat("notification.bogus: unknown key (known: ", absl::StrJoin(top, ", "), ")"));
  auto unknown_nested = DescribeNotificationConfig(YAML::Load("prometheus: {bogus: x}"));
  EXPECT_EQ(unknown_nested.status().message(),
            absl::StrCat("notification.prometheus.bogus: unknown key (known: ",
                         absl::StrJoin(prometheus, ", "), ")"));
}

// A value other than the default shows in the description (the comparison
// above can fail).
TEST(NotificationConfigTest, DescriptionShowsAChangedSetting) {
  auto changed = DescribeNotificationConfig(YAML::Load("workers: 2\nprometheus: {group_wait: 10s}"));
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_NE(changed->find("workers=2\n"), std::string::npos) << *changed;
  EXPECT_NE(changed->find("prometheus.group_wait=10s\n"), std::string::npos) << *changed;
}

}  // namespace
}  // namespace sluice::notification
