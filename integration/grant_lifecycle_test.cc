// The grant lifecycle end to end through the gateway (issue 17, section 2):
// /me/grants, owner update, revoke, restore and bulk revoke with their
// authorization, and import (dry run, then apply) against the postgres
// provider on a real database.
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include "absl/time/clock.h"
#include "integration/appeal_fixture.h"
#include "integration/postgres_target.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

constexpr char kBob[] = "bob@example.com";
constexpr char kCarol[] = "carol@example.com";
constexpr char kEve[] = "eve@example.com";  // neither owner nor admin
constexpr char kDave[] = "dave@example.com";

class GrantLifecycleTest : public AppealTest {
 protected:
  // The ids of the grants in `list` (a ListGrantsResponse).
  static std::vector<std::string> Ids(const json& list) {
    std::vector<std::string> out;
    for (const auto& g : list.value("grants", json::array())) out.push_back(g.value("id", ""));
    return out;
  }
  static bool Contains(const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  }
};

json AutoPolicy() {
  return json::parse(R"({"steps": [{"name": "auto", "strategy": "auto", "approve_if": "true"}],
      "appeal": {"allow_permanent_access": true, "allow_on_behalf": true}})");
}

TEST_F(GrantLifecycleTest, OwnerRevokeRestoreAndBulkRevokeWithTheirAuthorization) {
  std::string rid = Setup("gl", AutoPolicy());
  auto created = Appeal(rid, "viewer", "", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  json grant = created.Json()["appeals"][0]["grant"];
  std::string id = grant["id"];
  EXPECT_EQ(grant["owner"], kBob);

  // GET /me/grants: the caller's own grants only.
  EXPECT_TRUE(Contains(Ids(Call("GET", "/me/grants", nullptr, kBob).Json()), id));
  EXPECT_FALSE(Contains(Ids(Call("GET", "/me/grants", nullptr, kEve).Json()), id));
  ExpectCode(Call("GET", "/me/grants?order_by=nope", nullptr, kBob), 400, 3, "order_by");

  // PATCH: owner or admin; owner required.
  ExpectCode(Call("PATCH", "/grants/" + id, json{{"owner", kEve}}, kEve), 403, 7, "owner");
  ExpectCode(Call("PATCH", "/grants/" + id, json::object(), kBob), 400, 3, "owner");
  ExpectCode(Call("PATCH", "/grants/not-a-uuid", json{{"owner", kBob}}, kBob), 400, 3, "id");
  auto moved = Call("PATCH", "/grants/" + id, json{{"owner", kCarol}}, kBob);
  ASSERT_EQ(moved.status, 200) << moved.body;
  EXPECT_EQ(moved.Json()["grant"]["owner"], kCarol);
  EXPECT_TRUE(Contains(Ids(Call("GET", "/me/grants", nullptr, kCarol).Json()), id));
  EXPECT_FALSE(Contains(Ids(Call("GET", "/me/grants", nullptr, kBob).Json()), id));

  // Revoke: the new owner may, the old one no longer.
  ExpectCode(Call("PUT", "/grants/" + id + "/revoke", json{{"reason", "x"}}, kBob), 403, 7);
  auto revoked = Call("PUT", "/grants/" + id + "/revoke", json{{"reason", "done"}}, kCarol);
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_EQ(revoked.Json()["grant"]["status"], "inactive");
  EXPECT_EQ(revoked.Json()["grant"]["revoked_by"], kCarol);
  EXPECT_EQ(revoked.Json()["grant"]["revoke_reason"], "done");
  ExpectCode(Call("PUT", "/grants/" + id + "/revoke", json::object(), kCarol), 400, 9, "active");

  // Restore: owner or admin, with a reason; only an inactive grant.
  ExpectCode(Call("PUT", "/grants/" + id + "/restore", json{{"reason", "r"}}, kEve), 403, 7);
  ExpectCode(Call("PUT", "/grants/" + id + "/restore", json::object(), kCarol), 400, 3, "reason");
  auto restored = Call("PUT", "/grants/" + id + "/restore", json{{"reason", "oops"}}, kCarol);
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.Json()["grant"]["status"], "active");
  EXPECT_EQ(restored.Json()["grant"]["restored_by"], kCarol);
  EXPECT_EQ(restored.Json()["grant"]["restore_reason"], "oops");
  EXPECT_FALSE(restored.Json()["grant"].value("restored_at", "").empty());
  ExpectCode(Call("PUT", "/grants/" + id + "/restore", json{{"reason", "again"}}, kAlice), 400, 9,
             "already active");

  // Bulk revoke: admins only, at least one filter.
  json by_urn = {{"provider_urns", {"noop-gl"}}, {"reason", "cleanup"}};
  ExpectCode(Call("POST", "/grants/revoke", by_urn, kCarol), 403, 7, "access.admins");
  ExpectCode(Call("POST", "/grants/revoke", json{{"reason", "x"}}, kAlice), 400, 3,
             "account_ids, provider_types, provider_urns, resource_types, resource_urns");
  auto bulk = Call("POST", "/grants/revoke", by_urn, kAlice);
  ASSERT_EQ(bulk.status, 200) << bulk.body;
  EXPECT_TRUE(Contains(Ids(bulk.Json()), id));
  EXPECT_EQ(Call("GET", "/grants/" + id, nullptr, kAlice).Json()["grant"]["status"], "inactive");

  // The noop plugin cannot list access: import says so.
  std::string pid = Call("GET", "/providers", nullptr, kAlice).Json()["providers"].back()["id"];
  ExpectCode(Call("POST", "/providers/" + pid + "/import", json::object(), kCarol), 403, 7);
  auto noop = Call("GET", "/providers/" + pid, nullptr, kAlice).Json()["provider"];
  ASSERT_EQ(noop["urn"], "noop-gl");
  ExpectCode(Call("POST", "/providers/" + pid + "/import", json::object(), kAlice), 400, 9,
             "ListAccess");
}

