// Replays Guardian's REST API through Sluice's gateway (issue 28, "Done
// when"): each of the 50 HTTP bindings in Guardian's proto, with the request
// shapes Guardian's own docs and tests use, in the order a Guardian user
// meets them (policy → provider → resource → appeal → approval → grant →
// revoke/restore → import → deletes), against a real sluice-server,
// sluice-gateway and PostgreSQL. The route table is guardian_routes.json;
// its "about" explains the row format.
//
// Prints one line per replayed route (rpc, method, path, outcome: "as
// Guardian", "documented 400", "documented 501", "PENDING(<flag>)" or
// "DIFFERENT: <why>") and "N of 50 answer as Guardian". Fails when a row is
// DIFFERENT, when a fixture row fails, or when the table does not hold each of
// Guardian's 50 routes exactly once. A `pending` row never fails the test; if
// it already answers as Guardian, the summary says its flag can be cleared.
//
// Identity: Guardian has no authentication of its own (the proxy in front of
// it decides). Sluice runs here as deployed, in auth mode `header`, so every
// request carries X-Auth-Email (the row's `as`, admin@example.com unless
// set), as Guardian's docs show the header for appeals and approvals.
#include "integration/guardian_replay.h"

#include <gtest/gtest.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "integration/harness.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

// The HTTP bindings of GuardianService in goto/proton 0d8cde8
// gotocompany/guardian/v1beta1/guardian.proto, listed in the proto's order (50:
// 49 rpcs, UpdateProvider has two). The table must replay each exactly once.
const std::set<std::string>& GuardianRoutes() {
  static const auto* routes = new std::set<std::string>{
      "GET /v1beta1/providers",                                       // ListProviders
      "GET /v1beta1/providers/{id}",                                  // GetProvider
      "GET /v1beta1/providers/types",                                 // GetProviderTypes
      "POST /v1beta1/providers",                                      // CreateProvider
      "PUT /v1beta1/providers/{id}",                                  // UpdateProvider
      "PUT /v1beta1/providers/{config.type}/{config.urn}",            // UpdateProvider
      "DELETE /v1beta1/providers/{id}",                               // DeleteProvider
      "GET /v1beta1/providers/{id}/resources/{resource_type}/roles",  // ListRoles
      "POST /v1beta1/activities/import",                              // ImportActivities
      "GET /v1beta1/activities/{id}",                                 // GetActivity
      "GET /v1beta1/activities",                                      // ListActivities
      "GET /v1beta1/policies",                                        // ListPolicies
      "GET /v1beta1/policies/{id}/versions/{version}",                // GetPolicy
      "POST /v1beta1/policies",                                       // CreatePolicy
      "PUT /v1beta1/policies/{id}",                                   // UpdatePolicy
      "GET /v1beta1/policies/{id}/versions/{version}/preferences",    // GetPolicyPreferences
      "POST /v1beta1/resources",                                      // CreateResource
      "GET /v1beta1/resources",                                       // ListResources
      "GET /v1beta1/resources/{id}",                                  // GetResource
      "PUT /v1beta1/resources/{id}",                                  // UpdateResource
      "DELETE /v1beta1/resources/{id}",                               // DeleteResource
      "GET /v1beta1/me/appeals",                                      // ListUserAppeals
      "GET /v1beta1/appeals",                                         // ListAppeals
      "GET /v1beta1/appeals/{id}",                                    // GetAppeal
      "PUT /v1beta1/appeals/{id}/cancel",                             // CancelAppeal
      "PUT /v1beta1/appeals/{id}/revoke",                             // RevokeAppeal
      "POST /v1beta1/appeals",                                        // CreateAppeal
      "PATCH /v1beta1/appeals/{id}",                                  // PatchAppeal
      "POST /v1beta1/appeals/{appeal_id}/relabel",                    // RelabelAppeal
      "GET /v1beta1/appeals/{appeal_id}/comments",                    // ListAppealComments
      "POST /v1beta1/appeals/{appeal_id}/comments",                   // CreateAppealComment
      "GET /v1beta1/appeals/{appeal_id}/activities",                  // ListAppealActivities
      "GET /v1beta1/me/approvals",                                    // ListUserApprovals
      "GET /v1beta1/approvals",                                       // ListApprovals
      "POST /v1beta1/me/approvals/summaries",                  // GenerateUserApprovalSummaries
      "POST /v1beta1/approvals/summaries",                     // GenerateApprovalSummaries
      "POST /v1beta1/appeals/{id}/approvals/{approval_name}",  // UpdateApproval
      "POST /v1beta1/appeals/{appeal_id}/approvals/{approval_id}/approvers",  // AddApprover
      "DELETE /v1beta1/appeals/{appeal_id}/approvals/{approval_id}/approvers/{email}",  // DeleteApprover
      "POST /v1beta1/appeals/{appeal_id}/approvals",                 // AddApprovalStep
      "PATCH /v1beta1/appeals/{appeal_id}/approvals/{approval_id}",  // UpdateApprovalStep
      "GET /v1beta1/grants",                                         // ListGrants
      "GET /v1beta1/me/grants",                                      // ListUserGrants
      "GET /v1beta1/me/grants/roles",                                // ListUserRoles
      "GET /v1beta1/grants/{id}",                                    // GetGrant
      "PATCH /v1beta1/grants/{id}",                                  // UpdateGrant
      "PUT /v1beta1/grants/{id}/revoke",                             // RevokeGrant
      "PUT /v1beta1/grants/{id}/restore",                            // RestoreGrant
      "PUT /v1beta1/grants/revoke",                                  // RevokeGrants
      "POST /v1beta1/grants/import",                                 // ImportGrantsFromProvider
  };
  return *routes;
}

