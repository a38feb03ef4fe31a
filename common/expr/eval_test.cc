// Operators, precedence and the access API's `$appeal` examples over JSON.
#include <string>
#include <vector>

#include "common/expr/expr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::expr {
namespace {

using ::testing::HasSubstr;

const nlohmann::json& Appeal() {
  static const nlohmann::json* doc = new nlohmann::json(nlohmann::json::parse(R"({
    "id": "a-1",
    "role": "viewer",
    "account_id": "user@example.com",
    "created_by": "user@example.com",
    "creator": {"email": "user@example.com", "manager_email": "boss@example.com"},
    "resource": {
      "type": "dataset", "urn": "p:playground", "provider_type": "bigquery",
      "name": "orders",
      "details": {"owner": "owner@example.com", "is_sensitive": true,
                  "labels": {"team": "data"}, "approvers": ["a@x.io", "b@x.io"]}
    },
    "options": {"duration": "24h"},
    "details": {"foo": {"foo": "foobar"}},
    "labels": ["a", "b"],
    "count": 3,
    "ratio": 0.5,
    "empty_list": [],
    "empty_map": {},
    "nothing": null,
    "big": 18446744073709551615,
    "ops": {"eq": 1, "div": 2}
  })"));
  return *doc;
}

absl::StatusOr<Value> Eval(absl::string_view src, const nlohmann::json& doc = Appeal()) {
  auto p = Program::Compile(src);
  if (!p.ok()) return p.status();
  Environment env;
  env.BindJson("$appeal", &doc);
  return (*p)->Evaluate(env);
}

struct Case {
  std::string expr;
  nlohmann::json want;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.expr; }

class EvalTest : public ::testing::TestWithParam<Case> {};

TEST_P(EvalTest, Evaluates) {
  absl::StatusOr<Value> v = Eval(GetParam().expr);
  ASSERT_TRUE(v.ok()) << GetParam().expr << ": " << v.status();
  EXPECT_EQ(v->ToJson(), GetParam().want) << GetParam().expr;
}

using J = nlohmann::json;

INSTANTIATE_TEST_SUITE_P(
    Literals, EvalTest,
    ::testing::Values(Case{"1", 1}, Case{"-1", -1}, Case{"1.5", 1.5}, Case{"1e3", 1000.0},
                      Case{"2.5E-1", 0.25}, Case{"'a'", "a"}, Case{"\"a\"", "a"},
                      Case{R"('it\'s')", "it's"}, Case{R"("q\"q")", "q\"q"},
                      Case{R"('a\nb\t\\')", "a\nb\t\\"}, Case{R"('\u00e9\x41')", "\xc3\xa9" "A"},
                      Case{R"('\ud83d\ude00')", "\xf0\x9f\x98\x80"}, Case{R"('\d+')", "\\d+"},
                      Case{"true", true}, Case{"false", false}, Case{"nil", nullptr},
                      Case{"null", nullptr}, Case{"[]", J::array()}, Case{"[1, 'a', true,]", J{1, "a", true}},
                      Case{"[1, [2, 3]]", J{1, J{2, 3}}}, Case{"9223372036854775807", INT64_MAX},
                      Case{"-9223372036854775807", -INT64_MAX}));

INSTANTIATE_TEST_SUITE_P(
    Arithmetic, EvalTest,
    ::testing::Values(Case{"1 + 2", 3}, Case{"5 - 7", -2}, Case{"6 * 7", 42}, Case{"7 / 2", 3},
                      Case{"-7 / 2", -3}, Case{"7 % 3", 1}, Case{"-7 % 3", -1},
                      Case{"7.0 / 2", 3.5}, Case{"1 + 0.5", 1.5}, Case{"0.5 * 4", 2.0},
                      Case{"7.5 % 2", 1.5}, Case{"'a' + 'b'", "ab"}, Case{"'n' + 1", "n1"},
                      Case{"1 + 'n'", "1n"}, Case{"'x' + true", "xtrue"}, Case{"'x' + 0.5", "x0.5"},
                      Case{"[1] + [2, 3]", J{1, 2, 3}}, Case{"-(2 + 3)", -5}, Case{"+3", 3},
                      Case{"--3", 3}, Case{"-$appeal.count", -3}, Case{"-$appeal.ratio", -0.5},
                      Case{"$appeal.count * 2 + 1", 7}, Case{"$appeal.count / 2.0", 1.5}));

