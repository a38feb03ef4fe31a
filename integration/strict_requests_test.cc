// Strict requests through the real gateway (issue 28, item 1): a JSON body
// field or a query parameter that the route's request message does not have
// is a 400 / INVALID_ARGUMENT naming the field and the message, on access
// and notification routes alike, and nothing reaches the server. Known
// fields, repeated and map parameters keep working. Also Guardian's liveness
// path GET /ping.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "integration/appeal_fixture.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kAdmin[] = "admin@example.com";  // access and notification admin

class StrictRequestsTest : public AppealTest {
 protected:
  static void SetUpTestSuite() {
    AppealTest::SetUpTestSuite();
    resource_ = Setup("strict", json::parse(R"({"steps": [{"name": "owner", "strategy": "manual",
        "approvers": ["$appeal.resource.details.owner"]}],
        "appeal": {"allow_permanent_access": true}})"));
  }
  // The whole rpcStatus message of a 400 / code 3 answer.
  static std::string Refusal(const HttpResponse& r) {
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(r.Json().value("code", -1), 3) << r.body;
    return r.Json().value("message", "");
  }
  static int MyAppeals() { return Call("GET", "/me/appeals").Json().value("total", -1); }

  static inline std::string resource_;
};

TEST_F(StrictRequestsTest, UnknownBodyFieldIsRefusedNamingFieldAndMessage) {
  int before = MyAppeals();
  json body = {{"dryrun", true}, {"resources", {{{"id", resource_}, {"role", "viewer"}}}}};
  auto r = Call("POST", "/appeals", body);
  EXPECT_EQ(Refusal(r), R"(unknown field "dryrun" in CreateAppealRequest)");
  EXPECT_EQ(MyAppeals(), before) << "the refused request created an appeal";

  // The same body without the typo is served.
  body.erase("dryrun");
  auto ok = Call("POST", "/appeals", body);
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(MyAppeals(), before + 1);
}

TEST_F(StrictRequestsTest, NestedUnknownBodyFieldNamesTheInnermostMessage) {
  // Guardian's resources[].group_id, which Sluice does not implement.
  auto r = Call("POST", "/appeals",
                json{{"resources", {{{"id", resource_}, {"role", "viewer"}, {"group_id", "g1"}}}}});
  EXPECT_EQ(Refusal(r), R"(unknown field "group_id" in AppealResourceRequest)");
  auto deeper = Call("POST", "/appeals",
                     json{{"resources", {{{"id", resource_}, {"role", "viewer"},
                                          {"options", {{"duration", "1h"}, {"durationn", "2h"}}}}}}});
  EXPECT_EQ(Refusal(deeper), R"(unknown field "durationn" in AppealOptions)");
  auto step = Call("POST", "/policies",
                   json::parse(R"({"id": "strict-typo", "steps": [{"name": "s", "strategy": "auto",
                       "approve_iff": "true"}]})"),
                   kAdmin);
  EXPECT_EQ(Refusal(step), R"(unknown field "approve_iff" in Step)");
  EXPECT_EQ(Call("GET", "/policies/strict-typo", nullptr, kAdmin).status, 404);
  // Free-form JSON (google.protobuf.Struct) stays free-form.
  auto details = Call("POST", "/appeals",
                      json{{"resources", {{{"id", resource_}, {"role", "admin"},
                                           {"details", {{"anything", {{"goes", 1}}}}}}}}});
  EXPECT_EQ(details.status, 200) << details.body;
}

TEST_F(StrictRequestsTest, BodyFieldRouteNamesTheBodyMessage) {
  // POST /providers has body "config": the JSON body is a ProviderConfig.
  auto r = Call("POST", "/providers",
                json{{"type", "noop"}, {"urn", "strict-p"}, {"polices", json::array()}}, kAdmin);
  EXPECT_EQ(Refusal(r), R"(unknown field "polices" in ProviderConfig)");
  // Malformed JSON is still a plain 400 / code 3.
  auto bad = Http("POST", absl::StrCat(stack_->http_base(), "/api/v1beta1/appeals"), "{\"resources\":",
                  As(kAlice));
  ExpectCode(bad, 400, 3);
}

TEST_F(StrictRequestsTest, UnknownQueryParameterIsRefusedNamingIt) {
  EXPECT_EQ(Refusal(Call("GET", "/grants?resource_urnz=x")),
            R"(unknown field "resource_urnz" in ListGrantsRequest)");
  EXPECT_EQ(Refusal(Call("GET", "/me/appeals?statuses=pending&sttus=x")),
            R"(unknown field "sttus" in ListAppealsRequest)");
  EXPECT_EQ(Refusal(Call("GET", "/grants?size=5&page.size=5")),
            R"(unknown field "page.size" in ListGrantsRequest)");
  // A GET with a path parameter, and a DELETE.
  EXPECT_EQ(Refusal(Call("GET", "/resources/" + resource_ + "?with_children=true")),
            R"(unknown field "with_children" in GetResourceRequest)");
  EXPECT_EQ(Refusal(Call("DELETE", "/providers/nope?force=true", nullptr, kAdmin)),
            R"(unknown field "force" in DeleteProviderRequest)");
  // grpc-gateway's X-HTTP-Method-Override (an empty form POST served as a GET).
  auto overridden = Http("POST", absl::StrCat(stack_->http_base(), "/api/v1beta1/grants?resource_urnz=x"),
                         "", {"X-Auth-Email: alice@example.com",
                              "Content-Type: application/x-www-form-urlencoded",
                              "X-HTTP-Method-Override: GET"});
  EXPECT_EQ(Refusal(overridden), R"(unknown field "resource_urnz" in ListGrantsRequest)");
}

