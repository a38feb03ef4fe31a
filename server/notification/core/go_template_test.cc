#include "server/notification/core/go_template.h"

#include "gtest/gtest.h"
#include "server/notification/core/catalog.h"
#include "server/notification/core/fakes.h"
#include "server/notification/core/template_engine.h"

namespace sluice::notification {
namespace {

constexpr char kMessages[] = R"(- receiver_type: slack
  content: |
    text: "[[ .team ]]: {{ .Data.status | toUpper }} {{ .Labels.severity }}"
    username: "{{ .UniqueKey }}"
- receiver_type: pagerduty
  content: |
    event_type: "{{ if eq .Data.status "firing" }}trigger{{ else }}resolve{{ end }}"
)";

Template GoTemplate(const std::string& body) {
  Template t;
  t.name = "t";
  t.body = body;
  t.engine = kEngineGo;
  t.variables = {{"team", "string", "infra", "owning team"}};
  return t;
}

nlohmann::json AlertData() {
  return nlohmann::json::parse(R"({
    "status": "firing", "group_key": "gk", "num_firing": 2,
    "alerts": [
      {"status": "firing", "labels": {"alertname": "cpu_high", "severity": "CRITICAL"},
       "annotations": {"summary": "CPU at 95%", "dashboard": "https://d/1"},
       "starts_at": "2026-11-26T10:00:00Z", "generator_url": "http://prom/g"},
      {"status": "firing", "labels": {"alertname": "cpu_high", "severity": "CRITICAL"},
       "annotations": {"summary": "CPU at 97%", "dashboard": "https://d/1"},
       "starts_at": "2026-11-26T10:01:00Z"}
    ]})");
}

TEST(GoTemplate, EngineMustBeKnown) {
  EXPECT_TRUE(ValidateEngine("").ok());
  EXPECT_TRUE(ValidateEngine("mustache").ok());
  EXPECT_TRUE(ValidateEngine("go").ok());
  auto st = ValidateEngine("jinja");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("engine"), std::string::npos);
  EXPECT_EQ(ValidateEngine("go-content").code(), absl::StatusCode::kInvalidArgument);
}

TEST(GoTemplate, ValidatesMessageAndRuleBodies) {
  EXPECT_TRUE(ValidateGoTemplateBody(kMessages).ok());
  EXPECT_TRUE(ValidateGoTemplateBody("- alert: CPUHigh\n  expr: cpu > [[.warning]]\n  for: '[[.for]]'\n"
                                     "  labels:\n    severity: WARNING\n").ok());
  auto bad_content = ValidateGoTemplateBody("- receiver_type: slack\n  content: '{{ if }}'\n");
  EXPECT_EQ(bad_content.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_content.message().find("body[0].content"), std::string::npos) << bad_content;
  EXPECT_NE(ValidateGoTemplateBody("- receiver_type: slack\n  content: x\n- alert: a\n  expr: b\n")
                .message().find("mixes"), std::string::npos);
  EXPECT_NE(ValidateGoTemplateBody("- alert: a\n").message().find("body[0].expr"), std::string::npos);
  EXPECT_NE(ValidateGoTemplateBody("name: x\n").message().find("YAML list"), std::string::npos);
  EXPECT_NE(ValidateGoTemplateBody("- receiver_type: slack\n").message().find("body[0].content"),
            std::string::npos);
  EXPECT_NE(ValidateGoTemplateBody("[[ if ]]").message().find("body:"), std::string::npos);
}