INSTANTIATE_TEST_SUITE_P(
    Comparison, EvalTest,
    ::testing::Values(
        Case{"1 == 1", true}, Case{"1 == 1.0", true}, Case{"1 != 2", true}, Case{"1 == '1'", false},
        Case{"'a' == 'a'", true}, Case{"nil == nil", true}, Case{"nil == false", false},
        Case{"[1, 2] == [1, 2.0]", true}, Case{"[1] == [2]", false}, Case{"1 < 2", true},
        Case{"2 <= 2", true}, Case{"3 > 2.5", true}, Case{"2 >= 3", false}, Case{"'a' < 'b'", true},
        Case{"'b' >= 'a'", true}, Case{"$appeal.resource.details == $appeal.resource.details", true},
        Case{"$appeal.labels == ['a', 'b']", true}, Case{"$appeal.empty_map == $appeal.empty_map", true},
        Case{"$appeal.big > 1e20", false}, Case{"$appeal.big > 1e19", true}));

INSTANTIATE_TEST_SUITE_P(
    Logic, EvalTest,
    ::testing::Values(Case{"true && false", false}, Case{"true and true", true},
                      Case{"false || true", true}, Case{"false or false", false},
                      Case{"!true", false}, Case{"not false", true}, Case{"!nil", true},
                      Case{"nil || true", true},
                      // short-circuit: the right side would be an error
                      Case{"false && 1 / 0 == 1", false}, Case{"true || $nope.x", true},
                      Case{"$appeal.details != nil && $appeal.details.missing != nil && $appeal.details.missing.x", false},
                      Case{"true ? 1 : 2", 1}, Case{"false ? 1 : 2", 2}, Case{"nil ? 1 : 2", 2},
                      Case{"false ? 1 : true ? 2 : 3", 2}, Case{"true ? false ? 1 : 2 : 3", 2}));

INSTANTIATE_TEST_SUITE_P(
    Membership, EvalTest,
    ::testing::Values(Case{"'a' in ['a', 'b']", true}, Case{"'c' in ['a', 'b']", false},
                      Case{"1 in [1.0]", true}, Case{"'oo' in 'foo'", true},
                      Case{"'type' in $appeal.resource", true}, Case{"'x' in $appeal.resource", false},
                      Case{"'a' in $appeal.labels", true}, Case{"'c' not in $appeal.labels", true},
                      Case{"'foo' contains 'oo'", true}, Case{"['x'] contains 'x'", true},
                      Case{"$appeal.resource contains 'urn'", true},
                      Case{"'foo' not contains 'x'", true}, Case{"'foobar' startsWith 'foo'", true},
                      Case{"'foobar' endsWith 'bar'", true}, Case{"'foobar' not startsWith 'bar'", true},
                      Case{"'foobar' matches 'o+b'", true}, Case{"'foobar' matches '^o'", false},
                      Case{"'a1' matches '\\d'", true}, Case{"'abc' matches $appeal.role", false},
                      Case{"'foo' not matches 'x'", true}, Case{"$appeal.nothing in [nil]", true},
                      // JEXL spellings
                      Case{"'abc' =~ 'a.c'", true}, Case{"'abcd' =~ 'a.c'", false},
                      Case{"'abcd' !~ 'a.c'", true}, Case{"'b' =~ ['a', 'b']", true},
                      Case{"'c' !~ ['a', 'b']", true}, Case{"'urn' =~ $appeal.resource", true},
                      Case{"'abc' =^ 'ab'", true}, Case{"'abc' !^ 'ab'", false},
                      Case{"'abc' =$ 'bc'", true}, Case{"'abc' !$ 'bc'", false},
                      Case{"!$appeal.resource.details.is_sensitive", false},
                      Case{"empty($appeal.empty_list)", true}, Case{"empty('')", true},
                      Case{"empty(nil)", true}, Case{"empty($appeal.labels)", false},
                      Case{"empty(0)", false}));

