// The transcript mechanics without a program: normalization, field-by-field
// comparison and the allow-list verdict (transcript.h).
#include "integration/transcript.h"

#include <gtest/gtest.h>

namespace sluice::integration::transcript {
namespace {

using nlohmann::json;

TEST(NormalizeTest, SavedValuesIdsUuidsAndTimesBecomePlaceholders) {
  json vars = {{"appeal_id", "0b3c5d2e-1111-4222-8333-944455556666"},
               {"receiver_url", "http://127.0.0.1:4321"}};
  json in = {{"id", "0b3c5d2e-1111-4222-8333-944455556666"},
             {"url", "http://127.0.0.1:4321/r1"},
             {"other", "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"},
             {"created_at", "2026-11-28T21:00:00.123Z"},
             {"zero", "0001-01-01T00:00:00Z"},
             {"receiver_id", 7},
             {"subscription_id", "12"},
             {"version", 1},
             {"list", {3, 1, 2}}};
  json out = Normalize(in, vars, /*unordered=*/false);
  EXPECT_EQ(out["id"], "{{appeal_id}}");
  EXPECT_EQ(out["url"], "{{receiver_url}}/r1");
  EXPECT_EQ(out["other"], "<uuid>");
  EXPECT_EQ(out["created_at"], "<time>");
  EXPECT_EQ(out["zero"], "0001-01-01T00:00:00Z");  // a zero time is a fact, not noise
  EXPECT_EQ(out["receiver_id"], "<id>");
  EXPECT_EQ(out["subscription_id"], "<id>");
  EXPECT_EQ(out["version"], 1);  // only id keys lose their numbers
  EXPECT_EQ(out["list"], json({3, 1, 2}));
  EXPECT_EQ(Normalize(in, vars, /*unordered=*/true)["list"], json({1, 2, 3}));
}

json Transcript(std::vector<json> exchanges) { return {{"exchanges", exchanges}}; }

TEST(CompareTest, FindsEveryKindOfDifferenceByPath) {
  json u = Transcript({{{"n", 1}, {"step", "list"}, {"status", 200},
                        {"headers", {{"content-type", "application/json"}}},
                        {"body", {{"total", 2}, {"rows", {{{"a", 1}}, {{"a", 2}}}}, {"gone", "x"}}}}});
  json s = Transcript({{{"n", 1}, {"step", "list"}, {"status", 200},
                        {"headers", {{"content-type", "application/json"}}},
                        {"body", {{"total", 1}, {"rows", {{{"a", 1}, {"flag", false}}}}, {"new", "y"}}}}});
  std::vector<Difference> d = Compare(u, s);
  std::vector<std::string> got;
  for (const auto& x : d) got.push_back(x.at + " " + x.kind);
  EXPECT_EQ(got, (std::vector<std::string>{"body.gone missing", "body.new extra",
                                           "body.rows[0].flag extra_default",
                                           "body.rows[1] missing", "body.total value"}));
  EXPECT_EQ(d[4].upstream, "2");
  EXPECT_EQ(d[4].sluice, "1");
}

TEST(CompareTest, AnElementMissingFromTheMiddleOfAListIsOneDifference) {
  json u = Transcript({{{"n", 1}, {"step", "list"}, {"status", 200},
                        {"body", {{"rows", {{{"urn", "a"}}, {{"urn", "b"}}, {{"urn", "c"}}}}}}}});
  json s = Transcript({{{"n", 1}, {"step", "list"}, {"status", 200},
                        {"body", {{"rows", {{{"urn", "a"}}, {{"urn", "c"}, {"x", ""}}}}}}}});
  std::vector<Difference> d = Compare(u, s);
  std::vector<std::string> got;
  for (const auto& x : d) got.push_back(x.at + " " + x.kind);
  EXPECT_EQ(got, (std::vector<std::string>{"body.rows[1] missing", "body.rows[2].x extra_default"}));
}

TEST(CompareTest, UnorderedStepsPairListElementsByContent) {
  json u = Transcript({{{"n", 1}, {"step", "list"}, {"status", 200},
                        {"body", {{"rows", {{{"urn", "a"}, {"v", 1}}, {{"urn", "b"}, {"v", 2}}}}}}}});
  json s = Transcript({{{"n", 1}, {"step", "list"}, {"status", 200},
                        {"body", {{"rows", {{{"urn", "b"}, {"v", 2}, {"new", "x"}},
                                            {{"urn", "a"}, {"v", 1}}}}}}}});
  std::vector<std::string> got;
  for (const auto& x : Compare(u, s, {1})) got.push_back(x.at + " " + x.kind);
  EXPECT_EQ(got, (std::vector<std::string>{"body.rows[1].new extra"}));
  EXPECT_EQ(Compare(u, s).size(), 5u);  // by position: urn and v twice, new
}

TEST(CompareTest, AnObjectOfDefaultsIsADefault) {
  json u = Transcript({{{"n", 1}, {"step", "get"}, {"status", 200}, {"body", {{"a", 1}}}}});
  json s = Transcript({{{"n", 1}, {"step", "get"}, {"status", 200},
                        {"body", {{"a", 1}, {"options", {{"duration", ""}, {"at", nullptr}}}}}}});
  std::vector<Difference> d = Compare(u, s);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, "extra_default");
}

TEST(NormalizeTest, UnorderedListsSortAlikeWithAndWithoutDefaults) {
  json with = json::parse(R"([{"b":"2","a":""},{"b":"1","a":"z"}])");
  json without = json::parse(R"([{"b":"2"},{"b":"1","a":"z"}])");
  json a = Normalize(with, json::object(), /*unordered=*/true);
  json b = Normalize(without, json::object(), /*unordered=*/true);
  EXPECT_EQ(a[0]["b"], b[0]["b"]);
  EXPECT_EQ(a[1]["b"], b[1]["b"]);
}

TEST(CompareTest, DeliveriesPairWithinTheirStepAndACountDifferenceShows) {
  json delivery = {{"n", 3}, {"step", "alerts reach r1"}, {"delivery", {{"body", {{"a", 1}}}}}};
  json u = Transcript({delivery, delivery, {{"n", 4}, {"step", "after"}, {"status", 200}}});
  json s = Transcript({delivery, {{"n", 4}, {"step", "after"}, {"status", 200}}});
  std::vector<Difference> d = Compare(u, s);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].at, "exchange");
  EXPECT_EQ(d[0].kind, "missing");
  EXPECT_EQ(d[0].step, "alerts reach r1");
}

TEST(JudgeTest, CountsIdenticalAllowedAndUnexplained) {
  std::vector<Difference> diffs = {
      {0, "create", "body.message", "value", "\"a\"", "\"b\""},
      {0, "create", "body.details", "extra_default", "", "[]"},
      {2, "list", "body.total", "value", "2", "1"},
  };
  std::vector<Allowance> allowed = {
      {"", R"(body\.message)", "value", "error texts are Sluice's own", "guide#errors"},
      {"", R"(body\..*)", "extra_default", "defaults are emitted", "guide#defaults"},
      {"never", "x", "", "unused", "guide#x"},
  };
  Verdict v = Judge(3, diffs, allowed);
  EXPECT_EQ(v.identical, 1);
  EXPECT_EQ(v.allowed, 2);
  ASSERT_EQ(v.unexplained.size(), 1u);
  EXPECT_NE(v.unexplained[0].find("body.total"), std::string::npos);
  EXPECT_EQ(v.unused.size(), 1u);
}

}  // namespace
}  // namespace sluice::integration::transcript