// The outbox rows (access_events) of event `type` about grant `grant_id`.
long long OutboxEvents(const Stack& stack, const std::string& type, const std::string& grant_id) {
  soci::session sql(soci::postgresql, stack.database().dsn());
  long long n = 0;
  sql << "SELECT count(*) FROM access_events WHERE type = :t AND payload->'variables'->>"
         "'grant_id' = :g",
      soci::use(type), soci::use(grant_id), soci::into(n);
  return n;
}

// Security review finding F-H1, its reproduction: Bob's approved grant
// expires (the expiry job runs every 500 ms here); Bob restores it until
// 2099. Refused now (403), as is any restore by Bob of what the expiry job
// revoked; an admin may restore it, with a new date within
// access.max_grant_duration only. Then the active-grant variant: Bob's own
// revoke he may undo, but never with a date of his choosing. Each restore
// is audited with its expiration and sends grant.restored; each revoke
// sends grant.revoked (finding F-L5).
TEST_F(GrantLifecycleTest, AnOwnerCannotRestoreAnExpiredGrantOrChooseItsExpiration) {
  std::string rid = Setup("glexp", AutoPolicy());
  auto created = Appeal(rid, "viewer", "1s", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["appeals"][0]["grant"]["id"];
  json g;
  absl::Time deadline = absl::Now() + absl::Seconds(20);
  do {
    absl::SleepFor(absl::Milliseconds(200));
    g = Call("GET", "/grants/" + id, nullptr, kBob).Json()["grant"];
  } while (g.value("status", "") != "inactive" && absl::Now() < deadline);
  ASSERT_EQ(g.value("status", ""), "inactive") << g.dump();
  EXPECT_EQ(g["revoked_by"], "system");

  json forever = {{"reason", "still need it"}, {"expiration_date", "2099-12-31T00:00:00Z"}};
  ExpectCode(Call("PUT", "/grants/" + id + "/restore", forever, kBob), 403, 7, "expiration_date");
  ExpectCode(Call("PUT", "/grants/" + id + "/restore", json{{"reason", "r"}}, kBob), 403, 7,
             "system");
  ExpectCode(Call("PUT", "/grants/" + id + "/restore", forever, kAlice), 400, 3,
             "max_grant_duration");
  ExpectCode(Call("PUT", "/grants/" + id + "/restore", json{{"reason", "r"}}, kAlice), 400, 3,
             "expiration_date");
  EXPECT_EQ(Call("GET", "/grants/" + id, nullptr, kBob).Json()["grant"]["status"], "inactive");

  // RFC 3339 as the gateway writes timestamps (UTC, "Z").
  std::string until = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now() + absl::Hours(24),
                                       absl::UTCTimeZone());
  auto same_time = [](const json& a, const std::string& b) {
    absl::Time ta, tb;
    std::string err;
    return a.is_string() && absl::ParseTime(absl::RFC3339_full, a.get<std::string>(), &ta, &err) &&
           absl::ParseTime(absl::RFC3339_full, b, &tb, &err) && ta == tb;
  };
  auto restored = Call("PUT", "/grants/" + id + "/restore",
                       json{{"reason", "approved by ops"}, {"expiration_date", until}}, kAlice);
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.Json()["grant"]["status"], "active");
  EXPECT_EQ(restored.Json()["grant"]["expiration_date"], until);
  json logs = Call("GET", "/audit-logs?action=grant.restore&actor=" + kAlice + "&size=1000")
                  .Json()["audit_logs"];
  bool audited = false;
  for (const auto& l : logs) {
    if (l["data"].value("grant_id", "") != id) continue;
    audited = true;
    EXPECT_TRUE(same_time(l["data"]["expiration_date"], until)) << l.dump();
    EXPECT_EQ(l["data"]["revoked_by"], "system") << l.dump();
  }
  EXPECT_TRUE(audited) << logs.dump();

  // Active variant: Bob revokes, then restores with a date of his own.
  ASSERT_EQ(Call("PUT", "/grants/" + id + "/revoke", json{{"reason", "x"}}, kBob).status, 200);
  ExpectCode(Call("PUT", "/grants/" + id + "/restore", forever, kBob), 403, 7, "expiration_date");
  auto undone = Call("PUT", "/grants/" + id + "/restore", json{{"reason", "my mistake"}}, kBob);
  ASSERT_EQ(undone.status, 200) << undone.body;
  EXPECT_EQ(undone.Json()["grant"]["expiration_date"], until);  // not extended
  ASSERT_EQ(Call("PUT", "/grants/" + id + "/revoke", json{{"reason", "y"}}, kBob).status, 200);

  // Outbox: the expiry and both of Bob's revokes; both restores.
  EXPECT_EQ(OutboxEvents(*stack_, "grant.revoked", id), 3);
  EXPECT_EQ(OutboxEvents(*stack_, "grant.restored", id), 2);
}