INSTANTIATE_TEST_SUITE_P(
    Access, EvalTest,
    ::testing::Values(Case{"$appeal.resource.details.owner", "owner@example.com"},
                      Case{"$appeal['resource']['type']", "dataset"},
                      Case{"$appeal.resource.details.approvers[0]", "a@x.io"},
                      Case{"$appeal.resource.details.approvers[-1]", "b@x.io"},
                      Case{"$appeal.labels[1 + 0]", "b"}, Case{"$appeal.missing", nullptr},
                      Case{"$appeal.nothing", nullptr}, Case{"$appeal.resource.details.labels",
                                                             J{{"team", "data"}}},
                      Case{"$appeal.resource.details.approvers", J{"a@x.io", "b@x.io"}},
                      Case{"[$appeal.creator.email, $appeal.creator.manager_email]",
                           J{"user@example.com", "boss@example.com"}},
                      // keywords are allowed as member names after '.'
                      Case{"$appeal.details.foo.foo", "foobar"}));

INSTANTIATE_TEST_SUITE_P(
    Functions, EvalTest,
    ::testing::Values(Case{"len('abc')", 3}, Case{"len($appeal.labels)", 2},
                      Case{"size($appeal.resource)", 5}, Case{"lower('AbC')", "abc"},
                      Case{"upper($appeal.role)", "VIEWER"}, Case{"$appeal.role.length()", 6},
                      Case{"$appeal.role.equals('viewer')", true},
                      Case{"$appeal.role.startsWith('view')", true},
                      Case{"$appeal.role.toUpperCase()", "VIEWER"},
                      Case{"' x '.trim()", "x"}, Case{"$appeal.labels.size()", 2},
                      Case{"$appeal.labels.contains('a')", true},
                      Case{"$appeal.resource.containsKey('urn')", true},
                      Case{"$appeal.resource.get('urn')", "p:playground"},
                      Case{"'abc'.matches('a.c')", true}, Case{"'abcd'.matches('a.c')", false},
                      Case{"$appeal.empty_list.isEmpty()", true}));

// Each level binds tighter than the one before it.
INSTANTIATE_TEST_SUITE_P(
    Precedence, EvalTest,
    ::testing::Values(Case{"1 + 2 * 3", 7}, Case{"(1 + 2) * 3", 9}, Case{"10 - 4 - 3", 3},
                      Case{"24 / 4 / 2", 3}, Case{"7 % 4 * 2", 6}, Case{"-2 * 3", -6},
                      Case{"1 + 2 < 4", true}, Case{"1 < 2 == true", true},
                      Case{"2 > 1 == 3 > 2", true}, Case{"'a' in ['a'] == true", true},
                      Case{"'ab' contains 'a' == true", true}, Case{"1 == 1 && 2 == 2", true},
                      Case{"true || false && false", true}, Case{"(true || false) && false", false},
                      Case{"false && false || true", true}, Case{"!false && false", false},
                      Case{"!(false && false)", true}, 
                      Case{"true ? 1 : 0 + 10", 1}, Case{"false || true ? 'y' : 'n'", "y"},
                      Case{"'a' + 'b' == 'ab'", true}, Case{"1 + 1 in [2]", true},
                      Case{"- 2 + 3", 1}, Case{"1 - -1", 2}));

