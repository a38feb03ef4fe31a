// Issue 28, item 3: Guardian's routes that Sluice lacked, each through the
// gateway with Guardian's request shapes (goto/proton guardian.proto):
// a happy path and a refusal per route.
#include <string>

#include "integration/appeal_fixture.h"

namespace sluice::integration {
namespace {

using json = nlohmann::json;

const std::string kBob = "bob@example.com";    // not an access admin
const std::string kCarol = "carol@example.com";

class GuardianRoutesTest : public AppealTest {
 protected:
  // A policy whose one auto step approves viewers (access granted at once).
  static json AutoViewer() {
    return json::parse(R"({"steps": [
      {"name": "check", "strategy": "auto", "approve_if": "$appeal.role == \"viewer\""}],
      "appeal": {"allow_permanent_access": true}})");
  }
};

TEST_F(GuardianRoutesTest, GetProviderTypes) {
  Setup("types", TwoStep());
  // Routed before GET /providers/{id}: "types" is not taken for an id.
  auto r = Call("GET", "/providers/types", nullptr, kBob);
  ASSERT_EQ(r.status, 200) << r.body;
  bool noop = false, postgres = false;
  const json types = r.Json()["provider_types"];
  for (const json& t : types) {
    if (t["name"] == "noop") {
      noop = true;
      EXPECT_EQ(t["resource_types"], json::array({"noop"})) << r.body;
    }
    if (t["name"] == "postgres") postgres = true;
  }
  EXPECT_TRUE(noop) << r.body;
  EXPECT_TRUE(postgres) << r.body;  // every plugin type, with or without providers
  ExpectCode(Call("GET", "/providers/types", nullptr, ""), 401, 16);
  ExpectCode(Call("GET", "/providers/00000000-0000-0000-0000-000000000000"), 404, 5);
}

TEST_F(GuardianRoutesTest, UpdateProviderByTypeAndUrn) {
  Setup("byurn", TwoStep());
  // PUT replaces the config (as Guardian's): the stored one with a label.
  const json listed = Call("GET", "/providers").Json();  // held: the loop reads into it
  json config;
  for (const json& p : listed["providers"]) {
    if (p["urn"] == "noop-byurn") config = p["config"];
  }
  ASSERT_TRUE(config.is_object()) << listed.dump().substr(0, 2000);
  config["labels"] = {{"team", "data"}};
  ExpectCode(Call("PUT", "/providers/noop/noop-byurn", config, kBob), 403, 7, "admins only");
  ExpectCode(Call("PUT", "/providers/noop/no-such-urn", config), 404, 5, "no-such-urn");
  auto r = Call("PUT", "/providers/noop/noop-byurn", config);
  ASSERT_EQ(r.status, 200) << r.body;
  json p = r.Json()["provider"];
  EXPECT_EQ(p["urn"], "noop-byurn");
  EXPECT_EQ(p["config"]["labels"]["team"], "data");
  // The same provider, by id.
  auto got = Call("GET", "/providers/" + p["id"].get<std::string>());
  EXPECT_EQ(got.Json()["provider"]["config"]["labels"]["team"], "data") << got.body;
}

TEST_F(GuardianRoutesTest, CreateResource) {
  Setup("cr", TwoStep());
  json resource = {{"provider_type", "noop"}, {"provider_urn", "noop-cr"}, {"type", "noop"},
                   {"urn", "extra"}, {"name", "Extra"}, {"details", {{"owner", "o@example.com"}}}};
  ExpectCode(Call("POST", "/resources", resource, kBob), 403, 7, "admins only");
  auto r = Call("POST", "/resources", resource);
  ASSERT_EQ(r.status, 200) << r.body;
  json created = r.Json()["resource"];
  EXPECT_FALSE(created["id"].get<std::string>().empty());
  EXPECT_EQ(created["name"], "Extra");
  EXPECT_EQ(created["details"]["owner"], "o@example.com");
  auto got = Call("GET", "/resources/" + created["id"].get<std::string>());
  EXPECT_EQ(got.Json()["resource"]["urn"], "extra") << got.body;
  ExpectCode(Call("POST", "/resources", resource), 409, 6, "already exists");
  json bad_type = resource;
  bad_type["type"] = "table";
  ExpectCode(Call("POST", "/resources", bad_type), 400, 3, "resource.type");
  json no_provider = resource;
  no_provider["provider_urn"] = "nowhere";
  ExpectCode(Call("POST", "/resources", no_provider), 404, 5, "nowhere");
}