// Runs sluicectl as `email` with `args`; returns {exit code, output}.
std::pair<int, std::string> Ctl(const Stack& stack, const std::string& email,
                                std::vector<std::string> args) {
  std::vector<std::string> argv = {Runfile("cli/sluicectl"), "--host", stack.grpc_target(),
                                   "--email", email};
  argv.insert(argv.end(), args.begin(), args.end());
  auto p = Process::Start(argv, stack.ClientEnv());  // stdout and stderr in a new file
  if (!p.ok()) return {-1, ""};
  int code = (*p)->Wait(absl::Seconds(30));
  return {code, (*p)->Output()};
}

TEST_F(GrantLifecycleTest, SluicectlGrantUpdateRevokeRestoreImportAndTables) {
  std::string rid = Setup("glcli", AutoPolicy());
  auto created = Appeal(rid, "viewer", "", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["appeals"][0]["grant"]["id"];

  auto [rc, out] = Ctl(*stack_, kBob, {"--json", "grant", "update", id, "--owner", kDave});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(json::parse(out)["grant"]["owner"], kDave);
  // Issue 28: an admin shortens the expiration; the owner may not skip the
  // provider revoke, but may skip the notification.
  std::string soon = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now() + absl::Hours(24),
                                      absl::UTCTimeZone());
  std::tie(rc, out) = Ctl(*stack_, kAlice, {"--json", "grant", "update", id, "--expiration", soon,
                                            "--expiration-reason", "project ends"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(json::parse(out)["grant"]["expiration_date"], soon);
  EXPECT_EQ(json::parse(out)["grant"]["expiration_date_reason"], "project ends");
  std::tie(rc, out) = Ctl(*stack_, kDave, {"grant", "revoke", id, "--reason", "x",
                                           "--skip-revoke-in-provider"});
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("skip_revoke_in_provider"), std::string::npos) << out;
  std::tie(rc, out) = Ctl(*stack_, kEve, {"grant", "revoke", id, "--reason", "x"});
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("error: 7:"), std::string::npos) << out;
  std::tie(rc, out) = Ctl(*stack_, kDave, {"--json", "grant", "revoke", id, "--reason", "r",
                                           "--skip-notification"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(json::parse(out)["grant"]["status"], "inactive");
  EXPECT_EQ(OutboxEvents(*stack_, "grant.revoked", id), 0);
  // policy create --dry-run: validated and shown, not stored.
  std::string file = std::string(std::getenv("TEST_TMPDIR")) + "/glcli-dry.json";
  std::ofstream(file) << R"({"id": "glcli-dry", "steps": [{"name": "auto", "strategy": "auto",
      "approve_if": "true"}]})";
  std::tie(rc, out) = Ctl(*stack_, kAlice, {"--json", "policy", "create", "-f", file, "--dry-run"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(json::parse(out)["policy"]["version"], 1);
  ExpectCode(Call("GET", "/policies/glcli-dry"), 404, 5);
  std::tie(rc, out) = Ctl(*stack_, kDave, {"--json", "grant", "restore", id, "--reason", "back"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(json::parse(out)["grant"]["restored_by"], kDave);

  // --output table: a header row, then one row per grant.
  std::tie(rc, out) = Ctl(*stack_, kDave, {"-o", "table", "grant", "list", "--mine"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out.rfind("ID  ", 0), 0u) << out;
  EXPECT_NE(out.find(id + "  active  "), std::string::npos) << out;
  EXPECT_NE(out.find("total: 1"), std::string::npos) << out;

  // Bulk revoke by filter, as an admin; import on a plugin without ListAccess.
  std::tie(rc, out) = Ctl(*stack_, kAlice, {"--json", "grant", "revoke", "--provider-urn",
                                            "noop-glcli", "--reason", "bulk"});
  ASSERT_EQ(rc, 0) << out;
  ASSERT_EQ(json::parse(out)["grants"].size(), 1u) << out;
  EXPECT_EQ(json::parse(out)["grants"][0]["id"], id);
  std::string pid;
  auto providers = Call("GET", "/providers?size=1000");
  json listed = providers.Json();
  for (const auto& p : listed["providers"]) {
    if (p["urn"] == "noop-glcli") pid = p["id"];
  }
  ASSERT_FALSE(pid.empty()) << providers.body;
  std::tie(rc, out) = Ctl(*stack_, kAlice, {"provider", "import", pid});
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("ListAccess"), std::string::npos) << out;
}

TEST_F(GrantLifecycleTest, ImportDryRunThenApplyAgainstThePostgresProvider) {
  PostgresTarget target;
  target.Run("CREATE TABLE gl_orders (id int)");
  std::string outside = target.NewRole("outside");  // granted outside Sluice
  std::string drifted = target.NewRole("drifted");  // granted by Sluice, revoked outside
  json policy = AutoPolicy();
  policy["id"] = "glpg";
  ASSERT_EQ(Call("POST", "/policies", policy).status, 200);
  json provider = {{"type", "postgres"},
                   {"urn", "pg-gl"},
                   {"allowed_account_types", {"user"}},
                   {"credentials", ProviderCredentials(target.db().dsn())},
                   {"resources",
                    {{{"type", "table"},
                      {"policy", {{"id", "glpg"}, {"version", 1}}},
                      {"filter", "$resource.urn == \"public.gl_orders\""},
                      {"roles",
                       {{{"id", "viewer"}, {"permissions", {"SELECT"}}},
                        {{"id", "editor"}, {"permissions", {"SELECT", "INSERT"}}}}}}}}};
  auto created = Call("POST", "/providers", provider);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string pid = created.Json()["provider"]["id"];
  std::string rid = Call("GET", "/resources?provider_urn=pg-gl").Json()["resources"][0]["id"];

  auto appeal = Appeal(rid, "viewer", "", kAlice, drifted);
  ASSERT_EQ(appeal.status, 200) << appeal.body;
  std::string drifted_grant = appeal.Json()["appeals"][0]["grant"]["id"];
  ASSERT_TRUE(target.Has(drifted, "gl_orders", "SELECT"));
  target.Run("REVOKE SELECT ON gl_orders FROM \"" + drifted + "\"");
  target.Run("GRANT SELECT, INSERT ON gl_orders TO \"" + outside + "\"");

  // Dry run (the default): reported, nothing written.
  auto dry = Call("POST", "/providers/" + pid + "/import", json::object());
  ASSERT_EQ(dry.status, 200) << dry.body;
  json d = dry.Json();
  EXPECT_FALSE(d["applied"].get<bool>());
  ASSERT_EQ(d["grants"].size(), 1u) << dry.body;
  EXPECT_EQ(d["grants"][0]["account_id"], outside);
  EXPECT_EQ(d["grants"][0]["role"], "editor");
  EXPECT_EQ(d["grants"][0]["source"], "import");
  EXPECT_EQ(d["grants"][0]["id"], "");
  ASSERT_EQ(d["drift"].size(), 1u) << dry.body;
  EXPECT_EQ(d["drift"][0]["id"], drifted_grant);
  EXPECT_EQ(Call("GET", "/grants?account_ids=" + outside).Json()["total"], 0);

  // Apply: the grant is created; the drifted one is marked.
  auto applied = Call("POST", "/providers/" + pid + "/import", json{{"apply", true}});
  ASSERT_EQ(applied.status, 200) << applied.body;
  json a = applied.Json();
  EXPECT_TRUE(a["applied"].get<bool>());
  ASSERT_EQ(a["grants"].size(), 1u);
  std::string imported = a["grants"][0]["id"];
  ASSERT_FALSE(imported.empty());
  json stored = Call("GET", "/grants/" + imported).Json()["grant"];
  EXPECT_EQ(stored["source"], "import");
  EXPECT_EQ(stored["status"], "active");
  EXPECT_EQ(stored["permissions"], json({"SELECT", "INSERT"}));
  EXPECT_EQ(Call("GET", "/grants/" + drifted_grant).Json()["grant"]["status_in_provider"],
            "inactive");
  auto again = Call("POST", "/providers/" + pid + "/import", json::object()).Json();
  EXPECT_TRUE(again["grants"].empty()) << again.dump();
  EXPECT_EQ(again["unchanged"], 1);

  // The imported grant is managed like any other: revoke and restore reach
  // the database.
  auto revoked = Call("PUT", "/grants/" + imported + "/revoke", json{{"reason", "audit"}});
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_FALSE(target.Has(outside, "gl_orders", "INSERT"));
  auto restored = Call("PUT", "/grants/" + imported + "/restore", json{{"reason", "needed"}});
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_TRUE(target.Has(outside, "gl_orders", "INSERT"));
  EXPECT_TRUE(target.Has(outside, "gl_orders", "SELECT"));
}

}  // namespace
}  // namespace sluice::integration