TEST_F(StrictRequestsTest, KnownQueryParametersStillWork) {
  // Repeated parameters, proto and JSON (lowerCamel) names, paging.
  auto appeals = Call("GET", "/me/appeals?statuses=pending&statuses=canceled&size=5&offset=0");
  EXPECT_EQ(appeals.status, 200) << appeals.body;
  auto camel = Call("GET", "/appeals?accountIds=alice@example.com&order_by=created_at:desc", nullptr,
                    kAdmin);
  EXPECT_EQ(camel.status, 200) << camel.body;
  auto resources = Call("GET", "/resources?urn=noop-strict&provider_type=noop");
  ASSERT_EQ(resources.status, 200) << resources.body;
  EXPECT_EQ(resources.Json()["resources"].size(), 1u);
  auto grants = Call("GET", "/grants?statuses=active&statuses=inactive&size=1");
  EXPECT_EQ(grants.status, 200) << grants.body;
}

TEST_F(StrictRequestsTest, QueryCopiesOfBodyOrPathFieldsAreRefused) {
  // Fields the route reads from the body or the path: grpc-gateway would drop
  // the query copy without a word.
  EXPECT_EQ(Refusal(Call("POST", "/appeals?account_id=bob@example.com",
                         json{{"resources", {{{"id", resource_}, {"role", "viewer"}}}}})),
            R"(query parameter "account_id" is not read by POST /api/v1beta1/appeals: send it in the JSON body)");
  EXPECT_EQ(Refusal(Call("POST", "/providers?config.urn=x", json{{"type", "noop"}}, kAdmin)),
            R"(query parameter "config.urn" is not read by POST /api/v1beta1/providers: it belongs in the JSON body)");
  EXPECT_EQ(Refusal(Call("POST", "/providers?config.urnn=x", json{{"type", "noop"}}, kAdmin)),
            R"(unknown field "config.urnn" in CreateProviderRequest)");
  std::string msg = Refusal(Call("GET", "/resources/" + resource_ + "?id=other"));
  EXPECT_NE(msg.find(R"(query parameter "id" is not read by GET /api/v1beta1/resources/{id}: it is taken from the path)"),
            std::string::npos)
      << msg;
}

TEST_F(StrictRequestsTest, NotificationRoutesAreStrictToo) {
  auto r = Call("POST", "/receivers",
                json{{"name", "strict-hook"}, {"type", "http"}, {"labels", {{"team", "ops"}}},
                     {"configurations", {{"url", "http://127.0.0.1:9/hook"}}}, {"label", "x"}},
                kAdmin);
  EXPECT_EQ(Refusal(r), R"(unknown field "label" in CreateReceiverRequest)");
  EXPECT_EQ(Refusal(Call("GET", "/receivers?label=ops", nullptr, kAdmin)),
            R"(unknown field "label" in ListReceiversRequest)");
  EXPECT_EQ(Refusal(Call("GET", "/templates?tags=x", nullptr, kAdmin)),
            R"(unknown field "tags" in ListTemplatesRequest)");

  auto ok = Call("POST", "/receivers",
                 json{{"name", "strict-hook"}, {"type", "http"}, {"labels", {{"team", "ops"}}},
                      {"configurations", {{"url", "http://127.0.0.1:9/hook"}}}},
                 kAdmin);
  ASSERT_EQ(ok.status, 200) << ok.body;
  // Map parameters: labels[team]=ops.
  auto list = Call("GET", "/receivers?labels%5Bteam%5D=ops", nullptr, kAdmin);
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Json()["receivers"].size(), 1u) << list.body;
  auto none = Call("GET", "/receivers?labels%5Bteam%5D=dev", nullptr, kAdmin);
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(none.Json()["receivers"].size(), 0u) << none.body;
}

TEST_F(StrictRequestsTest, GatewayGuardsStillComeFirst) {
  std::string url = absl::StrCat(stack_->http_base(), "/api/v1beta1/appeals");
  // 415 for a non-JSON write, whatever the body holds.
  auto form = Http("POST", url, "dryrun=true", {"X-Auth-Email: alice@example.com",
                                                "Content-Type: text/plain"});
  ExpectCode(form, 415, 3);
  // 403 for a cross-origin write.
  auto cross = Http("POST", url, R"({"dryrun": true})",
                    {"X-Auth-Email: alice@example.com", "Origin: https://evil.example"});
  ExpectCode(cross, 403, 7);
  // An unknown route is still 404 / code 5, with or without parameters.
  ExpectCode(Call("GET", "/nope?x=1"), 404, 5);
}

TEST_F(StrictRequestsTest, PingAnswersPongWithoutAuthentication) {
  auto r = Http("GET", absl::StrCat(stack_->http_base(), "/ping"));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "pong");
  EXPECT_EQ(r.headers["content-type"], "text/plain; charset=utf-8");
  // /healthz is unchanged beside it.
  auto health = Http("GET", absl::StrCat(stack_->http_base(), "/healthz"));
  EXPECT_EQ(health.status, 200) << health.body;
}

}  // namespace
}  // namespace sluice::integration
