// Issue 28, Guardian's fields that make decisions, end to end through the
// gateway against the postgres provider on a real database: dry_run on
// create appeal, policy and provider; revoke's skip_revoke_in_provider and
// skip_notification; PATCH /grants/{id}'s expiration_date.
#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/time/clock.h"
#include "integration/appeal_fixture.h"
#include "integration/postgres_target.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kBob[] = "bob@example.com";  // not an admin

class DecisionFieldsTest : public AppealTest {
 protected:
  // Rows of `table` in the stack's own database.
  static long long Count(const std::string& table) {
    soci::session sql(soci::postgresql, stack_->database().dsn());
    long long n = 0;
    sql << "SELECT count(*) FROM " + table, soci::into(n);
    return n;
  }
  // Registers policy `id` (auto-approving) and a postgres provider `urn` on
  // `target` whose table public.<table> follows it; returns the resource id.
  static std::string SetupPostgres(PostgresTarget& target, const std::string& id,
                                   const std::string& table) {
    target.Run("CREATE TABLE " + table + " (id int)");
    json policy = json::parse(R"({"steps": [{"name": "auto", "strategy": "auto",
        "approve_if": "true"}], "appeal": {"allow_permanent_access": true,
        "allow_on_behalf": true}})");
    policy["id"] = id;
    EXPECT_EQ(Call("POST", "/policies", policy).status, 200);
    json provider = {{"type", "postgres"},
                     {"urn", "pg-" + id},
                     {"allowed_account_types", {"user"}},
                     {"credentials", ProviderCredentials(target.db().dsn())},
                     {"resources",
                      {{{"type", "table"},
                        {"policy", {{"id", id}, {"version", 1}}},
                        {"filter", "$resource.urn == \"public." + table + "\""},
                        {"roles", {{{"id", "viewer"}, {"permissions", {"SELECT"}}}}}}}}};
    auto created = Call("POST", "/providers", provider);
    EXPECT_EQ(created.status, 200) << created.body;
    auto rs = Call("GET", "/resources?provider_urn=pg-" + id).Json()["resources"];
    EXPECT_EQ(rs.size(), 1u);
    return rs.empty() ? "" : rs[0].value("id", "");
  }
  // A noop provider `urn` (one resource, urn = `urn`) whose resources follow
  // `policy`, with `policies` (ProviderConfig.policies); returns the resource id.
  static std::string NoopProvider(const std::string& urn, const std::string& policy,
                                  const json& policies = json::array()) {
    json provider = {{"type", "noop"},
                     {"urn", urn},
                     {"allowed_account_types", {"user"}},
                     {"policies", policies},
                     {"resources",
                      {{{"type", "noop"},
                        {"policy", {{"id", policy}, {"version", 1}}},
                        {"roles", {{{"id", "viewer"}}}}}}}};
    auto created = Call("POST", "/providers", provider);
    EXPECT_EQ(created.status, 200) << created.body;
    auto rs = Call("GET", "/resources?urn=" + urn).Json()["resources"];
    EXPECT_EQ(rs.size(), 1u);
    return rs.empty() ? "" : rs[0].value("id", "");
  }
  // POST /appeals for `account` on `rid` (role viewer).
  static HttpResponse AppealFor(const std::string& rid, const std::string& account,
                                bool dry_run) {
    json body = {{"account_id", account},
                 {"resources", {{{"id", rid}, {"role", "viewer"}}}}};
    if (dry_run) body["dry_run"] = true;
    return Call("POST", "/appeals", body);
  }
};

