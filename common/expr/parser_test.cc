// Syntax errors (each position class), caret snippets and nesting limits.
#include <string>

#include "common/expr/expr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::expr {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string CompileError(absl::string_view src) {
  auto p = Program::Compile(src);
  if (p.ok()) return "<compiled>";
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(p.status().message());
}

TEST(Parser, ErrorHasColumnAndCaret) {
  EXPECT_EQ(CompileError("(a.b == 'x'))"),
            "unexpected ')' at column 13\n"
            "(a.b == 'x'))\n"
            "            ^");
  EXPECT_EQ(CompileError("$appeal.x == )"),
            "unexpected ')' at column 14\n"
            "$appeal.x == )\n"
            "             ^");
}

TEST(Parser, MultiLineErrorsNameTheLine) {
  EXPECT_EQ(CompileError("$appeal.a == 1 &&\n  $appeal.b == )"),
            "unexpected ')' at line 2, column 16\n"
            "  $appeal.b == )\n"
            "               ^");
}

struct ErrorCase {
  std::string src;
  std::string want;  // prefix of the message (up to the snippet)
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.src; }

class ParseErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParseErrorTest, Fails) {
  EXPECT_THAT(CompileError(GetParam().src), StartsWith(GetParam().want)) << GetParam().src;
}

INSTANTIATE_TEST_SUITE_P(
    Positions, ParseErrorTest,
    ::testing::Values(
        // empty input / end of input where an operand is required
        ErrorCase{"", "unexpected end of input at column 1"},
        ErrorCase{"   ", "unexpected end of input at column 4"},
        ErrorCase{"1 +", "unexpected end of input at column 4"},
        ErrorCase{"!", "unexpected end of input at column 2"},
        // binary operator where an operand is required
        ErrorCase{"* 2", "unexpected '*' at column 1"},
        ErrorCase{"1 + * 2", "unexpected '*' at column 5"},
        ErrorCase{"a && || b", "unexpected '||' at column 6"},
        // trailing tokens after a complete expression
        ErrorCase{"1 2", "unexpected '2' at column 3"},
        ErrorCase{"a b", "unexpected 'b' at column 3"},
        ErrorCase{"a.b c", "unexpected 'c' at column 5"},
        // unclosed / mismatched brackets
        ErrorCase{"(1 + 2", "unexpected end of input at column 7"},
        ErrorCase{"[1, 2", "unexpected end of input at column 6"},
        ErrorCase{"a[1", "unexpected end of input at column 4"},
        ErrorCase{"len(1", "unexpected end of input at column 6"},
        ErrorCase{"(1]", "unexpected ']' at column 3"},
        ErrorCase{"[1 2]", "unexpected '2' at column 4"},
        // member access
        ErrorCase{"a.", "unexpected end of input at column 3"},
        ErrorCase{"a.1", "unexpected '1' at column 3"},
        ErrorCase{"a..b", "unexpected '.' at column 3"},
        // ternary
        ErrorCase{"a ? 1", "unexpected end of input at column 6"},
        ErrorCase{"a ? 1 , 2", "unexpected ',' at column 7"},
        ErrorCase{"a : 1", "unexpected ':' at column 3"},
        // lexical errors
        ErrorCase{"'abc", "unterminated string literal at column 1"},
        ErrorCase{"a == \"x", "unterminated string literal at column 6"},
        ErrorCase{"a = 1", "unexpected '=' (use '==' to compare) at column 3"},
        ErrorCase{"a # b", "unexpected character '#' at column 3"},
        ErrorCase{"a & b", "unexpected character '&' at column 3"},
        ErrorCase{"12abc", "invalid number literal at column 3"},
        ErrorCase{"99999999999999999999", "integer literal out of range at column 1"},
        ErrorCase{"1e999", "number literal out of range at column 1"},
        ErrorCase{"'\\x4'", "invalid \\x escape at column 2"},
        ErrorCase{"'\\u12'", "invalid \\u escape at column 2"},
        ErrorCase{"'\\ud800'", "unpaired surrogate at column 2"},
        ErrorCase{"a \x01", "unexpected byte 0x01 at column 3"},
        // functions
        ErrorCase{"foo(1)", "unknown function 'foo' (known: len, size, lower, upper, empty, int) at column 1"},
        ErrorCase{"len(1, 2)", "function 'len' takes 1 argument, got 2 at column 1"},
        ErrorCase{"len()", "function 'len' takes 1 argument, got 0 at column 1"},
        // literal regexes are checked at compile time
        ErrorCase{"a matches '('", "invalid regular expression: missing ): ( at column 11"},
        ErrorCase{"a =~ '['", "invalid regular expression: missing ]: [ at column 6"},
        // keywords cannot be operands
        ErrorCase{"in", "unexpected 'in' at column 1"},
        ErrorCase{"a not b", "unexpected 'not' at column 3"}));

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '(');
  EXPECT_THAT(CompileError(deep), HasSubstr("nested too deeply"));
  EXPECT_THAT(CompileError(std::string(100000, '!') + "true"), HasSubstr("nested too deeply"));
  EXPECT_THAT(CompileError(std::string(100000, '[')), HasSubstr("nested too deeply"));
  EXPECT_THAT(CompileError(std::string(100000, '-') + "1"), HasSubstr("nested too deeply"));
  std::string chain = "a";
  for (int i = 0; i < 5000; ++i) chain += ".b";
  EXPECT_THAT(CompileError(chain), HasSubstr("nested too deeply"));
  std::string sum = "1";
  for (int i = 0; i < 5000; ++i) sum += " + 1";
  EXPECT_THAT(CompileError(sum), HasSubstr("nested too deeply"));
}

TEST(Parser, ModerateNestingWorks) {
  std::string src = std::string(50, '(') + "1" + std::string(50, ')');
  auto p = Program::Compile(src);
  ASSERT_TRUE(p.ok()) << p.status();
  std::string sum = "1";
  for (int i = 0; i < 300; ++i) sum += " + 1";
  auto q = Program::Compile(sum);
  ASSERT_TRUE(q.ok()) << q.status();
  auto v = (*q)->Evaluate(Environment());
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->int_value(), 301);
}

TEST(Parser, KeywordsAsMemberNamesAndDollarIdentifiers) {
  nlohmann::json doc = {{"in", 1}, {"not", 2}, {"matches", 3}, {"null", 4}};
  auto p = Program::Compile("$d.in + $d.not + $d.matches + $d.null");
  ASSERT_TRUE(p.ok()) << p.status();
  Environment env;
  env.BindJson("$d", &doc);
  auto v = (*p)->Evaluate(env);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->int_value(), 10);
}

}  // namespace
}  // namespace sluice::expr
