// Access API concurrency end to end: 50 approvals of one step, requests for
// the same resources in other orders, and identical auto-approved appeals
// against the postgres provider in a real database.
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "integration/appeal_fixture.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

// Runs `calls` at once, one thread each; counts the answers by rpcStatus
// code, with 0 for HTTP 200.
std::map<int, int> AtOnce(const std::vector<std::function<HttpResponse()>>& calls) {
  std::mutex mu;
  std::map<int, int> tally;
  std::vector<std::thread> threads;
  for (const auto& call : calls) {
    threads.emplace_back([&, call] {
      HttpResponse r = call();
      int code = r.status == 200 ? 0 : r.Json().value("code", -1);
      std::lock_guard<std::mutex> lock(mu);
      ++tally[code];
    });
  }
  for (auto& t : threads) t.join();
  return tally;
}

TEST_F(AppealTest, FiftyConcurrentApprovalsGiveOneTransition) {
  std::string rid = Setup("race", json::parse(R"({"steps": [
      {"name": "owner", "strategy": "manual", "approvers": ["owner@example.com"]}],
      "appeal": {"allow_permanent_access": true}})"));
  std::string id = Appeal(rid).Json()["appeals"][0]["id"];
  std::vector<std::function<HttpResponse()>> approvals(50, [&] {
    return Call("POST", "/appeals/" + id + "/approvals/owner", json{{"action", "approve"}},
                "owner@example.com");
  });
  // One success; the rest FailedPrecondition (9).
  EXPECT_EQ(AtOnce(approvals), (std::map<int, int>{{0, 1}, {9, 49}}));
  auto grants = Call("GET", "/grants?resource_ids=" + rid);
  EXPECT_EQ(grants.Json()["total"], 1) << grants.body;
  json logs = Call("GET", "/audit-logs?action=grant.create&size=1000").Json()["audit_logs"];
  int for_this = 0;
  for (const auto& l : logs) for_this += l["data"].value("appeal_id", "") == id;
  EXPECT_EQ(for_this, 1);
}

TEST_F(AppealTest, RequestsNamingTheSameResourcesInOtherOrdersDoNotDeadlock) {
  json manual = json::parse(R"({"steps": [
      {"name": "owner", "strategy": "manual", "approvers": ["owner@example.com"]}],
      "appeal": {"allow_permanent_access": true}})");
  std::string ra = Setup("order-a", manual), rb = Setup("order-b", manual);
  for (int round = 0; round < 10; ++round) {
    // Two requests by one user for A+B and B+A at once: one creates both
    // appeals, the other finds them pending: AlreadyExists (6), never a
    // deadlock abort (10).
    std::string user = absl::StrCat("order-", round, "@example.com");
    std::vector<std::function<HttpResponse()>> both;
    for (bool reversed : {false, true}) {
      both.push_back([&, reversed, user] {
        json first = {{"id", reversed ? rb : ra}, {"role", "viewer"}};
        json second = {{"id", reversed ? ra : rb}, {"role", "viewer"}};
        return Call("POST", "/appeals", json{{"resources", {first, second}}}, user);
      });
    }
    EXPECT_EQ(AtOnce(both), (std::map<int, int>{{0, 1}, {6, 1}})) << "round " << round;
  }
}

TEST_F(AppealTest, PostgresProviderGrantIsRealAndRevoked) {
  std::string dsn = stack_->database().dsn();
  {
    soci::session sql(soci::postgresql, dsn);
    sql << "CREATE TABLE public.pg_target (id int)";
    sql << "DROP ROLE IF EXISTS sluice_grantee";
    sql << "CREATE ROLE sluice_grantee";
  }
  auto has = [&](const std::string& priv) {
    soci::session sql(soci::postgresql, dsn);
    int v = 0;
    sql << "SELECT has_table_privilege('sluice_grantee', 'public.pg_target', :p)::int", soci::into(v),
        soci::use(priv);
    return v != 0;
  };
  json policy = json::parse(R"({"id": "pg-auto", "steps": [{"name": "auto", "strategy": "auto", "approve_if": "true"}],
                                "appeal": {"allow_permanent_access": true, "allow_on_behalf": true}})");
  ASSERT_EQ(Call("POST", "/policies", policy).status, 200);
  json creds = ProviderCredentials(dsn);
  json provider = {{"type", "postgres"}, {"urn", "pg-real"}, {"allowed_account_types", {"user"}},
                   {"credentials", creds},
                   {"resources", {{{"type", "table"}, {"policy", {{"id", "pg-auto"}, {"version", 1}}},
                                   {"filter", "$resource.urn == \"public.pg_target\""},
                                   {"roles", {{{"id", "editor"}, {"permissions", {"SELECT", "INSERT"}}}}}}}}};
  auto pr = Call("POST", "/providers", provider);
  ASSERT_EQ(pr.status, 200) << pr.body;
  auto rs = Call("GET", "/resources?provider_urn=pg-real").Json()["resources"];
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_FALSE(has("SELECT"));
  auto a = Appeal(rs[0]["id"], "editor", "", kAlice, "sluice_grantee");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.Json()["appeals"][0]["status"], "approved");
  EXPECT_TRUE(has("SELECT"));
  EXPECT_TRUE(has("INSERT"));
  EXPECT_FALSE(has("DELETE"));
  auto r = Call("PUT", "/appeals/" + a.Json()["appeals"][0]["id"].get<std::string>() + "/revoke",
                json{{"reason", "test"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(has("SELECT"));
  EXPECT_FALSE(has("INSERT"));
  // An account that is not a role of the database is refused at creation
  // (the provider's ValidateAccount); nothing is recorded.
  ExpectCode(Appeal(rs[0]["id"], "editor", "", kAlice, "no_such_role"), 400, 3,
             "account_id: \"no_such_role\" is not a role");
  EXPECT_EQ(Call("GET", "/grants?account_ids=no_such_role").Json()["total"], 0);

  // The same auto-approved appeal sent 10 times at once (a double click, a
  // client retry): one grant; the others are AlreadyExists, and their
  // rollback must not revoke the access the winner holds.
  std::string rid = rs[0]["id"];
  std::vector<std::function<HttpResponse()>> same(
      10, [&] { return Appeal(rid, "editor", "", kAlice, "sluice_grantee"); });
  EXPECT_EQ(AtOnce(same), (std::map<int, int>{{0, 1}, {6, 9}}));
  EXPECT_EQ(Call("GET", "/grants?account_ids=sluice_grantee&statuses=active").Json()["total"], 1);
  EXPECT_TRUE(has("SELECT")) << "a losing duplicate revoked the winner's access";
  EXPECT_TRUE(has("INSERT"));
}

}  // namespace
}  // namespace sluice::integration