// Before issue 28 `dry_run` was dropped and this request granted SELECT.
TEST_F(DecisionFieldsTest, DryRunAppealOnAnAutoApprovingPolicyGrantsNothing) {
  PostgresTarget target("df_");
  std::string rid = SetupPostgres(target, "dfdry", "df_orders");
  std::string role = target.NewRole("dry");
  const long long appeals = Count("appeals"), grants = Count("grants"),
                  approvals = Count("approvals"), events = Count("access_events"),
                  audit = Count("audit_logs"), ops = Count("provider_operations");

  auto dry = AppealFor(rid, role, /*dry_run=*/true);
  ASSERT_EQ(dry.status, 200) << dry.body;
  json a = dry.Json()["appeals"][0];
  EXPECT_TRUE(dry.Json()["dry_run"].get<bool>());
  EXPECT_EQ(a["status"], "approved");  // what would have been stored: approved at once
  EXPECT_EQ(a["id"], "");
  EXPECT_EQ(a["account_id"], role);
  EXPECT_EQ(a["policy_id"], "dfdry");
  EXPECT_EQ(a["approvals"][0]["status"], "approved");
  EXPECT_TRUE(a["grant"].is_null() || a["grant"].value("id", "").empty()) << a.dump();
  // Nothing written, nothing granted, no event, no audit row, no provider call.
  EXPECT_EQ(Count("appeals"), appeals);
  EXPECT_EQ(Count("grants"), grants);
  EXPECT_EQ(Count("approvals"), approvals);
  EXPECT_EQ(Count("access_events"), events);
  EXPECT_EQ(Count("audit_logs"), audit);
  EXPECT_EQ(Count("provider_operations"), ops);
  EXPECT_FALSE(target.Has(role, "df_orders", "SELECT"));
  // Validation still answers: an unknown role is refused as for real.
  json bad = {{"dry_run", true}, {"resources", {{{"id", rid}, {"role", "owner"}}}}};
  ExpectCode(Call("POST", "/appeals", bad), 400, 3, "role");

  // The same request for real grants.
  auto real = AppealFor(rid, role, /*dry_run=*/false);
  ASSERT_EQ(real.status, 200) << real.body;
  EXPECT_EQ(real.Json()["appeals"][0]["status"], "approved");
  EXPECT_TRUE(target.Has(role, "df_orders", "SELECT"));
  EXPECT_EQ(Count("grants"), grants + 1);
}

// dry_run is a query parameter on the policy and provider routes (their
// body is the policy / config, as in Guardian's proto).
TEST_F(DecisionFieldsTest, DryRunPolicyAndProviderWriteNothing) {
  PostgresTarget target("df_");
  target.Run("CREATE TABLE df_items (id int)");
  const long long policies = Count("policies"), providers = Count("providers"),
                  resources = Count("resources"), audit = Count("audit_logs");
  json policy = json::parse(R"({"id": "dfpol", "steps": [{"name": "auto", "strategy": "auto",
      "approve_if": "true"}]})");
  auto dry = Call("POST", "/policies?dry_run=true", policy);
  ASSERT_EQ(dry.status, 200) << dry.body;
  EXPECT_EQ(dry.Json()["policy"]["version"], 1);
  ExpectCode(Call("GET", "/policies/dfpol"), 404, 5);
  ExpectCode(Call("POST", "/policies?dry_run=true",
                  json{{"id", "dfpol"}, {"steps", {{{"name", "s"}, {"strategy", "sometimes"}}}}}),
             400, 3, "steps[0]");
  ASSERT_EQ(Call("POST", "/policies", policy).status, 200);
  auto dry_update = Call("PUT", "/policies/dfpol?dry_run=true", policy);
  ASSERT_EQ(dry_update.status, 200) << dry_update.body;
  EXPECT_EQ(dry_update.Json()["policy"]["version"], 2);
  EXPECT_EQ(Call("GET", "/policies/dfpol").Json()["policy"]["version"], 1);

  json provider = {{"type", "postgres"},
                   {"urn", "pg-dfpol"},
                   {"allowed_account_types", {"user"}},
                   {"credentials", ProviderCredentials(target.db().dsn())},
                   {"resources",
                    {{{"type", "table"},
                      {"policy", {{"id", "dfpol"}, {"version", 1}}},
                      {"roles", {{{"id", "viewer"}, {"permissions", {"SELECT"}}}}}}}}};
  auto dry_provider = Call("POST", "/providers?dry_run=true", provider);
  ASSERT_EQ(dry_provider.status, 200) << dry_provider.body;
  EXPECT_EQ(dry_provider.Json()["provider"]["id"], "");
  EXPECT_EQ(dry_provider.Json()["provider"]["urn"], "pg-dfpol");
  // The plugin's own validation runs: a database that does not exist fails.
  json unreachable = provider;
  unreachable["credentials"]["dbname"] = "df_no_such_database";
  auto refused = Call("POST", "/providers?dry_run=true", unreachable);
  EXPECT_GE(refused.status, 400) << refused.body;
  EXPECT_EQ(Count("policies"), policies + 1);  // the one real create
  EXPECT_EQ(Count("providers"), providers);
  EXPECT_EQ(Count("resources"), resources);
  EXPECT_EQ(Count("audit_logs"), audit + 1);   // the real policy create only
}

