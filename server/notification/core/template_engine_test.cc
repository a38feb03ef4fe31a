#include "server/notification/core/template_engine.h"

#include <gtest/gtest.h>

namespace sluice::notification {
namespace {

using nlohmann::json;

Template T(const std::string& body, std::vector<TemplateVariable> vars = {}) {
  Template t;
  t.name = "t";
  t.body = body;
  t.variables = std::move(vars);
  return t;
}

TEST(TemplateEngineTest, ParseErrorsCarryMessageAndPosition) {
  EXPECT_TRUE(ValidateTemplateBody("{\"a\": \"{{x}}\"}").ok());
  absl::Status st = ValidateTemplateBody("{\"a\": \"{{#x}}\"}");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "template body does not parse: Unclosed section \"x\" at 7");
  EXPECT_EQ(ValidateTemplateBody("ab{{x").message(), "template body does not parse: Unclosed tag at 2");
  EXPECT_NE(ValidateTemplateBody("{{/y}}").message().find("Unopened section \"y\" at 0"),
            std::string::npos);
}

TEST(TemplateEngineTest, InterpolationIsJsonEscapedNotHtmlEscaped) {
  auto out = RenderPayload(T(R"({"v": "{{v}}"})"), {{"v", "<a href=\"x\">\\\n\t&</a>"}}, "");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)["v"], "<a href=\"x\">\\\n\t&</a>");
  EXPECT_EQ(JsonEscape("a\"b\\c\n"), "a\\\"b\\\\c\\n");
}

TEST(TemplateEngineTest, DefaultsNumbersListsAndWholeJson) {
  Template t = T(R"({"n": {{n}}, "d": "{{d}}", "items": [{{#items}}{{^_first}},{{/_first}}"{{name}}"{{/items}}], "all": {{{_json}}}})",
                 {{"d", "string", "fallback", ""}});
  json data = {{"n", 42}, {"items", json::array({{{"name", "a"}}, {{"name", "b"}}})}};
  auto out = RenderPayload(t, data, "");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)["n"], 42);
  EXPECT_EQ((*out)["d"], "fallback");
  EXPECT_EQ((*out)["items"], json({"a", "b"}));
  EXPECT_EQ((*out)["all"]["n"], 42);
  EXPECT_EQ((*out)["all"]["d"], "fallback");
}

TEST(TemplateEngineTest, PerReceiverTypeSections) {
  Template t = T(R"({{#receiver.slack}}{"text": "{{m}}"}{{/receiver.slack}})"
                 R"({{^receiver.slack}}{"message": "{{m}}", "via": "{{receiver.type}}"}{{/receiver.slack}})");
  EXPECT_EQ(*RenderPayload(t, {{"m", "hi"}}, "slack"), json({{"text", "hi"}}));
  EXPECT_EQ(*RenderPayload(t, {{"m", "hi"}}, "http"), json({{"message", "hi"}, {"via", "http"}}));
}

TEST(TemplateEngineTest, InvalidJsonOutputIsInvalidArgumentNamingTemplate) {
  auto out = RenderPayload(T(R"({"n": {{n}}})"), {{"n", "not a number"}}, "http");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("template \"t\" rendered invalid JSON"), std::string::npos);
}

TEST(TemplateEngineTest, BuiltinsAreListedAndResolved) {
  ASSERT_NE(FindBuiltinTemplate(kDefaultTemplate), nullptr);
  for (const char* type : {"http", "file", "slack", "pagerduty"}) {
    std::string name = ResolveTemplateName(kAlertTemplate, type);
    EXPECT_EQ(name, std::string("system-alert-") + type);
    const Template* t = FindBuiltinTemplate(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_TRUE(t->builtin);
    EXPECT_TRUE(ValidateTemplateBody(t->body).ok()) << name;
  }
  EXPECT_EQ(ResolveTemplateName("mine", "slack"), "mine");
  EXPECT_EQ(FindBuiltinTemplate("mine"), nullptr);
  // The default template sends the data object.
  EXPECT_EQ(*RenderPayload(*FindBuiltinTemplate(kDefaultTemplate), {{"a", {1, 2}}}, "http"),
            json({{"a", {1, 2}}}));
}

}  // namespace
}  // namespace sluice::notification