TEST_F(GuardianRoutesTest, PatchAppealRestartsTheFlow) {
  std::string rid = Setup("patch", TwoStep());
  auto created = Appeal(rid, "viewer", "", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  json a = created.Json()["appeals"][0];
  std::string id = a["id"];
  EXPECT_EQ(a["revision"], 0);
  Act(id, "owner", "approve", "owner@example.com");  // step 1 done

  // Only its creator may patch it; a change is required.
  ExpectCode(Call("PATCH", "/appeals/" + id, json{{"role", "admin"}}, kCarol), 403, 7, "creator");
  ExpectCode(Call("PATCH", "/appeals/" + id, json{{"role", "viewer"}}, kBob), 400, 9, "no changes");
  ExpectCode(Call("PATCH", "/appeals/" + id, json{{"role", "owner"}}, kBob), 400, 3, "role");

  auto patched = Call("PATCH", "/appeals/" + id,
                      json{{"role", "admin"}, {"details", {{"why", "more"}}}}, kBob);
  ASSERT_EQ(patched.status, 200) << patched.body;
  json p = patched.Json()["appeal"];
  EXPECT_EQ(p["id"], id);
  EXPECT_EQ(p["role"], "admin");
  EXPECT_EQ(p["revision"], 1);
  EXPECT_EQ(p["details"]["why"], "more");
  EXPECT_EQ(p["status"], "pending");
  ASSERT_EQ(p["approvals"].size(), 2u) << patched.body;
  // The flow starts again: the owner's earlier approval is stale.
  EXPECT_EQ(p["approvals"][0]["status"], "pending");
  EXPECT_EQ(p["approvals"][0]["appeal_revision"], 1);
  EXPECT_EQ(p["approvals"][0]["is_stale"], false);
  EXPECT_EQ(p["approvals"][1]["status"], "blocked");
  auto got = Call("GET", "/appeals/" + id, nullptr, kBob).Json()["appeal"];
  EXPECT_EQ(got["revision"], 1);
  EXPECT_EQ(got["approvals"][0]["status"], "pending");
  EXPECT_NE(got["approvals"][0]["id"], a["approvals"][0]["id"]);
  // The new step is actionable again, by its approver.
  json acted = Act(id, "owner", "approve", "owner@example.com");
  EXPECT_EQ(acted["appeal"]["approvals"][1]["status"], "pending") << acted.dump();

  // A patch onto an access that has its own pending appeal is refused.
  auto other = Appeal(rid, "viewer", "", kBob);
  ASSERT_EQ(other.status, 200) << other.body;
  ExpectCode(Call("PATCH", "/appeals/" + id, json{{"role", "viewer"}}, kBob), 409, 6, "pending");
  // A cancelled appeal cannot be patched.
  ASSERT_EQ(Call("PUT", "/appeals/" + id + "/cancel", nullptr, kBob).status, 200);
  ExpectCode(Call("PATCH", "/appeals/" + id, json{{"description", "x"}}, kBob), 400, 9, "pending");
}

TEST_F(GuardianRoutesTest, PatchAppealToAnAutoApprovedFlowGrants) {
  // Admins wait for the lead; viewers are approved by the auto step.
  std::string rid = Setup("patch-auto", json::parse(R"({"steps": [
      {"name": "check", "strategy": "auto", "approve_if": "$appeal.role == \"viewer\"",
       "allow_failed": true},
      {"name": "lead", "strategy": "manual", "approvers": ["lead@example.com"],
       "when": "$appeal.role == \"admin\""}],
      "appeal": {"allow_permanent_access": true}})"));
  auto created = Appeal(rid, "admin", "", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  json a = created.Json()["appeals"][0];
  ASSERT_EQ(a["status"], "pending") << created.body;
  std::string id = a["id"];
  auto patched = Call("PATCH", "/appeals/" + id, json{{"role", "viewer"}}, kBob);
  ASSERT_EQ(patched.status, 200) << patched.body;
  json p = patched.Json()["appeal"];
  EXPECT_EQ(p["status"], "approved") << patched.body;
  EXPECT_EQ(p["grant"]["status"], "active") << patched.body;
  EXPECT_EQ(p["grant"]["role"], "viewer") << patched.body;
  auto roles = Call("GET", "/me/grants/roles", nullptr, kBob);
  EXPECT_NE(roles.Json()["roles"].dump().find("viewer"), std::string::npos) << roles.body;
  // Active is past pending: no more patches.
  ExpectCode(Call("PATCH", "/appeals/" + id, json{{"description", "x"}}, kBob), 400, 9, "pending");
}

TEST_F(GuardianRoutesTest, AppealComments) {
  std::string rid = Setup("comments", TwoStep());
  auto created = Appeal(rid, "viewer", "", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["appeals"][0]["id"];
  std::string path = "/appeals/" + id + "/comments";
  auto c1 = Call("POST", path, json{{"body", "please"}}, kBob);
  ASSERT_EQ(c1.status, 200) << c1.body;
  json comment = c1.Json()["comment"];
  EXPECT_EQ(comment["appeal_id"], id);
  EXPECT_EQ(comment["created_by"], kBob);
  EXPECT_EQ(comment["body"], "please");
  EXPECT_FALSE(comment["id"].get<std::string>().empty());
  EXPECT_FALSE(comment["created_at"].is_null());
  // An approver of the appeal may read and write them too.
  ASSERT_EQ(Call("POST", path, json{{"body", "why?"}}, "owner@example.com").status, 200);
  auto list = Call("GET", path, nullptr, "owner@example.com");
  ASSERT_EQ(list.status, 200) << list.body;
  json comments = list.Json()["comments"];
  ASSERT_EQ(comments.size(), 2u) << list.body;
  EXPECT_EQ(comments[0]["body"], "please");
  EXPECT_EQ(comments[1]["created_by"], "owner@example.com");
  auto newest = Call("GET", path + "?order_by=created_at:desc", nullptr, kBob);
  EXPECT_EQ(newest.Json()["comments"][0]["body"], "why?") << newest.body;
  // Whoever may not read the appeal may not see or add comments.
  ExpectCode(Call("GET", path, nullptr, kCarol), 403, 7, "may not read appeal");
  ExpectCode(Call("POST", path, json{{"body", "hi"}}, kCarol), 403, 7, "may not read appeal");
  ExpectCode(Call("POST", path, json{{"body", ""}}, kBob), 400, 3, "body");
  ExpectCode(Call("GET", "/appeals/00000000-0000-0000-0000-000000000000/comments"), 404, 5);
}

TEST_F(GuardianRoutesTest, RevokeGrantsWithPutAndPost) {
  std::string rid = Setup("bulk-put", AutoViewer());
  auto created = Appeal(rid, "viewer", "", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  ASSERT_EQ(created.Json()["appeals"][0]["status"], "approved") << created.body;
  json filter = {{"provider_urns", {"noop-bulk-put"}}, {"reason", "cleanup"}};
  ExpectCode(Call("PUT", "/grants/revoke", filter, kBob), 403, 7, "admins only");
  auto r = Call("PUT", "/grants/revoke", filter);
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.Json()["grants"].size(), 1u) << r.body;
  EXPECT_EQ(r.Json()["grants"][0]["status"], "inactive");
  // POST stays (Sluice's earlier binding): nothing is left to revoke.
  auto again = Call("POST", "/grants/revoke", filter);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json()["grants"].size(), 0u) << again.body;
}

TEST_F(GuardianRoutesTest, ListUserRoles) {
  std::string rid = Setup("roles", AutoViewer());
  const std::string dave = "dave@example.com";
  ASSERT_EQ(Appeal(rid, "viewer", "", dave).status, 200);
  auto r = Call("GET", "/me/grants/roles", nullptr, dave);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["roles"], json::array({"viewer"})) << r.body;
  auto none = Call("GET", "/me/grants/roles", nullptr, "erin@example.com");
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(none.Json()["roles"], json::array()) << none.body;
  ExpectCode(Call("GET", "/me/grants/roles", nullptr, ""), 401, 16);
}