constexpr char kDefaultCaller[] = "admin@example.com";

// What ImportGrantsFromProvider imports: a database the postgres provider
// manages, with one table and one role granted SELECT outside Sluice.
class ImportTarget {
 public:
  absl::Status Create() {
    auto db = db::TestDatabase::Create();
    if (!db.ok()) return db.status();
    db_ = std::move(*db);
    role_ = absl::StrCat("replay_outside_", absl::ToUnixMicros(absl::Now()) % 100000000);
    try {
      soci::session s(soci::postgresql, db_->dsn());
      s << "CREATE TABLE replay_orders (id int)";
      s << "CREATE ROLE \"" + role_ + "\"";
      s << "GRANT SELECT ON replay_orders TO \"" + role_ + "\"";
    } catch (const std::exception& e) {
      return absl::InternalError(e.what());
    }
    return absl::OkStatus();
  }
  ~ImportTarget() {
    if (!db_) return;
    std::string admin = db_->admin_dsn();
    db_.reset();  // drops the database and with it the role's grants
    try {
      soci::session sql(soci::postgresql, admin);
      sql << "DROP ROLE IF EXISTS \"" + role_ + "\"";
    } catch (const std::exception&) {
    }
  }
  const std::string& dsn() const { return db_->dsn(); }
  const std::string& role() const { return role_; }

 private:
  std::unique_ptr<db::TestDatabase> db_;
  std::string role_;
};

// One replayed route's result, for the summary.
struct Outcome {
  std::string rpc, method, path, text;
  bool as_guardian = false, documented = false, pending = false, different = false;
};

