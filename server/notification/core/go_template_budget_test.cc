// Security review R3-H1: a rendered payload can neither expand YAML aliases
// without bound nor let alert text add keys to Siren's built-in templates.
#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/notification/core/go_template.h"
#include "server/notification/core/template_engine.h"

namespace sluice::notification {
namespace {

// The review's payload: levels l0..l<levels>, each ten aliases of the one
// before, so the document holds 10^(levels+1) leaves. `indent` is put
// before each line (the payload sits under a key in a template).
std::string AliasBomb(int levels, const std::string& indent) {
  std::string y = indent + "l0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (int k = 1; k <= levels; ++k) {
    y += absl::StrCat(indent, "l", k, ": &a", k, " [");
    for (int i = 0; i < 10; ++i) y += absl::StrCat(i ? "," : "", "*a", k - 1);
    y += "]\n";
  }
  return y;
}

TEST(YamlBudget, AliasExpansionStopsAtTheBudget) {
  // 10^5 leaves from about 400 bytes: refused, quickly.
  std::string bomb = AliasBomb(4, "");
  auto start = std::chrono::steady_clock::now();
  auto out = YamlToJson(bomb);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << bomb.size();
  EXPECT_NE(out.status().message().find("expands past"), std::string::npos) << out.status();
  // 10^9 leaves (the review's N=8): the budget stops it at once.
  EXPECT_EQ(YamlToJson(AliasBomb(8, "")).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // Anchors within the budget still work where they are allowed.
  auto fine = YamlToJson("a: &x [1, 2]\nb: *x\n");
  ASSERT_TRUE(fine.ok()) << fine.status();
  EXPECT_EQ((*fine)["b"], nlohmann::json({1, 2}));
  // An explicit byte budget: a long scalar over it is refused.
  YamlLimits tight;
  tight.max_bytes = 100;
  EXPECT_EQ(YamlToJson("a: " + std::string(200, 'x'), tight).status().code(),
            absl::StatusCode::kInvalidArgument);
  // And the deadline.
  YamlLimits late;
  late.deadline = absl::InfinitePast();
  std::string many;
  for (int i = 0; i < 3000; ++i) many += absl::StrCat("- ", i, "\n");
  EXPECT_NE(YamlToJson(many, late).status().message().find("time budget"), std::string::npos);
}

TEST(YamlBudget, RenderedPayloadsRefuseAnchorsAndAliases) {
  Template t;
  t.name = "anchored";
  t.engine = kEngineGoContent;
  t.body = "a: &x {{ .Data.v }}\nb: *x\n";
  auto out = RenderGoPayload(t, {{"v", "1"}}, "slack");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("template \"anchored\""), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("anchors and aliases"), std::string::npos) << out.status();
  // An admin's own template that splices data unquoted: the bomb is
  // refused by name, not expanded.
  t.name = "unquoted";
  t.body = "text: {{ .Data.v }}\n";
  auto bomb = RenderGoPayload(t, {{"v", "x\n" + AliasBomb(8, "")}}, "slack");
  EXPECT_EQ(bomb.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bomb.status().message().find("template \"unquoted\""), std::string::npos) << bomb.status();
}

// The review's request body: a `"` in the playbook ends Siren's quoted
// scalar, and the rest would become YAML keys and an alias bomb.
TEST(YamlBudget, BuiltinTemplatesQuoteAlertText) {
  std::string playbook = "x\"\n      " + AliasBomb(1, "      ").substr(6) + "      zz: \"";
  nlohmann::json vars = {{"status", "firing"}, {"severity", "CRITICAL"}, {"alertname", "CPU\"High"},
                         {"summary", "cpu\nhigh: yes\r\n  - \"x\""}, {"playbook", playbook},
                         {"dashboard", "https://d/1?a=1&b=\"2\""}};
  for (const char* type : {"slack", "lark"}) {
    const Template* t = FindBuiltinTemplate(absl::StrCat("system-alert-", type));
    ASSERT_NE(t, nullptr) << type;
    auto out = RenderGoPayload(*t, vars, type);
    ASSERT_TRUE(out.ok()) << type << ": " << out.status();
    const nlohmann::json& item = (*out)[std::string(type) == "slack" ? "attachments" : "elements"][0];
    const nlohmann::json& runbook = item["actions"][0];
    EXPECT_EQ(runbook["url"], playbook) << type;
    EXPECT_EQ(runbook.size(), std::string(type) == "slack" ? 3u : 4u) << runbook.dump();
    EXPECT_EQ(item["actions"][1]["url"], "https://d/1?a=1&b=\"2\"") << type;
    EXPECT_EQ(item["text"], "cpu\nhigh: yes\r\n  - \"x\"\n") << type;
    EXPECT_NE(item["pretext"].get<std::string>().find("CPU\"High"), std::string::npos) << type;
  }
}

}  // namespace
}  // namespace sluice::notification