// JEXL's word operators, and nil handling shared by JEXL 3.3 and expr-lang:
// ?? (null coalescing), ?: (elvis) and ?. (nil-safe navigation, which also
// covers the rest of its chain).
INSTANTIATE_TEST_SUITE_P(
    WordOperatorsAndNilHandling, EvalTest,
    ::testing::Values(
        Case{"1 eq 1", true}, Case{"1 ne 1", false}, Case{"1 lt 2", true}, Case{"2 le 1", false},
        Case{"3 gt 2.5", true}, Case{"2 ge 2", true}, Case{"7 div 2", 3}, Case{"7 mod 3", 1},
        Case{"$appeal.role eq 'viewer' and $appeal.count gt 2", true},
        Case{"1 + 2 eq 3", true}, Case{"8 div 2 * 2", 8},
        Case{"$appeal.nothing ?? 'fallback'", "fallback"}, Case{"$appeal.role ?? 'x'", "viewer"},
        Case{"$appeal.details.missing ?? $appeal.nothing ?? 3", 3},
        Case{"false ?? true", false}, Case{"$appeal.count ?? 0", 3},
        Case{"'' ?: 'empty'", "empty"}, Case{"0 ?: 5", 5}, Case{"$appeal.role ?: 'x'", "viewer"},
        Case{"$appeal.nothing ?: false", false},
        Case{"$appeal.nothing?.x", nullptr}, Case{"$appeal.nothing?.x.y", nullptr},
        Case{"$appeal.nothing?.size()", nullptr}, Case{"$appeal.nothing?.['k']", nullptr},
        Case{"$appeal.details?.foo.foo", "foobar"},
        Case{"$appeal.details.missing?.foo ?? 'none'", "none"},
        Case{"$appeal.labels?.[1]", "b"},
        Case{"$appeal.nothing?.x == nil ? 'no' : 'yes'", "no"},
        // the words stay field names after a dot
        Case{"$appeal.ops.eq + $appeal.ops.div", 3}));

// The access API's examples from the issue.
INSTANTIATE_TEST_SUITE_P(
    Appeals, EvalTest,
    ::testing::Values(
        Case{"$appeal.resource.details.owner", "owner@example.com"},
        Case{"$appeal.resource.details.is_sensitive == true", true},
        Case{R"(not ($appeal.resource.type == "dataset" && $appeal.resource.urn == "p:playground"))", false},
        Case{R"($appeal.details != nil && $appeal.details.foo != nil && ($appeal.details.foo.foo contains "foo"))", true},
        Case{"!($appeal.role contains 'viewer') || $appeal.resource.provider_type == 'gcloud_iam' && $appeal.options.duration in ['0h','']", false},
        Case{"$appeal.creator.manager_email", "boss@example.com"}));

TEST(Appeals, WhenExampleTrueBranch) {
  nlohmann::json doc = Appeal();
  doc["resource"]["provider_type"] = "gcloud_iam";
  doc["options"]["duration"] = "";
  auto v = Eval("!($appeal.role contains 'viewer') || $appeal.resource.provider_type == 'gcloud_iam' && $appeal.options.duration in ['0h','']", doc);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->ToJson(), true);
  doc["role"] = "editor";
  doc["options"]["duration"] = "1h";
  v = Eval("!($appeal.role contains 'viewer') || $appeal.resource.provider_type == 'gcloud_iam' && $appeal.options.duration in ['0h','']", doc);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->ToJson(), true);
}

TEST(Appeals, GuardedDetailsMissing) {
  nlohmann::json doc = Appeal();
  doc.erase("details");
  auto v = Eval(R"($appeal.details != nil && $appeal.details.foo != nil && ($appeal.details.foo.foo contains "foo"))", doc);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->ToJson(), false);
}