TEST_F(GuardianRoutesTest, GetPolicyPreferences) {
  Setup("prefs", json::parse(R"({"steps": [
      {"name": "lead", "strategy": "manual", "approvers": ["lead@example.com"]}],
      "appeal": {"allow_permanent_access": true, "allow_on_behalf": true,
                 "duration_options": [{"name": "1 day", "value": "24h"}]}})"));
  auto r = Call("GET", "/policies/prefs/versions/1/preferences", nullptr, kBob);
  ASSERT_EQ(r.status, 200) << r.body;
  json appeal = r.Json()["appeal"];
  EXPECT_EQ(appeal["allow_permanent_access"], true);
  EXPECT_EQ(appeal["allow_on_behalf"], true);
  EXPECT_EQ(appeal["duration_options"][0]["value"], "24h");
  ExpectCode(Call("GET", "/policies/prefs/versions/9/preferences"), 404, 5);
  ExpectCode(Call("GET", "/policies/prefs/versions/1/preferences", nullptr, ""), 401, 16);
}

TEST_F(GuardianRoutesTest, AppealActivitiesAreItsAuditEvents) {
  std::string rid = Setup("activity", TwoStep());
  auto created = Appeal(rid, "viewer", "", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["appeals"][0]["id"];
  Act(id, "owner", "approve", "owner@example.com");
  Act(id, "lead", "reject", "lead@example.com");
  auto r = Call("GET", "/appeals/" + id + "/activities", nullptr, kBob);
  ASSERT_EQ(r.status, 200) << r.body;
  json activities = r.Json()["activities"];
  ASSERT_EQ(activities.size(), 2u) << r.body;  // newest first; creation is not an activity
  EXPECT_EQ(activities[0]["type"], "appeal.reject");
  EXPECT_EQ(activities[0]["actor"], "lead@example.com");
  EXPECT_EQ(activities[0]["appeal_id"], id);
  EXPECT_EQ(activities[0]["data"]["appeal_id"], id);
  EXPECT_FALSE(activities[0]["timestamp"].get<std::string>().empty());
  EXPECT_EQ(activities[1]["type"], "appeal.approve");
  EXPECT_EQ(activities[1]["actor"], "owner@example.com");
  // Whoever may read the appeal: its approvers may, others may not.
  EXPECT_EQ(Call("GET", "/appeals/" + id + "/activities", nullptr, "lead@example.com").status, 200);
  ExpectCode(Call("GET", "/appeals/" + id + "/activities", nullptr, kCarol), 403, 7);
  ExpectCode(Call("GET", "/appeals/00000000-0000-0000-0000-0000000000aa/activities"), 404, 5);
  ExpectCode(Call("GET", "/appeals/" + id + "/activities", nullptr, ""), 401, 16);
}

TEST_F(GuardianRoutesTest, ProviderActivitiesAreForAdminsAndNeedActivitySupport) {
  Setup("acts", TwoStep());
  auto providers = Call("GET", "/providers").Json()["providers"];
  std::string noop;
  for (const auto& p : providers) {
    if (p["urn"] == "noop-acts") noop = p["id"];
  }
  ASSERT_FALSE(noop.empty());
  // Guardian's ErrImportActivitiesMethodNotSupported, as FailedPrecondition.
  ExpectCode(Call("POST", "/activities/import", json{{"provider_id", noop}}), 400, 9,
             "provider type \"noop\" does not support activity import");
  ExpectCode(Call("POST", "/activities/import", json::object()), 400, 3, "provider_id");
  ExpectCode(Call("POST", "/activities/import", json{{"provider_id", noop}}, kBob), 403, 7);
  ExpectCode(Call("GET", "/activities", nullptr, kBob), 403, 7);
  ExpectCode(Call("GET", "/activities/00000000-0000-0000-0000-0000000000ab", nullptr, kBob), 403, 7);
  auto list = Call("GET", "/activities?provider_ids=" + noop + "&types=x&timestamp_gte=2026-01-01T00:00:00Z");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Json()["activities"], json::array()) << list.body;
  ExpectCode(Call("GET", "/activities/00000000-0000-0000-0000-0000000000ab"), 404, 5);
  ExpectCode(Call("GET", "/activities", nullptr, ""), 401, 16);
}