json LoadTable() {
  std::ifstream in(Runfile("integration/guardian_routes.json"));
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// The expectation list of `row`: its `expect` (one or a list of
// alternatives), or the documented 501/400 shape its `outcome` names.
json Expectations(const json& row) {
  std::string outcome = row.value("outcome", "as_guardian");
  if (outcome == "documented_501") {
    return json::array(
        {{{"status", 501}, {"code", 12}, {"message_has", row.value("feature", "")}}});
  }
  if (outcome == "documented_400") {
    return json::array(
        {{{"status", 400},
          {"code", 3},
          {"message_has", absl::StrCat("unknown field \"", row.value("field", ""), "\"")}}});
  }
  json expect = row.value("expect", json::object());
  return expect.is_array() ? expect : json::array({expect});
}

TEST(GuardianReplayTest, EachOfGuardiansRoutesAnswersAsGuardian) {
  json table = LoadTable();
  ASSERT_TRUE(table.is_object() && table.contains("rows")) << "integration/guardian_routes.json";

  ImportTarget target;
  ASSERT_TRUE(target.Create().ok());
  auto stack = Stack::Start();
  ASSERT_TRUE(stack.ok()) << stack.status();
  const std::string base = absl::StrCat((*stack)->http_base(), "/api/v1beta1");

  json vars = {{"pg_credentials", ProviderCredentials(target.dsn())},
               {"outside_role", target.role()}};
  std::vector<Outcome> outcomes;
  std::set<std::string> routes;
  std::map<std::string, std::vector<std::string>> pending_by_flag;  // flag → rpcs

  for (const json& raw : table["rows"]) {
    std::set<std::string> missing;
    json row = replay::Substitute(raw, vars, &missing);
    const bool fixture = row.contains("fixture");
    std::string method = row.value("method", "");
    std::string path = row.value("path", "");
    std::string label =
        fixture ? absl::StrCat("fixture (", row.value("fixture", ""), ")") : row.value("rpc", "");

    if (!fixture) {
      std::string route = raw.value("route", "");
      EXPECT_TRUE(routes.insert(route).second) << "route listed twice: " << route;
      EXPECT_EQ(GuardianRoutes().count(route), 1u) << "not a route of Guardian's proto: " << route;
      std::string fit = replay::MatchesRoute(route, method, raw.value("path", ""));
      EXPECT_EQ(fit, "") << label;
    }

    std::string why;
    long status = 0;
    json body;
    if (!missing.empty()) {
      why = absl::StrCat("needs ", absl::StrJoin(missing, ", "), " from an earlier row");
    } else {
      std::string payload = row.contains("body") ? row["body"].dump() : "";
      std::string caller = row.value("as", kDefaultCaller);
      HttpResponse r = Http(method, base + path, payload, {"X-Auth-Email: " + caller});
      status = r.status;
      body = r.Json();
      if (r.status == 0) why = absl::StrCat("no answer: ", r.error);
      for (const json& expect : Expectations(row)) {
        if (!why.empty() && r.status == 0) break;
        std::string w = replay::Expect(expect, status, body);
        if (w.empty()) {
          why.clear();
          break;
        }
        if (why.empty()) why = w;  // report the first alternative's reason
      }
      if (why.empty()) {
        json save = row.value("save", json::object());
        for (auto it = save.begin(); it != save.end(); ++it) {
          std::optional<json> v = replay::Lookup(body, it.value().get<std::string>());
          if (v.has_value()) {
            vars[it.key()] = *v;
          } else {
            why = absl::StrCat("nothing at ", it.value().get<std::string>(), " to save as ",
                               it.key());
          }
        }
      }
    }

    if (fixture) {
      EXPECT_EQ(why, "") << label << ": " << method << " " << path;
      continue;
    }
    Outcome o{row.value("rpc", ""), method, path};
    std::string outcome = row.value("outcome", "as_guardian");
    std::string pending = row.value("pending", "");
    if (!pending.empty()) {
      o.pending = true;
      // UpdateProvider has two bindings: name the route where an rpc has more.
      int bindings = 0;
      for (const json& r : table["rows"])
        bindings += !r.contains("fixture") && r.value("rpc", "") == o.rpc;
      pending_by_flag[pending].push_back(
          bindings > 1 ? absl::StrCat(o.rpc, " (", raw.value("route", ""), ")") : o.rpc);
      o.text = why.empty()
                   ? absl::StrCat("PENDING(", pending, "): answers as expected now; clear the flag")
                   : absl::StrCat("PENDING(", pending, "): ", why);
    } else if (!why.empty()) {
      o.different = true;
      o.text = absl::StrCat("DIFFERENT: ", why);
    } else if (outcome == "as_guardian") {
      o.as_guardian = true;
      o.text = "as Guardian";
    } else {
      o.documented = true;
      o.text = outcome == "documented_501" ? "documented 501" : "documented 400";
    }
    outcomes.push_back(o);
  }

  int as_guardian = 0, documented = 0, pending = 0, different = 0;
  std::printf("\n%-30s %-6s %-58s %s\n", "Guardian rpc", "method", "path (under /api/v1beta1)",
              "outcome");
  for (const auto& o : outcomes) {
    std::string path = o.path.size() > 58 ? o.path.substr(0, 55) + "..." : o.path;
    std::printf("%-30s %-6s %-58s %s\n", o.rpc.c_str(), o.method.c_str(), path.c_str(),
                o.text.c_str());
    as_guardian += o.as_guardian;
    documented += o.documented;
    pending += o.pending;
    different += o.different;
  }
  std::printf(
      "\n%d of %d answer as Guardian; %d with the documented 400/501; %d pending; %d different\n",
      as_guardian, static_cast<int>(GuardianRoutes().size()), documented, pending, different);
  for (const auto& [flag, rpcs] : pending_by_flag) {
    std::printf("  pending=%s (%zu): %s\n", flag.c_str(), rpcs.size(),
                absl::StrJoin(rpcs, ", ").c_str());
  }
  std::fflush(stdout);

  EXPECT_EQ(routes, GuardianRoutes()) << "the table must hold each of Guardian's routes once";
  EXPECT_EQ(different, 0) << "routes that answer differently from Guardian (see the table above)";
}

}  // namespace
}  // namespace sluice::integration
