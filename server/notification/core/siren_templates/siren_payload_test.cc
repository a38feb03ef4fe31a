// Alerts to Slack, Lark (and a message template) reach the receiver as Siren
// sends them: Siren's default templates (upstream/, byte for byte) rendered
// by Go's text/template over the same notification and read back with
// yaml.v2, as Siren's core/notification/message.go does
// (common/gotemplate/difftest/render.go), give the same payload as Sluice's
// RenderPayload of its built-in template, which differs from upstream's only
// in quoting the alert's text (security review R3-H1).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/notification/core/go_template.h"
#include "server/notification/core/notify.h"
#include "server/notification/core/template_engine.h"

namespace sluice::notification {
namespace {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  return std::string(srcdir ? srcdir : ".") + "/" + (ws ? ws : "sluice") + "/" + path;
}

// Go's payload for `content` over `view`: {ok, out (JSON text), err}.
nlohmann::json GoPayloads(const std::vector<std::pair<std::string, nlohmann::json>>& cases) {
  nlohmann::json in = nlohmann::json::array();
  for (const auto& [content, view] : cases) {
    in.push_back({{"name", "parser"}, {"left", "{{"}, {"right", "}}"}, {"text", content}, {"data", view},
                  {"yaml", true}});
  }
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = tmp ? tmp : "/tmp";
  std::ofstream(dir + "/in.json") << in.dump();
  std::string cmd = Runfile("common/gotemplate/difftest/render") + " < " + dir + "/in.json > " + dir + "/out.json";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream f(dir + "/out.json");
  std::stringstream ss;
  ss << f.rdbuf();
  return nlohmann::json::parse(ss.str());
}

AlertGroup Group(const std::string& status, const std::string& severity, bool summary) {
  AlertGroup g;
  g.status = status;
  g.group_key = "{}:{alertname=\"HighLatency\"}";
  g.provider_type = "alertmanager";
  g.provider_id = "prod";
  for (int i = 0; i < 2; ++i) {
    Alert a;
    a.status = status;
    a.labels = {{"alertname", "HighLatency"}, {"severity", severity}, {"team", "infra"},
                {"instance", "api-" + std::to_string(i)}};
    if (summary) a.annotations["summary"] = "p99 above 2s on api-" + std::to_string(i);
    a.annotations["dashboard"] = "https://grafana/d/latency";
    a.annotations["playbook"] = "https://runbooks/latency";
    a.starts_at = absl::FromUnixSeconds(1714557600 + i);
    a.generator_url = "http://prometheus/graph?g0.expr=x";
    g.alerts.push_back(a);
  }
  return g;
}

std::string ReadRunfile(const std::string& path) {
  std::ifstream f(Runfile(path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(SirenPayload, BuiltinAlertTemplatesRenderAsSirenDoes) {
  std::vector<std::pair<std::string, nlohmann::json>> cases;
  std::vector<nlohmann::json> ours;
  for (const char* type : {"slack", "slack_channel", "lark"}) {
    const Template* t = FindBuiltinTemplate(ResolveTemplateName(kAlertTemplate, type));
    ASSERT_NE(t, nullptr) << type;
    std::string upstream = ReadRunfile(absl::StrCat("server/notification/core/siren_templates/upstream/",
                                                    std::string(type) == "lark" ? "lark" : "slack", ".goyaml"));
    ASSERT_FALSE(upstream.empty()) << type;
    EXPECT_NE(upstream, t->body) << type;
    AlertGroup no_links = Group("firing", "WARNING", true);  // Siren prints Go's <no value>
    for (Alert& a : no_links.alerts) a.annotations.erase("dashboard");
    for (Alert& a : no_links.alerts) a.annotations.erase("playbook");
    for (const auto& g : {Group("firing", "CRITICAL", true), Group("firing", "WARNING", true),
                          Group("resolved", "CRITICAL", true), Group("firing", "critical", true),
                          Group("firing", "CRITICAL", false), no_links}) {
      nlohmann::json data = AlertTemplateData(g);
      cases.push_back({upstream, SirenView(data)});
      auto p = RenderPayload(*t, data, type);
      ours.push_back(p.ok() ? *p : nlohmann::json("ERROR"));
    }
  }
  nlohmann::json go = GoPayloads(cases);
  ASSERT_EQ(go.size(), ours.size());
  int ok = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    if (!go[i]["ok"].get<bool>()) {
      EXPECT_EQ(ours[i], "ERROR") << i << ": Go failed (" << go[i]["err"] << ") and Sluice did not";
      continue;
    }
    ++ok;
    EXPECT_EQ(ours[i], nlohmann::json::parse(go[i]["out"].get<std::string>())) << "case " << i;
  }
  EXPECT_EQ(ok, 15);  // without a summary annotation Siren's Slack and Lark templates fail
}

TEST(SirenPayload, MessageTemplatesRenderAsSirenDoes) {
  Template t;
  t.name = "deploy";
  t.engine = kEngineGo;
  t.body = R"(- receiver_type: slack
  content: |
    text: "{{ .Data.service }} {{ .Data.version }} deployed by {{ .Data.actor | title }}"
    blocks:
    {{- range $i, $c := .Data.changes }}
      - type: section
        text: {type: mrkdwn, text: "{{ $i }}: {{ $c }}"}
    {{- end }}
    count: {{ len .Data.changes }}
    ratio: {{ .Data.ratio }}
    ok: {{ .Data.ok }}
)";
  ASSERT_TRUE(ValidateGoTemplateBody(t.body).ok());
  nlohmann::json data = {{"service", "api"}, {"version", "1.2.3"}, {"actor", "ann lee"},
                         {"changes", {"fix: x", "feat: y"}}, {"ratio", 0.25}, {"ok", true}};
  auto content = GoMessageContent(t, "slack");
  ASSERT_TRUE(content.ok());
  nlohmann::json go = GoPayloads({{*content, SirenView(data)}});
  ASSERT_TRUE(go[0]["ok"].get<bool>()) << go[0]["err"];
  auto ours = RenderPayload(t, data, "slack");
  ASSERT_TRUE(ours.ok()) << ours.status();
  EXPECT_EQ(*ours, nlohmann::json::parse(go[0]["out"].get<std::string>()));
  EXPECT_EQ((*ours)["count"], 2);
}

}  // namespace
}  // namespace sluice::notification