// Before issue 28 both flags were dropped: the provider was always called.
TEST_F(DecisionFieldsTest, RevokeSkipFlagsAndAdminExpiration) {
  PostgresTarget target("df_");
  std::string rid = SetupPostgres(target, "dfrev", "df_rev");
  std::string role = target.NewRole("rev");
  auto created = AppealFor(rid, role, false);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["appeals"][0]["grant"]["id"];
  ASSERT_TRUE(target.Has(role, "df_rev", "SELECT"));
  // The grant's owner is its creator (alice, an admin): make bob the owner.
  ASSERT_EQ(Call("PATCH", "/grants/" + id, json{{"owner", kBob}}).status, 200);

  // PATCH expiration: admins only; an expiration-only body is enough.
  // Whole seconds, "Z": as the gateway writes a Timestamp back.
  std::string tomorrow = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now() + absl::Hours(24),
                                          absl::UTCTimeZone());
  json expiry = {{"expiration_date", tomorrow}, {"expiration_date_reason", "project ends"}};
  ExpectCode(Call("PATCH", "/grants/" + id, expiry, kBob), 403, 7, "expiration_date");
  auto shortened = Call("PATCH", "/grants/" + id, expiry);
  ASSERT_EQ(shortened.status, 200) << shortened.body;
  EXPECT_EQ(shortened.Json()["grant"]["expiration_date"], tomorrow);
  EXPECT_FALSE(shortened.Json()["grant"]["is_permanent"].get<bool>());
  EXPECT_EQ(shortened.Json()["grant"]["owner"], kBob);
  ExpectCode(Call("PATCH", "/grants/" + id, json{{"expiration_date_reason", "x"}}), 400, 3,
             "expiration_date");

  // skip_revoke_in_provider: refused to the owner, honoured for an admin.
  json skip = {{"reason", "gone there"}, {"skip_revoke_in_provider", true}};
  ExpectCode(Call("PUT", "/grants/" + id + "/revoke", skip, kBob), 403, 7,
             "skip_revoke_in_provider");
  const long long events = Count("access_events");
  auto revoked = Call("PUT", "/grants/" + id + "/revoke",
                      json{{"reason", "gone"}, {"skip_revoke_in_provider", true},
                           {"skip_notification", true}});
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_EQ(revoked.Json()["grant"]["status"], "inactive");
  EXPECT_TRUE(target.Has(role, "df_rev", "SELECT"));  // the provider was not called
  EXPECT_EQ(Count("access_events"), events);           // and nobody was notified

  // skip_notification alone (allowed to the owner): revoked there, silently.
  std::string role2 = target.NewRole("rev2");
  auto second = AppealFor(rid, role2, false);
  ASSERT_EQ(second.status, 200) << second.body;
  std::string id2 = second.Json()["appeals"][0]["grant"]["id"];
  ASSERT_EQ(Call("PATCH", "/grants/" + id2, json{{"owner", kBob}}).status, 200);
  const long long before = Count("access_events");
  auto quiet = Call("PUT", "/grants/" + id2 + "/revoke",
                    json{{"reason", "done"}, {"skip_notification", true}}, kBob);
  ASSERT_EQ(quiet.status, 200) << quiet.body;
  EXPECT_FALSE(target.Has(role2, "df_rev", "SELECT"));
  EXPECT_EQ(Count("access_events"), before);
}