TEST_F(GuardianRoutesTest, RelabelIs501) {
  std::string rid = Setup("unimpl", TwoStep());
  std::string id = Appeal(rid, "viewer").Json()["appeals"][0]["id"];
  ExpectCode(Call("POST", "/appeals/" + id + "/relabel", json{{"dry_run", true}}), 501, 12,
             "relabel");
}

TEST_F(GuardianRoutesTest, AddAndUpdateApprovalSteps) {
  std::string rid = Setup("steps", TwoStep());
  auto created = Appeal(rid, "viewer", "", kBob);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.Json()["appeals"][0]["id"];
  std::string path = "/appeals/" + id + "/approvals";
  json body = {{"steps",
                {{{"name", "security"},
                  {"approvers", {"sec@example.com"}},
                  {"details", {{"ticket", "SEC-1"}}}}}}};
  ExpectCode(Call("POST", path, body, kBob), 403, 7, "admins only");
  auto added = Call("POST", path, body);
  ASSERT_EQ(added.status, 200) << added.body;
  json approvals = added.Json()["appeal"]["approvals"];
  ASSERT_EQ(approvals.size(), 3u) << added.body;
  EXPECT_EQ(approvals[2]["name"], "security");
  EXPECT_EQ(approvals[2]["status"], "blocked");  // behind the pending owner step
  EXPECT_EQ(approvals[2]["approvers"], json::array({"sec@example.com"}));
  EXPECT_EQ(approvals[2]["details"]["ticket"], "SEC-1");
  ExpectCode(Call("POST", path, body), 400, 3, "already has a step");
  ExpectCode(Call("POST", path, json{{"steps", {{{"name", "x"}, {"approvers", json::array()}}}}}),
             400, 3, "steps[0].approvers");
  ExpectCode(Call("POST", path,
                  json{{"steps", {{{"name", "x"}, {"approvers", {"a@example.com"}}, {"stage", "s"}}}}}),
             400, 3, "stage");
  ExpectCode(Call("POST", path,
                  json{{"steps", {{{"name", "x"}, {"approvers", {"a@example.com"}}, {"index", 1}}}}}),
             400, 3, "index");

  json details = {{"details", {{"ticket", "SEC-2"}}}};
  ExpectCode(Call("PATCH", path + "/security", details, kBob), 403, 7, "admins only");
  ExpectCode(Call("PATCH", path + "/nope", details), 404, 5, "nope");
  auto updated = Call("PATCH", path + "/security", details);
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.Json()["appeal"]["approvals"][2]["details"]["ticket"], "SEC-2");

  // The flow runs through the added step, and only its approver acts on it.
  Act(id, "owner", "approve", "owner@example.com");
  json after_lead = Act(id, "lead", "approve", "lead@example.com");
  EXPECT_EQ(after_lead["appeal"]["status"], "pending") << after_lead.dump();
  EXPECT_EQ(after_lead["appeal"]["approvals"][2]["status"], "pending") << after_lead.dump();
  Act(id, "security", "approve", "lead@example.com", 403);
  json done = Act(id, "security", "approve", "sec@example.com");
  EXPECT_EQ(done["appeal"]["status"], "approved") << done.dump();
  ExpectCode(Call("PATCH", path + "/security", details), 400, 9, "pending appeal");
}

