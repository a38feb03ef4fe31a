// The crash test of the provider operation journal (security review M2): the
// server is made to die between the provider GRANT and the database COMMIT
// (SLUICE_TEST_FAULT, a test-only hook), restarted, and the reconciliation
// job must report and revoke the access that has no grant record.
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include <gtest/gtest.h>

#include "absl/strings/str_split.h"
#include "integration/harness.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

TEST(ReconcileTest, CrashBetweenProviderGrantAndCommitIsReconciled) {
  Stack::Options opts;
  opts.server_env["SLUICE_TEST_FAULT"] = "crash_after_provider_grant";
  auto started = Stack::Start(opts);
  ASSERT_TRUE(started.ok()) << started.status();
  Stack& stack = **started;
  std::string dsn = stack.database().dsn();
  {
    soci::session sql(soci::postgresql, dsn);
    sql << "CREATE TABLE public.crash_target (id int)";
    sql << "DROP ROLE IF EXISTS sluice_crash_grantee";
    sql << "CREATE ROLE sluice_crash_grantee";
  }
  auto has_select = [&] {
    soci::session sql(soci::postgresql, dsn);
    int v = 0;
    sql << "SELECT has_table_privilege('sluice_crash_grantee', 'public.crash_target', 'SELECT')::int",
        soci::into(v);
    return v != 0;
  };
  auto call = [&](const std::string& method, const std::string& path, const json& body = nullptr) {
    return Http(method, stack.http_base() + "/api/v1beta1" + path, body.is_null() ? "" : body.dump(),
                {"X-Auth-Email: admin@example.com"});
  };
  json policy = json::parse(R"({"id": "crash", "steps": [{"name": "auto", "strategy": "auto",
      "approve_if": "true"}], "appeal": {"allow_permanent_access": true, "allow_on_behalf": true}})");
  ASSERT_EQ(call("POST", "/policies", policy).status, 200);
  json creds = ProviderCredentials(dsn);
  json provider = {{"type", "postgres"}, {"urn", "pg-crash"}, {"allowed_account_types", {"user"}},
                   {"credentials", creds},
                   {"resources", {{{"type", "table"}, {"policy", {{"id", "crash"}, {"version", 1}}},
                                   {"filter", "$resource.urn == \"public.crash_target\""},
                                   {"roles", {{{"id", "reader"}, {"permissions", {"SELECT"}}}}}}}}};
  ASSERT_EQ(call("POST", "/providers", provider).status, 200);
  std::string rid = call("GET", "/resources?provider_urn=pg-crash").Json()["resources"][0]["id"];

  // The auto-approved appeal grants in the provider, then the server dies
  // before its transaction commits.
  auto appeal = call("POST", "/appeals",
                     json{{"account_id", "sluice_crash_grantee"},
                          {"resources", {{{"id", rid}, {"role", "reader"}}}}});
  EXPECT_NE(appeal.status, 200) << appeal.body;
  EXPECT_EQ(stack.server().Wait(absl::Seconds(10)), 86) << stack.server().Output();
  EXPECT_TRUE(has_select()) << "the fault hook should fire after the provider GRANT";

  // Restarted without the fault: no grant row, yet the role can SELECT.
  stack.server_env().erase("SLUICE_TEST_FAULT");
  ASSERT_TRUE(stack.RestartServer().ok());
  EXPECT_EQ(call("GET", "/grants?account_ids=sluice_crash_grantee").Json()["total"], 0);
  EXPECT_TRUE(has_select());

  // Non-admins may not reconcile; an admin's on-demand run reports and revokes.
  auto denied = Http("POST", stack.http_base() + "/api/v1beta1/grants/reconcile", "{}",
                     {"X-Auth-Email: bob@example.com"});
  EXPECT_EQ(denied.status, 403) << denied.body;
  auto report = call("POST", "/grants/reconcile", json{{"min_age_seconds", 0}});
  ASSERT_EQ(report.status, 200) << report.body;
  EXPECT_EQ(report.Json()["examined"], 1) << report.body;
  EXPECT_EQ(report.Json()["revoked"], 1) << report.body;
  ASSERT_EQ(report.Json()["details"].size(), 1u);
  EXPECT_NE(report.Json()["details"][0].get<std::string>().find("sluice_crash_grantee"),
            std::string::npos);
  EXPECT_FALSE(has_select()) << "the reconciliation left access without a record";
  // Settled: the next run finds nothing; the appeal can now be made again.
  EXPECT_EQ(call("POST", "/grants/reconcile", json::object()).Json()["examined"], 0);
  auto again = call("POST", "/appeals", json{{"account_id", "sluice_crash_grantee"},
                                            {"resources", {{{"id", rid}, {"role", "reader"}}}}});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_TRUE(has_select());
  EXPECT_EQ(call("GET", "/grants?account_ids=sluice_crash_grantee&statuses=active").Json()["total"], 1);
}

}  // namespace
}  // namespace sluice::integration
