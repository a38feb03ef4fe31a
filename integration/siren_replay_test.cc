// Replays Siren's REST API through Sluice's gateway at Siren's own paths
// (issues #30 and #31 "Done when"): each of Siren's 44 HTTP bindings
// (the 43 v1beta1 bindings, with the 12 of alert providers, namespaces and
// rules, plus v1's GET /v1/subscriptions), with the request shapes of
// Siren's docs, against a real sluice-server, sluice-gateway and PostgreSQL.
// The route table is siren_routes.json (its "about" explains the rows); the
// row format and checks are the Guardian replay's (guardian_replay.h).
//
// Prints one line per route (rpc, method, path, outcome: "as Siren",
// "PENDING(<flag>)" or "DIFFERENT: <why>") and "N of 44 answer as Siren".
// Fails when a row is DIFFERENT, a fixture row fails, or the table does not
// hold each route exactly once. A `pending` row (waiting for a
// parallel branch's core) never fails; if it already answers as Siren, the
// summary says so.
//
// Identity: Siren has no authentication of its own. Sluice runs as
// deployed, in auth mode `header`: each request carries X-Auth-Email (the
// row's `as`, admin@example.com unless set); the alert hook carries its
// bearer token instead (notification.alert_hook_tokens).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "integration/fake_http_server.h"
#include "integration/notification_helpers.h"
#include "integration/guardian_replay.h"
#include "integration/harness.h"

namespace sluice::integration {
namespace {

using nlohmann::json;

// Siren's HTTP bindings: goto/proton 0d8cde8
// gotocompany/siren/v1beta1/siren.proto, plus gotocompany/siren/v1/siren.proto's
// one route.
const std::set<std::string>& SirenRoutes() {
  static const auto* routes = new std::set<std::string>{
      "POST /v1beta1/receivers/{id}/send",                                         // NotifyReceiver
      "GET /v1beta1/subscriptions",                                                // ListSubscriptions
      "POST /v1beta1/subscriptions",                                               // CreateSubscription
      "GET /v1beta1/subscriptions/{id}",                                           // GetSubscription
      "PUT /v1beta1/subscriptions/{id}",                                           // UpdateSubscription
      "GET /v1beta1/subscriptions/{subscription_id}/receivers",                    // ListSubscriptionReceivers
      "POST /v1beta1/subscriptions/{subscription_id}/receivers",                   // AddSubscriptionReceiver
      "PUT /v1beta1/subscriptions/{subscription_id}/receivers/{receiver_id}",      // UpdateSubscriptionReceiver
      "DELETE /v1beta1/subscriptions/{subscription_id}/receivers/{receiver_id}",   // DeleteSubscriptionReceiver
      "DELETE /v1beta1/subscriptions/{id}",                                        // DeleteSubscription
      "GET /v1beta1/receivers",                                                    // ListReceivers
      "POST /v1beta1/receivers",                                                   // CreateReceiver
      "GET /v1beta1/receivers/{id}",                                               // GetReceiver
      "PUT /v1beta1/receivers/{id}",                                               // UpdateReceiver
      "DELETE /v1beta1/receivers/{id}",                                            // DeleteReceiver
      "GET /v1beta1/alerts/{provider_type}/{provider_id}",                         // ListAlerts
      "POST /v1beta1/alerts/{provider_type}/{provider_id}",                        // CreateAlerts
      "POST /v1beta1/alerts/{provider_type}/{provider_id}/{namespace_id}",         // CreateAlertsWithNamespace
      "GET /v1beta1/templates",                                                    // ListTemplates
      "GET /v1beta1/templates/{name}",                                             // GetTemplate
      "PUT /v1beta1/templates",                                                    // UpsertTemplate
      "DELETE /v1beta1/templates/{name}",                                          // DeleteTemplate
      "POST /v1beta1/templates/{name}/render",                                     // RenderTemplate
      "POST /v1beta1/silences",                                                    // CreateSilence
      "GET /v1beta1/silences",                                                     // ListSilences
      "GET /v1beta1/silences/{id}",                                                // GetSilence
      "DELETE /v1beta1/silences/{id}",                                             // ExpireSilence
      "POST /v1beta1/notifications",                                               // PostNotification
      "POST /v1beta1/bulk-notifications",                                          // PostBulkNotifications
      "GET /v1beta1/notifications/{notification_id}/messages",                     // ListNotificationMessages
      "GET /v1beta1/notifications",                                                // ListNotifications
      "GET /v1/subscriptions",                                                     // v1 ListSubscriptions
      // Part 2 (issue #31): alert providers, namespaces and rules.
      "GET /v1beta1/providers",                                                    // ListProviders
      "POST /v1beta1/providers",                                                   // CreateProvider
      "GET /v1beta1/providers/{id}",                                               // GetProvider
      "PUT /v1beta1/providers/{id}",                                               // UpdateProvider
      "DELETE /v1beta1/providers/{id}",                                            // DeleteProvider
      "GET /v1beta1/namespaces",                                                   // ListNamespaces
      "POST /v1beta1/namespaces",                                                  // CreateNamespace
      "GET /v1beta1/namespaces/{id}",                                              // GetNamespace
      "PUT /v1beta1/namespaces/{id}",                                              // UpdateNamespace
      "DELETE /v1beta1/namespaces/{id}",                                           // DeleteNamespace
      "GET /v1beta1/rules",                                                        // ListRules
      "PUT /v1beta1/rules",                                                        // UpdateRule
  };
  return *routes;
}

constexpr char kDefaultCaller[] = "admin@example.com";

struct Outcome {
  std::string rpc, method, path, text;
  bool as_siren = false, pending = false, different = false;
};

json LoadTable() {
  std::ifstream in(Runfile("integration/siren_routes.json"));
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

json Expectations(const json& row) {
  json expect = row.value("expect", json::object());
  return expect.is_array() ? expect : json::array({expect});
}

// MatchesRoute for Siren's routes: v1's route is checked as if under /v1beta1.
std::string FitsRoute(const std::string& route, const std::string& method,
                      const std::string& path) {
  std::string r = route;
  const std::string v1 = " /v1/";
  if (auto at = r.find(v1); at != std::string::npos) r.replace(at, v1.size(), " /v1beta1/");
  return replay::MatchesRoute(r, method, path);
}

TEST(SirenReplayTest, EachOfSirensPartOneRoutesAnswersAsSiren) {
  json table = LoadTable();
  ASSERT_TRUE(table.is_object() && table.contains("rows")) << "integration/siren_routes.json";

  // The prometheus provider type's peers: one fake answering both
  // Prometheus's and Alertmanager's POST /-/reload with 200.
  auto peer = FakeHttpServer::Start();
  ASSERT_NE(peer, nullptr);
  std::string dir = TempPath("siren-replay-alerting");
  ASSERT_EQ(system(("rm -rf " + dir + " && mkdir -p " + dir + "/rules").c_str()), 0);
  Stack::Options opts;
  opts.config_yaml = "notification:\n  alert_hook_base_url: http://127.0.0.1:9\n  prometheus:\n"
                     "    rules_dir: " + dir + "/rules\n"
                     "    alertmanager_config_file: " + dir + "/alertmanager.yml\n"
                     "    alertmanager_url: " + peer->Url("") + "\n";
  auto stack = Stack::Start(opts);
  ASSERT_TRUE(stack.ok()) << stack.status();
  const std::string root = (*stack)->http_base();

  // `{{ $labels.host }}` in Siren's rule templates is Prometheus's own
  // template text: it substitutes to itself.
  json vars = {{"alert_token", kTestAlertToken},
               {" $labels.host ", "{{ $labels.host }}"},
               {"prom_host", peer->Url("")}};
  std::vector<Outcome> outcomes;
  std::set<std::string> routes;
  std::map<std::string, std::vector<std::string>> pending_by_flag;

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
      EXPECT_EQ(SirenRoutes().count(route), 1u) << "not a route of Siren's proto: " << route;
      EXPECT_EQ(FitsRoute(route, method, raw.value("path", "")), "") << label;
    }

    std::string why;
    long status = 0;
    json body;
    if (!missing.empty()) {
      why = absl::StrCat("needs ", absl::StrJoin(missing, ", "), " from an earlier row");
    } else {
      std::string payload = row.contains("body") ? row["body"].dump() : "";
      std::vector<std::string> headers = {"X-Auth-Email: " + row.value("as", kDefaultCaller)};
      for (const json& h : row.value("headers", json::array())) headers.push_back(h.get<std::string>());
      std::string url = absl::StrCat(root, row.value("base", "/v1beta1"), path);
      HttpResponse r = Http(method, url, payload, headers);
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
        if (why.empty()) why = w;
      }
      if (why.empty()) {
        json save = row.value("save", json::object());
        for (auto it = save.begin(); it != save.end(); ++it) {
          std::optional<json> v = replay::Lookup(body, it.value().get<std::string>());
          if (v.has_value()) {
            vars[it.key()] = *v;
          } else {
            why = absl::StrCat("nothing at ", it.value().get<std::string>(), " to save as ", it.key());
          }
        }
      }
    }