// Firehose-style getters over a JSON record (sluice-sink, FILTER_ENGINE=JEXL
// with INPUT_SCHEMA_DATA_TYPE=json): the same expression reads a proto message
// or the JSON printed from it.
TEST(JsonGetters, ReadCamelSnakeAndListForms) {
  nlohmann::json doc = nlohmann::json::parse(
      R"({"driver":{"name":"ana","vehicle_type":"BIKE","DriverId":7},"tags":["a","b"],"fareValue":null})");
  auto eval = [&](absl::string_view src) {
    auto p = Program::Compile(src);
    EXPECT_TRUE(p.ok()) << p.status();
    Environment env;
    env.BindJson("message", &doc);
    absl::StatusOr<Value> v = (*p)->Evaluate(env);
    EXPECT_TRUE(v.ok()) << src << ": " << v.status();
    return v.ok() ? v->ToJson() : nlohmann::json("error");
  };
  EXPECT_EQ(eval("message.getDriver().getName()"), "ana");
  EXPECT_EQ(eval("message.driver.name"), "ana");
  EXPECT_EQ(eval("message.getDriver().getVehicleType() == 'BIKE'"), true) << "snake_case key";
  EXPECT_EQ(eval("message.getDriver().getDriverId()"), 7) << "the key as written";
  EXPECT_EQ(eval("message.getTagsList()[1]"), "b");
  EXPECT_EQ(eval("message.getTagsCount()"), 2);
  EXPECT_EQ(eval("message.getTags().size()"), 2);
  EXPECT_EQ(eval("message.getMissing()"), nullptr) << "a missing key reads as null";
  EXPECT_EQ(eval("message.hasDriver() && !message.hasFareValue() && !message.hasMissing()"), true);
  EXPECT_EQ(eval("message.getDriver().get('name')"), "ana") << "get(key) still indexes";
}

struct ErrorCase {
  std::string expr;
  std::string want;  // substring of the error message
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.expr; }

class EvalErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(EvalErrorTest, Fails) {
  absl::StatusOr<Value> v = Eval(GetParam().expr);
  ASSERT_FALSE(v.ok()) << GetParam().expr << " gave " << v->DebugString();
  EXPECT_THAT(std::string(v.status().message()), HasSubstr(GetParam().want)) << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(
    Runtime, EvalErrorTest,
    ::testing::Values(
        ErrorCase{"1 / 0", "division by zero in `1 / 0` at column 1"},
        ErrorCase{"1 % 0", "division by zero"}, ErrorCase{"1.5 / 0", "division by zero"},
        ErrorCase{"2 + $appeal.count / ($appeal.count - 3)",
                  "division by zero in `$appeal.count / ($appeal.count - 3)` at column 5"},
        ErrorCase{"9223372036854775807 + 1", "integer overflow"},
        ErrorCase{"-9223372036854775807 - 2", "integer overflow"},
        ErrorCase{"9223372036854775807 * 2", "integer overflow"},
        ErrorCase{"1 + true", "type mismatch: cannot apply '+' to int and bool in `1 + true`"},
        ErrorCase{"'a' - 1", "cannot apply '-' to string and int"},
        ErrorCase{"'a' < 1", "cannot apply '<' to string and int"},
        ErrorCase{"1 && true", "'&&' needs a bool, got int in `1`"},
        ErrorCase{"!'x'", "'!' needs a bool"}, ErrorCase{"not 'a' == 'b'", "'!' needs a bool"}, ErrorCase{"'x' ? 1 : 2", "'?:' needs a bool"},
        ErrorCase{"-'x'", "cannot negate a string"},
        ErrorCase{"$appeal.nothing.x", "cannot read field 'x' of null in `$appeal.nothing.x`"},
        ErrorCase{"$appeal.role.x", "cannot read field 'x' of a string"},
        ErrorCase{"$appeal.labels[5]", "index 5 out of range (size 2)"},
        ErrorCase{"$appeal.labels['x']", "list index must be an int"},
        ErrorCase{"$appeal.resource[1]", "map key must be a string"},
        ErrorCase{"$appeal.role[0]", "cannot index string"},
        ErrorCase{"$other.x", "unknown variable '$other' in `$other` at column 1"},
        ErrorCase{"1 in 2", "cannot apply 'in' to int and int"},
        ErrorCase{"1 contains 'a'", "cannot apply 'contains'"},
        ErrorCase{"1 startsWith 'a'", "cannot apply 'startsWith'"},
        ErrorCase{"'a' matches $appeal.bad_regex_holder", "cannot apply 'matches' to string and null"},
        ErrorCase{"'a' matches ('(' + '')", "invalid regular expression: missing ): ( in"},
        ErrorCase{"len(1)", "len() does not accept a int"},
        ErrorCase{"1 =~ 'a'", "cannot apply '=~' to int and string"},
        ErrorCase{"'a' =~ ('(' + '')", "invalid regular expression"},
        ErrorCase{"lower(1)", "lower() does not accept a int"},
        ErrorCase{"$appeal.role.nope()", "no method 'nope' on a string"},
        ErrorCase{"$appeal.role.startsWith(1)", "needs a string argument, got int"},
        ErrorCase{"$appeal.role.length(1)", "'length' takes 0 arguments, got 1"},
        ErrorCase{"$appeal.nothing.size()", "no method 'size' on null"},
        // ?. guards only its own chain
        ErrorCase{"($appeal.nothing?.x).y", "cannot read field 'y' of null"},
        ErrorCase{"$appeal.nothing?.x + 1", "cannot apply '+' to null and int"}));

TEST(Program, TruthinessHelpers) {
  struct T {
    std::string expr;
    bool truthy;
  };
  for (const T& t : std::vector<T>{{"true", true},
                                   {"false", false},
                                   {"0", false},
                                   {"0.0", false},
                                   {"1", true},
                                   {"''", false},
                                   {"'x'", true},
                                   {"nil", false},
                                   {"[]", false},
                                   {"[0]", true},
                                   {"$appeal.empty_map", false},
                                   {"$appeal.empty_list", false},
                                   {"$appeal.resource", true},
                                   {"$appeal.missing", false}}) {
    auto p = Program::Compile(t.expr);
    ASSERT_TRUE(p.ok()) << p.status();
    Environment env;
    env.BindJson("$appeal", &Appeal());
    absl::StatusOr<bool> truthy = (*p)->EvaluateTruthy(env);
    ASSERT_TRUE(truthy.ok()) << truthy.status();
    EXPECT_EQ(*truthy, t.truthy) << t.expr;
    absl::StatusOr<bool> strict = (*p)->EvaluateBool(env);
    if (t.expr == "true" || t.expr == "false") {
      ASSERT_TRUE(strict.ok());
      EXPECT_EQ(*strict, t.truthy);
    } else {
      ASSERT_FALSE(strict.ok()) << t.expr;
      EXPECT_THAT(std::string(strict.status().message()),
                  HasSubstr("expression must evaluate to a bool"));
    }
  }
}

TEST(Program, RootIdentifiers) {
  auto p = Program::Compile("$appeal.a == $b.c || $appeal.d in x && len(y) > 0");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->RootIdentifiers(), (std::vector<std::string>{"$appeal", "$b", "x", "y"}));
  auto q = Program::Compile("1 + 2");
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE((*q)->RootIdentifiers().empty());
  EXPECT_EQ((*q)->source(), "1 + 2");
}

TEST(Program, ResultOutlivesEnvironmentAndConvertsToJson) {
  auto p = Program::Compile("[$appeal.creator.email, $appeal.creator.manager_email]");
  ASSERT_TRUE(p.ok());
  Value v;
  {
    Environment env;
    env.BindJson("$appeal", &Appeal());
    auto r = (*p)->Evaluate(env);
    ASSERT_TRUE(r.ok());
    v = *r;
  }
  EXPECT_EQ(ToJson(v), (J{"user@example.com", "boss@example.com"}));
}

TEST(Environment, RebindReplacesAndLookupMisses) {
  nlohmann::json a = 1, b = 2;
  Environment env;
  env.BindJson("x", &a).BindJson("y", &a).BindJson("x", &b).BindValue("z", Value::String("s"));
  ASSERT_NE(env.Lookup("x"), nullptr);
  EXPECT_EQ(env.Lookup("x")->int_value(), 2);
  EXPECT_EQ(env.Lookup("z")->string_value(), "s");
  EXPECT_EQ(env.Lookup("w"), nullptr);
}

}  // namespace
}  // namespace sluice::expr
