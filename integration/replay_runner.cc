#include "integration/replay_runner.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "integration/harness.h"
#include "integration/replay.h"

namespace sluice::integration::replay {
namespace {

using nlohmann::json;

// One replayed route's result, for the summary.
struct Outcome {
  std::string rpc, method, path, text;
};

json LoadTable(const std::string& runfile) {
  std::ifstream in(Runfile(runfile));
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// The expectation list of `row`: its `expect` (one or a list of
// alternatives), or the documented 501/400 shape its `outcome` names.
json Expectations(const json& row) {
  std::string outcome = row.value("outcome", "");
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

// Sends `row` and checks its answer; saves what the row's `save` names into
// `vars`. Returns "" when the row holds, else why not.
std::string Replay(const ReplaySpec& spec, const json& row, const std::string& base, json* vars) {
  std::string payload = row.contains("body") ? row["body"].dump() : "";
  std::vector<std::string> headers = {"X-Auth-Email: " + row.value("as", spec.default_caller)};
  for (const json& h : row.value("headers", json::array())) headers.push_back(h.get<std::string>());
  HttpResponse r =
      spec.send && !row.contains("fixture")
          ? spec.send(row, base, headers)
          : Http(row.value("method", ""), spec.root + base + row.value("path", ""), payload, headers);
  if (r.status == 0) return absl::StrCat("no answer: ", r.error);
  json body = r.Json();
  std::string why;
  for (const json& expect : Expectations(row)) {
    std::string w = Expect(expect, r.status, body, spec.upstream);
    if (w.empty()) {
      why.clear();
      break;
    }
    if (why.empty()) why = w;  // report the first alternative's reason
  }
  if (!why.empty()) return why;
  json save = row.value("save", json::object());
  for (auto it = save.begin(); it != save.end(); ++it) {
    std::optional<json> v = Lookup(body, it.value().get<std::string>());
    if (!v.has_value()) {
      return absl::StrCat("nothing at ", it.value().get<std::string>(), " to save as ", it.key());
    }
    (*vars)[it.key()] = *v;
  }
  return "";
}

}  // namespace

ReplayReport Run(const ReplaySpec& spec) {
  ReplayReport report;
  json table = LoadTable(spec.table);
  if (!table.is_object() || !table.contains("rows")) {
    report.errors.push_back(absl::StrCat(spec.table, ": not an object with \"rows\""));
    return report;
  }
  json vars = spec.vars;
  std::vector<Outcome> outcomes;
  std::map<std::string, std::vector<std::string>> pending_by_flag;  // flag → rpcs

  for (const json& raw : table["rows"]) {
    std::set<std::string> missing;
    json row = Substitute(raw, vars, &missing);
    const bool fixture = row.contains("fixture");
    std::string method = row.value("method", "");
    std::string path = row.value("path", "");
    std::string base = row.value("base", spec.base);
    std::string label =
        fixture ? absl::StrCat("fixture (", row.value("fixture", ""), ")") : row.value("rpc", "");

    if (!fixture) {
      std::string route = raw.value("route", "");
      if (!report.routes.insert(route).second) {
        report.errors.push_back(absl::StrCat("route listed twice: ", route));
      }
      if (spec.routes.count(route) != 1) {
        report.errors.push_back(
            absl::StrCat("not a route of ", spec.upstream, "'s proto: ", route));
      }
      std::string fit = MatchesRoute(route, method, raw.value("path", ""));
      if (!fit.empty()) report.errors.push_back(absl::StrCat(label, ": ", fit));
    }

    std::string why =
        missing.empty()
            ? Replay(spec, row, base, &vars)
            : absl::StrCat("needs ", absl::StrJoin(missing, ", "), " from an earlier row");
    if (spec.after_row) spec.after_row(&vars);

    if (fixture) {
      if (!why.empty()) {
        report.errors.push_back(absl::StrCat(label, ": ", method, " ", path, ": ", why));
      }
      continue;
    }
    Outcome o{row.value("rpc", ""), method, base == spec.base ? path : base + path};
    std::string outcome = row.value("outcome", "");
    std::string pending = row.value("pending", "");
    if (!pending.empty()) {
      ++report.pending;
      // An rpc with more than one binding (Guardian's UpdateProvider): name
      // the route.
      int bindings = 0;
      for (const json& r : table["rows"])
        bindings += !r.contains("fixture") && r.value("rpc", "") == o.rpc;
      pending_by_flag[pending].push_back(
          bindings > 1 ? absl::StrCat(o.rpc, " (", raw.value("route", ""), ")") : o.rpc);
      o.text = why.empty()
                   ? absl::StrCat("PENDING(", pending, "): answers as expected now; clear the flag")
                   : absl::StrCat("PENDING(", pending, "): ", why);
    } else if (!why.empty()) {
      ++report.different;
      o.text = absl::StrCat("DIFFERENT: ", why);
    } else if (outcome.empty() || outcome.rfind("as_", 0) == 0) {  // "as_guardian"
      ++report.as_upstream;
      o.text = absl::StrCat("as ", spec.upstream);
    } else {
      ++report.documented;
      o.text = outcome == "documented_501" ? "documented 501" : "documented 400";
    }
    outcomes.push_back(o);
  }

  std::string heading = absl::StrCat("path (under ", spec.base, ")");
  std::printf("\n%-30s %-6s %-58s %s\n", (spec.upstream + " rpc").c_str(), "method",
              heading.c_str(), "outcome");
  for (const auto& o : outcomes) {
    std::string path = o.path.size() > 58 ? o.path.substr(0, 55) + "..." : o.path;
    std::printf("%-30s %-6s %-58s %s\n", o.rpc.c_str(), o.method.c_str(), path.c_str(),
                o.text.c_str());
  }
  std::printf("\n%d of %d answer as %s; %d with the documented 400/501; %d pending; %d different\n",
              report.as_upstream, static_cast<int>(spec.routes.size()), spec.upstream.c_str(),
              report.documented, report.pending, report.different);
  for (const auto& [flag, rpcs] : pending_by_flag) {
    std::printf("  pending=%s (%zu): %s\n", flag.c_str(), rpcs.size(),
                absl::StrJoin(rpcs, ", ").c_str());
  }
  std::fflush(stdout);

  for (const std::string& route : spec.routes) {
    if (report.routes.count(route) == 0) {
      report.errors.push_back(absl::StrCat("the table does not replay ", route));
    }
  }
  if (report.different > 0) {
    report.errors.push_back(absl::StrCat(report.different, " routes answer differently from ",
                                         spec.upstream, " (see the table above)"));
  }
  return report;
}

}  // namespace sluice::integration::replay
