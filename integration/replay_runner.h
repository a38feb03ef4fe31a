// Replays one upstream's REST API (Guardian's, Siren's) through a running
// Sluice stack from a route table (guardian_routes.json, siren_routes.json;
// each table's "about" explains its rows), and prints one line per route and
// a summary. The row mechanics (substitution, checks, route fit) are
// replay.h; the stack and HTTP calls are harness.h.
#ifndef SLUICE_INTEGRATION_REPLAY_RUNNER_H_
#define SLUICE_INTEGRATION_REPLAY_RUNNER_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "integration/harness.h"
#include "nlohmann/json.hpp"

namespace sluice::integration::replay {

// What one replay needs.
struct ReplaySpec {
  // The upstream's name ("Guardian", "Siren"): in reasons, outcomes and the
  // summary ("N of M answer as Guardian").
  std::string upstream;
  // The route table, a runfile path ("integration/guardian_routes.json").
  std::string table;
  // The upstream's HTTP bindings ("GET /v1beta1/providers/{id}"), from its
  // proto. The table must replay each exactly once.
  std::set<std::string> routes;
  // The stack's HTTP root (Stack::http_base()).
  std::string root;
  // Where a row's `path` lives under `root` unless the row sets `base`.
  std::string base = "/v1beta1";
  // X-Auth-Email of a row without `as`.
  std::string default_caller = "admin@example.com";
  // Initial `{{name}}` values; rows add to them with `save`.
  nlohmann::json vars = nlohmann::json::object();
  // When set, called after each row with the values so far; it may add
  // values no answer carries (e.g. one read from a file the server wrote).
  std::function<void(nlohmann::json* vars)> after_row;
  // When set, sends each route row in place of its HTTP request (fixture
  // rows still go over HTTP): (the row after substitution, its base, its
  // request headers) → the answer, judged by the row's expectations as an
  // HTTP answer is (upstream_grpc.h sends rows as rpcs).
  std::function<HttpResponse(const nlohmann::json& row, const std::string& base,
                             const std::vector<std::string>& headers)>
      send;
};

// What a replay found. A test fails on any `errors`.
struct ReplayReport {
  // One line each: table problems (unreadable, a route twice, a route not the
  // upstream's, a path that does not fit its route, one of `spec.routes` not
  // replayed), failed fixture rows, and the count of different routes.
  std::vector<std::string> errors;
  // The routes the table replayed.
  std::set<std::string> routes;
  // Route rows by outcome: as the upstream, the documented 400/501, pending
  // (never a failure), different.
  int as_upstream = 0, documented = 0, pending = 0, different = 0;
};

// Replays every row of `spec.table` in order against `spec.root` and prints
// the per-route lines and summary to stdout.
//
// A row: {rpc, route, method, path, base?, body?, as?, headers?, expect |
// outcome, save?, pending?} or a set-up row with `fixture` (a reason) in
// place of rpc/route. `expect` is one expectation or a list of alternatives
// (replay::Expect); `outcome` "as_<upstream>" (the default), "documented_501" (with `feature`) or
// "documented_400" (with `field`) expects the documented refusal instead.
// `save` maps variable names to response paths (replay::Lookup). A row whose
// `{{name}}` is not yet known fails with "needs name from an earlier row".
ReplayReport Run(const ReplaySpec& spec);

}  // namespace sluice::integration::replay

#endif  // SLUICE_INTEGRATION_REPLAY_RUNNER_H_