    // The replay library words its reasons for Guardian's replay.
    why = absl::StrReplaceAll(why, {{"Guardian", "Siren"}});
    if (fixture) {
      EXPECT_EQ(why, "") << label << ": " << method << " " << path;
      continue;
    }
    Outcome o{row.value("rpc", ""), method, absl::StrCat(row.value("base", "/v1beta1"), path)};
    std::string pending = row.value("pending", "");
    if (!pending.empty()) {
      o.pending = true;
      pending_by_flag[pending].push_back(o.rpc);
      o.text = why.empty()
                   ? absl::StrCat("PENDING(", pending, "): answers as Siren now; clear the flag")
                   : absl::StrCat("PENDING(", pending, "): ", why);
    } else if (!why.empty()) {
      o.different = true;
      o.text = absl::StrCat("DIFFERENT: ", why);
    } else {
      o.as_siren = true;
      o.text = "as Siren";
    }
    outcomes.push_back(o);
  }

  int as_siren = 0, pending = 0, different = 0;
  std::printf("\n%-28s %-6s %-60s %s\n", "Siren rpc", "method", "path", "outcome");
  for (const auto& o : outcomes) {
    std::string path = o.path.size() > 60 ? o.path.substr(0, 57) + "..." : o.path;
    std::printf("%-28s %-6s %-60s %s\n", o.rpc.c_str(), o.method.c_str(), path.c_str(),
                o.text.c_str());
    as_siren += o.as_siren;
    pending += o.pending;
    different += o.different;
  }
  std::printf("\n%d of %d answer as Siren; %d pending; %d different\n", as_siren,
              static_cast<int>(SirenRoutes().size()), pending, different);
  for (const auto& [flag, rpcs] : pending_by_flag) {
    std::printf("  pending=%s (%zu): %s\n", flag.c_str(), rpcs.size(),
                absl::StrJoin(rpcs, ", ").c_str());
  }
  std::fflush(stdout);

  EXPECT_EQ(routes, SirenRoutes()) << "the table must hold each of Siren's routes once";
  EXPECT_EQ(different, 0) << "routes that answer differently from Siren (see the table above)";
}

}  // namespace
}  // namespace sluice::integration
