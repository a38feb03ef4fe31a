// The replay table's mechanics: substitution, paths, checks, route fit.
#include <gtest/gtest.h>

#include "integration/replay.h"

namespace sluice::integration::replay {
namespace {

using nlohmann::json;

TEST(SubstituteTest, WholeStringTakesTheValueAndPartsTakeItsText) {
  json vars = {{"id", "p-1"}, {"creds", {{"host", "h"}}}, {"n", 2}};
  std::set<std::string> missing;
  json out = Substitute(
      json{{"path", "/x/{{id}}/y/{{n}}"}, {"c", "{{creds}}"}, {"l", {"{{id}}", "{{nope}}"}}}, vars,
      &missing);
  EXPECT_EQ(out["path"], "/x/p-1/y/2");
  EXPECT_EQ(out["c"], json({{"host", "h"}}));
  EXPECT_EQ(out["l"], json({"p-1", "{{nope}}"}));
  EXPECT_EQ(missing, std::set<std::string>{"nope"});
}

TEST(LookupTest, KeysIndexesAndSelectors) {
  json doc = json::parse(R"({"appeals": [{"id": "a", "approvals": [
      {"name": "s1", "approvers": ["x@y.z"]}, {"name": "s2", "n": 3}]}],
      "grants": [{"account_id": "u@example.com", "id": "g"}], "total": 1})");
  EXPECT_EQ(*Lookup(doc, "appeals[0].approvals[name=s2].n"), 3);
  EXPECT_EQ(*Lookup(doc, "grants[account_id=u@example.com].id"), "g");
  EXPECT_EQ(*Lookup(doc, "appeals[0].approvals[n=3].name"), "s2");
  EXPECT_EQ(*Lookup(doc, ""), doc);
  EXPECT_FALSE(Lookup(doc, "appeals[1]").has_value());
  EXPECT_FALSE(Lookup(doc, "appeals[0].approvals[name=s9]").has_value());
  EXPECT_FALSE(Lookup(doc, "total.x").has_value());
  EXPECT_FALSE(Lookup(doc, "appeals[0").has_value());
}

TEST(CheckTest, EachKindSaysWhyItFails) {
  json doc = json::parse(R"({"a": {"s": "pending", "l": ["x", "y"], "e": []}})");
  EXPECT_EQ(Check(doc, {{"at", "a.s"}, {"eq", "pending"}}, "Guardian"), "");
  EXPECT_EQ(Check(doc, {{"at", "a.s"}, {"eq", "approved"}}, "Guardian"),
            "a.s is \"pending\", Guardian gives \"approved\"");
  EXPECT_EQ(Check(doc, {{"at", "a.s"}, {"eq", "approved"}}, "Siren"),
            "a.s is \"pending\", Siren gives \"approved\"");
  EXPECT_EQ(Check(doc, {{"at", "a.l"}, {"contains", "y"}}, "Guardian"), "");
  EXPECT_EQ(Check(doc, {{"at", "a.s"}, {"contains", "end"}}, "Guardian"), "");
  EXPECT_NE(Check(doc, {{"at", "a.l"}, {"contains", "z"}}, "Guardian"), "");
  EXPECT_EQ(Check(doc, {{"at", "a.e"}, {"nonempty", true}}, "Guardian"), "a.e is empty: []");
  EXPECT_EQ(Check(doc, {{"at", "a.q"}, {"exists", false}}, "Guardian"), "");
  EXPECT_EQ(Check(doc, {{"at", "a.q"}, {"eq", 1}}, "Guardian"), "a.q is missing");
}

TEST(ExpectTest, StatusCodeMessageAndChecks) {
  json err = {{"code", 12},
              {"message", "appeal activities are not implemented"},
              {"details", json::array()}};
  EXPECT_EQ(
      Expect({{"status", 501}, {"code", 12}, {"message_has", "Activit"}}, 501, err, "Guardian"), "");
  EXPECT_EQ(Expect({{"status", 200}}, 404, {{"code", 5}, {"message", "not found"}}, "Guardian"),
            "HTTP 404 (Guardian: 200): 5 not found");
  EXPECT_EQ(Expect({{"status", 200}}, 404, {{"code", 5}, {"message", "not found"}}, "Siren"),
            "HTTP 404 (Siren: 200): 5 not found");
  EXPECT_EQ(Expect({{"status", 400}, {"code", 3}}, 400, {{"code", 5}}, "Siren"),
            "code 5 (Siren: 3)");
  EXPECT_NE(
      Expect({{"status", 501}, {"code", 12}, {"message_has", "relabel"}}, 501, err, "Guardian"), "");
  EXPECT_NE(Expect({{"status", 200}, {"checks", {{{"at", "x"}, {"eq", 1}}}}}, 200, json::object(),
                   "Guardian"),
            "");
}

TEST(MatchesRouteTest, MethodLiteralsAndParameters) {
  EXPECT_EQ(MatchesRoute("GET /v1beta1/providers/{id}", "GET", "/providers/abc"), "");
  EXPECT_EQ(MatchesRoute("GET /v1beta1/resources", "GET", "/resources?urn=x"), "");
  EXPECT_EQ(
      MatchesRoute("PUT /v1beta1/providers/{config.type}/{config.urn}", "PUT", "/providers/noop/u"),
      "");
  EXPECT_NE(MatchesRoute("GET /v1beta1/providers/{id}", "PUT", "/providers/abc"), "");
  EXPECT_NE(MatchesRoute("GET /v1beta1/providers/types", "GET", "/providers/typez"), "");
  EXPECT_NE(MatchesRoute("GET /v1beta1/providers/{id}", "GET", "/providers/a/b"), "");
}

TEST(MatchesRouteTest, PathIsRelativeToTheRoutesVersion) {
  EXPECT_EQ(MatchesRoute("GET /v1/subscriptions", "GET", "/subscriptions?namespace_id=1"), "");
  EXPECT_NE(MatchesRoute("GET /v2/subscriptions", "GET", "/subscriptions"), "");
}

}  // namespace
}  // namespace sluice::integration::replay
