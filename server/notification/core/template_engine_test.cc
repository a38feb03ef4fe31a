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

std::string Repeat(absl::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.append(s.data(), s.size());
  return out;
}

std::string Nested(int n, absl::string_view open = "{{#a}}", absl::string_view close = "{{/a}}") {
  return Repeat(open, n) + Repeat(close, n);
}

TEST(TemplateEngineTest, BodySizeIsLimited) {
  std::string big(kMaxTemplateBodyBytes + 1, 'x');
  absl::Status st = ValidateTemplateBody(big);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "template body is 65537 bytes; the limit is 65536");
  EXPECT_TRUE(ValidateTemplateBody(std::string(kMaxTemplateBodyBytes, 'x')).ok());
  // Stored bodies from before the limit are refused at render time too.
  EXPECT_EQ(RenderTemplateText(T(big), json::object(), "").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TemplateEngineTest, SectionNestingIsLimitedBeforeParsing) {
  EXPECT_TRUE(ValidateTemplateBody(Nested(100)).ok());
  absl::Status st = ValidateTemplateBody(Nested(101));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("nest deeper than 100"), std::string::npos) << st;
  // The review's H2 body (12000 levels, 144 KB) and one under 64 KiB.
  EXPECT_EQ(ValidateTemplateBody(Nested(12000)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ValidateTemplateBody(Nested(5000)).message().find("nest deeper"), std::string::npos);
  // Inverted sections and spaced tags count as the parser sees them.
  EXPECT_FALSE(ValidateTemplateBody(Nested(101, "{{^a}}")).ok());
  EXPECT_FALSE(ValidateTemplateBody(Nested(101, "{{ #a }}", "{{ /a }}")).ok());
  // Siblings do not add up.
  EXPECT_TRUE(ValidateTemplateBody(Repeat("{{#a}}{{/a}}", 1000)).ok());
  // A triple mustache is a variable, never a section.
  EXPECT_TRUE(CheckTemplateLimits(Repeat("{{{#a}}}", 500)).ok());
  EXPECT_EQ(RenderTemplateText(T(Nested(101)), json::object(), "").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TemplateEngineTest, SetDelimiterTagsAreFollowed) {
  // With <% %> delimiters, <%#a%> opens sections and {{#a}} is plain text.
  EXPECT_FALSE(ValidateTemplateBody("{{=<% %>=}}" + Nested(101, "<%#a%>", "<%/a%>")).ok());
  EXPECT_TRUE(ValidateTemplateBody("{{=<% %>=}}" + Nested(90, "<%#a%>", "<%/a%>")).ok());
  EXPECT_TRUE(ValidateTemplateBody("{{=<% %>=}}" + Repeat("{{#a}}", 200)).ok());
  // Switching back and forth, and a triple mustache only with {{ }}.
  std::string mixed = "{{=<% %>=}}" + Repeat("<%#a%>", 60) + "<%={{ }}=%>" + Repeat("{{#a}}", 41) +
                      Repeat("{{/a}}", 41) + Repeat("{{/a}}", 60);
  EXPECT_FALSE(CheckTemplateLimits(mixed).ok());
  EXPECT_TRUE(CheckTemplateLimits("{{=<% %>=}}<%{#a}%>" + Repeat("<%#a%>", 100)).ok());
  // The rendering still works under custom delimiters.
  auto out = RenderTemplateText(T("{{=<% %>=}}{\"v\": \"<%v%>\"}"), {{"v", "x"}}, "");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, R"({"v": "x"})");
}

TEST(TemplateEngineTest, RenderingIsBoundedWhenSectionsMultiply) {
  // 40 nested sections over a 2-item list would iterate 2^40 times.
  json data = {{"l", json::array({json::object(), json::object()})}, {"v", "x"}};
  absl::Time start = absl::Now();
  auto out = RenderTemplateText(T(Nested(40, "{{#l}}", "{{/l}}")), data, "");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("would render more than"), std::string::npos)
      << out.status();
  // A big string interpolated per item.
  json wide = {{"l", json::array()}, {"big", std::string(1 << 20, 'b')}};
  for (int i = 0; i < 64; ++i) wide["l"].push_back(i);
  EXPECT_FALSE(RenderTemplateText(T("{{#l}}{{{big}}}{{/l}}"), wide, "").ok());
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  // Ordinary loops are fine.
  auto ok = RenderTemplateText(T("{{#l}}{{v}}{{/l}}"), data, "");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, "xx");
}

TEST(TemplateEngineTest, OverflowingNumbersAreAnErrorNotAnException) {
  auto out = RenderPayload(T(R"({"n": 1e999})"), json::object(), "");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("rendered invalid JSON"), std::string::npos);
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