json AutoPolicy(const std::string& id) {
  json p = json::parse(R"({"steps": [{"name": "auto", "strategy": "auto", "approve_if": "true"}],
      "appeal": {"allow_permanent_access": true, "allow_on_behalf": true}})");
  p["id"] = id;
  return p;
}

// Before issue 28 `policies` was dropped and both appeals were approved at
// once by the resource type's policy.
TEST_F(DecisionFieldsTest, ProviderPoliciesWhenPicksTheFlow) {
  ASSERT_EQ(Call("POST", "/policies", AutoPolicy("dfwhen-auto")).status, 200);
  json strict = json::parse(R"({"id": "dfwhen-strict", "steps": [{"name": "owner",
      "strategy": "manual", "approvers": ["owner@example.com"]}],
      "appeal": {"allow_permanent_access": true}})");
  ASSERT_EQ(Call("POST", "/policies", strict).status, 200);
  json policies = {{{"when", "$appeal.resource.urn == 'noop-dfwhen-b'"},
                    {"policy", "dfwhen-strict@1"}}};
  ExpectCode(Call("POST", "/providers",
                  json{{"type", "noop"}, {"urn", "noop-dfwhen-x"},
                       {"policies", {{{"when", "true"}, {"policy", "dfwhen-none@1"}}}},
                       {"resources", {{{"type", "noop"},
                                       {"policy", {{"id", "dfwhen-auto"}, {"version", 1}}},
                                       {"roles", {{{"id", "viewer"}}}}}}}}),
             404, 5, "policies[0].policy");
  std::string a = NoopProvider("noop-dfwhen-a", "dfwhen-auto", policies);
  std::string b = NoopProvider("noop-dfwhen-b", "dfwhen-auto", policies);
  auto on_a = Appeal(a);
  ASSERT_EQ(on_a.status, 200) << on_a.body;
  EXPECT_EQ(on_a.Json()["appeals"][0]["policy_id"], "dfwhen-auto");
  EXPECT_EQ(on_a.Json()["appeals"][0]["status"], "approved");
  auto on_b = Appeal(b);
  ASSERT_EQ(on_b.status, 200) << on_b.body;
  EXPECT_EQ(on_b.Json()["appeals"][0]["policy_id"], "dfwhen-strict");
  EXPECT_EQ(on_b.Json()["appeals"][0]["status"], "pending");
}

// Before issue 28 `conditions` were dropped and the requirement fired for
// every appeal.
TEST_F(DecisionFieldsTest, ConditionsRequirementFiresOnlyWhenItsConditionsMatch) {
  ASSERT_EQ(Call("POST", "/policies", AutoPolicy("dfcond-extra")).status, 200);
  std::string extra = NoopProvider("noop-dfcond-extra", "dfcond-extra");
  json policy = AutoPolicy("dfcond");
  policy["requirements"] = {{{"on", json::object()},
                             {"appeals", {{{"resource", {{"id", extra}}}, {"role", "viewer"}}}}}};
  ExpectCode(Call("POST", "/policies", policy), 400, 3, "requirements[0].on");
  policy["requirements"][0]["on"] = {
      {"conditions", {{{"field", "$resource.urn"}, {"match", {{"eq", "noop-dfcond-b"}}}}}}};
  ASSERT_EQ(Call("POST", "/policies", policy).status, 200);
  std::string a = NoopProvider("noop-dfcond-a", "dfcond");
  std::string b = NoopProvider("noop-dfcond-b", "dfcond");
  auto extras = [&](const std::string& account) {
    return Call("GET", "/appeals?resource_urns=noop-dfcond-extra&account_ids=" + account)
        .Json().value("total", 0);
  };
  ASSERT_EQ(Appeal(a, "viewer", "", kAlice, "a-user@example.com").status, 200);
  EXPECT_EQ(extras("a-user@example.com"), 0);
  ASSERT_EQ(Appeal(b, "viewer", "", kAlice, "b-user@example.com").status, 200);
  EXPECT_EQ(extras("b-user@example.com"), 1);
}

}  // namespace
}  // namespace sluice::integration
