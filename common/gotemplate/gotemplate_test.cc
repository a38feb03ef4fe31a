#include "common/gotemplate/gotemplate.h"

#include "gtest/gtest.h"

namespace sluice::gotemplate {
namespace {

std::string R(const std::string& text, const char* data = "{}", const std::string& l = "", const std::string& r = "") {
  auto out = Render("t", text, nlohmann::json::parse(data), l, r);
  if (!out.ok()) return "ERR: " + std::string(out.status().message());
  return *out;
}

TEST(GoTemplate, Basics) {
  EXPECT_EQ(R("a{{.x}}b", R"({"x": 1})"), "a1b");
  EXPECT_EQ(R("{{.missing}}"), "<no value>");
  EXPECT_EQ(R("[[ .x ]]", R"({"x": "y"})", "[[", "]]"), "y");
  EXPECT_EQ(R("{{.}}", R"({"b": [1, 2.5, null], "a": {"c": true}})"), "map[a:map[c:true] b:[1 2.5 <nil>]]");
  EXPECT_EQ(R("a  {{- 1 -}}  b"), "a1b");
  EXPECT_EQ(R("{{/* c */}}x"), "x");
  EXPECT_EQ(R("{{range $i, $v := .l}}{{$i}}={{$v}};{{else}}none{{end}}", R"({"l": ["a", "b"]})"), "0=a;1=b;");
  EXPECT_EQ(R("{{range .m}}{{.}}{{end}}", R"({"m": {"b": 2, "a": 1}})"), "12");
  EXPECT_EQ(R("{{range .l}}{{if eq . 2}}{{break}}{{end}}{{.}}{{end}}", R"({"l": [1, 2, 3]})"), "1");
  EXPECT_EQ(R("{{define \"x\"}}[{{.}}]{{end}}{{template \"x\" .a}}", R"({"a": 5})"), "[5]");
  EXPECT_EQ(R("{{printf \"%05.1f|%-4s|%q\" 3.14159 \"ab\" \"c\"}}"), "003.1|ab  |\"c\"");
  EXPECT_EQ(R("{{ .s | toUpper }}", R"({"s": "abc"})"), "ABC");
  EXPECT_EQ(R("{{ 1234567.0 }}"), "1.234567e+06");
  EXPECT_EQ(R("{{ .x.y }}"), "<no value>");
  EXPECT_EQ(R("{{ .n.y }}", R"({"n": null})").substr(0, 4), "ERR:");
}

TEST(GoTemplate, ErrorsNameTemplateAndLine) {
  EXPECT_EQ(R("a\n{{if}}"), "ERR: template: t:2: missing value for if");
  EXPECT_EQ(R("{{nope}}"), "ERR: template: t:1: function \"nope\" not defined");
  EXPECT_NE(R("{{call .f}}").find("\"call\" is not supported"), std::string::npos);
  EXPECT_EQ(R("{{template \"z\"}}"), "ERR: template: t:1: executing \"t\": template \"z\" not defined");
}

TEST(GoTemplate, Budgets) {
  // A list doubling in a loop stops at the budget instead of eating memory.
  std::string doubling = "{{$x := list 1}}{{range .l}}{{$x = list $x $x}}{{end}}{{len $x}}";
  nlohmann::json many = {{"l", nlohmann::json::array()}};
  for (int i = 0; i < 64; ++i) many["l"].push_back(i);
  auto out = Render("t", doubling, many);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted) << out.status();
  // Template recursion times control nesting is bounded too (the C++ stack).
  std::string nested = "{{define \"a\"}}";
  for (int i = 0; i < 90; ++i) nested += "{{if 1}}";
  nested += "{{template \"a\" .}}";
  for (int i = 0; i < 90; ++i) nested += "{{end}}";
  nested += "{{end}}{{template \"a\" .}}";
  auto deep_run = Render("t", nested, nlohmann::json::object());
  EXPECT_EQ(deep_run.status().code(), absl::StatusCode::kResourceExhausted) << deep_run.status();
  EXPECT_NE(deep_run.status().message().find("nesting deeper"), std::string::npos) << deep_run.status();
  // Exponential work within the depth limit stops at the time budget.
  Limits quick;
  quick.max_time = std::chrono::milliseconds(200);
  auto start = std::chrono::steady_clock::now();
  auto slow = Render("t", "{{define \"a\"}}{{if lt (len .) 40}}{{template \"a\" (print . \"x\")}}"
                          "{{template \"a\" (print . \"y\")}}{{end}}{{end}}{{template \"a\" \"\"}}",
                     nlohmann::json::object(), "", "", quick);
  EXPECT_EQ(slow.status().code(), absl::StatusCode::kResourceExhausted) << slow.status();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_NE(R("{{define \"a\"}}{{template \"a\" .}}{{end}}{{template \"a\" .}}").find("maximum template depth"),
            std::string::npos);
  std::string deep;
  for (int i = 0; i < 500; ++i) deep += "{{if 1}}";
  EXPECT_NE(R(deep).find("nesting too deep"), std::string::npos);
  EXPECT_NE(R("{{range $i := .l}}{{repeat 100000 \"x\"}}{{repeat 100000 \"x\"}}{{end}}",
              R"({"l": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22]})").find("output exceeds"),
            std::string::npos);
}

// Security review R3-L6: print, println, cat and printf are held to the
// function budget (max_output_bytes) before they build their result, so
// variables, which never reach the output, cannot grow past it either.
TEST(GoTemplate, PrintFunctionsAreBoundedBeforeBuilding) {
  Limits small;
  small.max_output_bytes = 1 << 20;
  const std::string a = "{{ $a := repeat 300000 \"x\" }}";
  for (const char* call : {"print $a $a $a $a", "println $a $a $a $a", "cat $a $a $a $a",
                           "printf \"%s%s%s%s\" $a $a $a $a", "printf \"%900000d%900000d\" 1 2",
                           "quote $a $a $a $a", "html $a $a $a $a"}) {
    auto out = Render("t", a + "{{ $b := " + call + " }}{{ len $b }}", nlohmann::json::object(), "", "", small);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted) << call << ": " << out.status();
  }
  // Within the budget they still print as Go does.
  EXPECT_EQ(*Render("t", a + "{{ len (print $a $a $a) }}", nlohmann::json::object(), "", "", small), "900000");
  EXPECT_EQ(*Render("t", "{{ printf \"%.2s|%5d\" \"abc\" 7 }}", nlohmann::json::object(), "", "", small),
            "ab|    7");
  EXPECT_EQ(*Render("t", "{{ cat \"a\" 1 }} {{ quote \"q\" }}", nlohmann::json::object(), "", "", small),
            "a 1 \"q\"");
}

}  // namespace
}  // namespace sluice::gotemplate