TEST_F(GuardianRoutesTest, ApprovalSummaries) {
  std::string rid = Setup("summ", TwoStep(), "summ-owner@example.com");
  ASSERT_EQ(Appeal(rid, "viewer", "", kBob).status, 200);
  ASSERT_EQ(Appeal(rid, "admin", "", kBob).status, 200);
  ASSERT_EQ(Appeal(rid, "viewer", "", kCarol).status, 200);
  json body = {{"summary_items",
                {{"by_status_role",
                  {{"filters", {{"provider_urns", {"noop-summ"}}}},
                   {"group_bys", {"approval.status", "appeal.role"}}}}}}};
  // Mine: the owner approves step 1 of all three (pending); lead's are blocked.
  auto mine = Call("POST", "/me/approvals/summaries", body, "summ-owner@example.com");
  ASSERT_EQ(mine.status, 200) << mine.body;
  json r = mine.Json()["summary_items"]["by_status_role"];
  EXPECT_EQ(r["groups_count"], 3) << mine.body;
  EXPECT_EQ(r["count"], 3) << mine.body;
  ASSERT_EQ(r["groups"].size(), 2u) << mine.body;
  EXPECT_EQ(r["groups"][0]["group_fields"]["approval.status"], "pending");
  EXPECT_EQ(r["groups"][0]["group_fields"]["appeal.role"], "admin");
  EXPECT_EQ(r["groups"][0]["count"], 1);
  EXPECT_EQ(r["groups"][1]["group_fields"]["appeal.role"], "viewer");
  EXPECT_EQ(r["groups"][1]["count"], 2);
  EXPECT_EQ(r["applied_parameters"]["group_bys"][0], "approval.status");
  // An admin's summary counts every approval (both steps of three appeals).
  auto all = Call("POST", "/approvals/summaries", body);
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(all.Json()["summary_items"]["by_status_role"]["groups_count"], 6) << all.body;
  // A non-admin's /approvals/summaries is their own, as their /approvals list.
  auto bob = Call("POST", "/approvals/summaries", body, kBob);
  ASSERT_EQ(bob.status, 200) << bob.body;
  EXPECT_EQ(bob.Json()["summary_items"]["by_status_role"]["groups_count"], 0) << bob.body;
  // Unknown filters and groups are refused, naming them.
  json bad = {{"summary_items", {{"x", {{"group_bys", {"appeal.colour"}}}}}}};
  ExpectCode(Call("POST", "/approvals/summaries", bad), 400, 3, "summary_items.x.group_bys[0]");
  json bad_filter = {{"summary_items",
                      {{"x", {{"filters", {{"colour", "red"}}}, {"group_bys", {"appeal.role"}}}}}}};
  ExpectCode(Call("POST", "/approvals/summaries", bad_filter), 400, 3,
             "summary_items.x.filters.colour");
  ExpectCode(Call("POST", "/me/approvals/summaries", body, ""), 401, 16);
}

}  // namespace
}  // namespace sluice::integration