// The rule template of Siren's docs/docs/guides/template.md.
TEST(GoTemplate, SirensDocumentedRuleTemplateIsValid) {
  std::string body =
      "- alert: CPUHighWarning\n  expr: avg by (host) (cpu_usage_user{cpu=\"cpu-total\"}) > [[.warning]]\n"
      "  for: '[[.for]]'\n  labels:\n    severity: WARNING\n    team: '[[ .team ]]'\n  annotations:\n"
      "    dashboard: https://example.com\n    description: CPU has been above [[.warning]] for last [[.for]] "
      "{{ $labels.host }}\n- alert: CPUHighCritical\n  expr: avg by (host) (cpu_usage_user{cpu=\"cpu-total\"}) > "
      "[[.critical]]\n  for: '[[.for]]'\n  labels:\n    severity: CRITICAL\n    team: '[[ .team ]]'\n"
      "  annotations:\n    dashboard: example.com\n    description: CPU has been above [[.critical]] for last "
      "[[.for]] {{ $labels.host }}\n";
  std::vector<TemplateVariable> vars = {{"team", "string", "gotocompany", ""}, {"for", "string", "10m", ""},
                                        {"warning", "int", "85", ""}, {"critical", "int", "95", ""}};
  EXPECT_TRUE(ValidateGoTemplateBody(body, vars).ok()) << ValidateGoTemplateBody(body, vars);
  Template t = GoTemplate(body);
  t.variables = vars;
  auto out = RenderGoTemplateBody(t, {{"warning", "80"}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE(out->find("> 80\n  for: '10m'"), std::string::npos) << *out;
  EXPECT_NE(out->find("last 10m {{ $labels.host }}"), std::string::npos) << *out;
  // YAML only after rendering: [[ ]] at the start of a value.
  EXPECT_TRUE(ValidateGoTemplateBody("- alert: a\n  expr: [[.x]] > 1\n", {{"x", "int", "5", ""}}).ok());
}

TEST(GoTemplate, RendersTheReceiverTypesMessageAsYaml) {
  Template t = GoTemplate(kMessages);
  nlohmann::json data = {{"status", "firing"}, {"labels", {{"severity", "WARNING"}}}, {"unique_key", "u1"}};
  auto slack = RenderGoPayload(t, data, "slack");
  ASSERT_TRUE(slack.ok()) << slack.status();
  // [[ ]] is not this stage's delimiter: it stays as text.
  EXPECT_EQ((*slack)["text"], "[[ .team ]]: FIRING WARNING");
  EXPECT_EQ((*slack)["username"], "u1");
  auto channel = RenderGoPayload(t, data, "slack_channel");  // slack's message, as in Siren
  ASSERT_TRUE(channel.ok()) << channel.status();
  EXPECT_EQ(*channel, *slack);
  auto pd = RenderGoPayload(t, {{"status", "resolved"}}, "pagerduty");
  ASSERT_TRUE(pd.ok()) << pd.status();
  EXPECT_EQ((*pd)["event_type"], "resolve");
  auto none = RenderGoPayload(t, data, "lark");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find("lark"), std::string::npos);
}

TEST(GoTemplate, RenderTheBodyWithVariablesAndDefaults) {
  Template t = GoTemplate("- alert: a\n  expr: x > [[ .warning ]]\n  labels:\n    team: '[[ .team ]]'\n");
  t.variables.push_back({"warning", "int", "80", ""});
  auto out = RenderGoTemplateBody(t, {{"warning", "90"}, {"undeclared", "x"}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "- alert: a\n  expr: x > 90\n  labels:\n    team: 'infra'\n");
}

TEST(GoTemplate, SirenViewOfAnAlertGroupIsSirensNotification) {
  nlohmann::json v = SirenView(AlertData());
  EXPECT_EQ(v["UniqueKey"], "gk");
  EXPECT_EQ(v["Labels"], nlohmann::json({{"alertname", "cpu_high"}, {"severity", "CRITICAL"}}));
  const nlohmann::json& d = v["Data"];
  EXPECT_EQ(d["summary"], "CPU at 95%\nCPU at 97%");
  EXPECT_EQ(d["dashboard"], "https://d/1");
  EXPECT_EQ(d["status"], "firing");
  EXPECT_EQ(d["num_alerts_firing"], 2);
  EXPECT_EQ(d["generator_url"], "http://prom/g");
  EXPECT_EQ(d["triggered_at"], "2026-11-26 10:00:00 +0000 UTC");
  EXPECT_EQ(d["alertname"], "cpu_high");
}

TEST(GoTemplate, AlertsToSlackUseSirensDefaultTemplate) {
  const Template* t = FindBuiltinTemplate(ResolveTemplateName(kAlertTemplate, "slack"));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->engine, kEngineGoContent);
  auto payload = RenderPayload(*t, AlertData(), "slack");
  ASSERT_TRUE(payload.ok()) << payload.status();
  EXPECT_EQ((*payload)["username"], "Siren");
  EXPECT_EQ((*payload)["icon_emoji"], ":eagle:");
  const nlohmann::json& a = (*payload)["attachments"][0];
  EXPECT_EQ(a["pretext"], ":fire: (FIRING:2) *(CRITICAL)* cpu_high");
  EXPECT_EQ(a["color"], "danger");
  EXPECT_EQ(a["text"], "CPU at 95%\nCPU at 97%\n");
  EXPECT_EQ(a["actions"][1]["url"], "https://d/1");
  EXPECT_NE(FindBuiltinTemplate("system-alert-slack_channel"), nullptr);
  EXPECT_NE(FindBuiltinTemplate("system-alert-lark"), nullptr);
}

TEST(GoTemplate, UpsertValidatesByEngine) {
  testing::FakeTemplateRepository repo;
  TemplateService svc(&repo);
  Template mustache;
  mustache.name = "m";
  mustache.body = "{\"text\": \"{{x}}\"}";
  mustache.engine = "";
  ASSERT_TRUE(svc.Upsert(mustache, "t").ok());
  EXPECT_EQ(svc.Get("m")->engine, kEngineMustache);
  Template go = GoTemplate(kMessages);
  ASSERT_TRUE(svc.Upsert(go, "t").ok());
  EXPECT_EQ(svc.Get("t")->engine, kEngineGo);
  go.body = "- receiver_type: slack\n  content: '{{ .x'\n";
  EXPECT_EQ(svc.Upsert(go, "t").code(), absl::StatusCode::kInvalidArgument);
  go.body = kMessages;
  go.variables = {{"team", "", "infra", ""}};
  EXPECT_NE(svc.Upsert(go, "t").message().find("variables[0].type"), std::string::npos);
  go.engine = "handlebars";
  EXPECT_NE(svc.Upsert(go, "t").message().find("engine"), std::string::npos);
}

}  // namespace
}  // namespace sluice::notification
