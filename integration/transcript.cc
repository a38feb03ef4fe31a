#include "integration/transcript.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "integration/harness.h"
#include "integration/replay.h"
#include "re2/re2.h"

namespace sluice::integration::transcript {
namespace {

using nlohmann::json;

// Response and delivery headers worth comparing: the rest (Date, lengths,
// server names) differs by program, not by behaviour.
bool HeaderMatters(const std::string& lower_name) {
  return lower_name == "content-type" || lower_name == "authorization" ||
         absl::StartsWith(lower_name, "x-");
}

json ParsedOrText(const std::string& body) {
  if (body.empty()) return nullptr;
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json(body) : j;
}

bool IdKey(const std::string& key) {
  return key == "id" || absl::EndsWith(key, "_id");
}

bool AllDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string NormalizeString(std::string s, const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    if (absl::StrContains(s, value)) s = absl::StrReplaceAll(s, {{value, absl::StrCat("{{", name, "}}")}});
  }
  static const RE2 kUuid("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  RE2::GlobalReplace(&s, kUuid, "<uuid>");
  static const RE2 kTime(
      R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d))");
  if (RE2::FullMatch(s, kTime) && !absl::StartsWith(s, "0001-01-01T00:00:00")) return "<time>";
  return s;
}

// `v` without the object members at their proto default (null, "", 0,
// false, [] and {}), recursively: what a program that omits defaults
// (Guardian's protojson) would have sent.
json WithoutDefaults(const json& v) {
  if (v.is_array()) {
    json out = json::array();
    for (const json& e : v) out.push_back(WithoutDefaults(e));
    return out;
  }
  if (!v.is_object()) return v;
  json out = json::object();
  for (auto it = v.begin(); it != v.end(); ++it) {
    json e = WithoutDefaults(it.value());
    bool is_default = e.is_null() || (e.is_string() && e.get<std::string>().empty()) ||
                      (e.is_number() && e == 0) || (e.is_boolean() && !e.get<bool>()) ||
                      ((e.is_array() || e.is_object()) && e.empty());
    if (!is_default) out[it.key()] = std::move(e);
  }
  return out;
}

json NormalizeValue(const json& v, const std::string& key,
                    const std::vector<std::pair<std::string, std::string>>& values, bool unordered) {
  if (v.is_object()) {
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      out[it.key()] = NormalizeValue(it.value(), it.key(), values, unordered);
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const json& e : v) out.push_back(NormalizeValue(e, key, values, unordered));
    if (unordered) {
      // Sorted by the text of each element without its default-valued
      // members, so that a program emitting defaults (Sluice) and one
      // omitting them (Guardian) put the same elements in the same order.
      std::vector<std::pair<std::string, json>> keyed;
      for (json& e : out) keyed.emplace_back(WithoutDefaults(e).dump(), std::move(e));
      std::stable_sort(keyed.begin(), keyed.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      out = json::array();
      for (auto& [k, e] : keyed) out.push_back(std::move(e));
    }
    return out;
  }
  // An id of 0 is "none" (protojson writes 64-bit ids as strings): keep it
  // a default, so that a program omitting it and one emitting it compare as
  // extra_default.
  if (IdKey(key) && (v == 0 || v == "0")) return 0;
  if (v.is_number_integer() && IdKey(key)) return "<id>";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (IdKey(key) && AllDigits(s)) return "<id>";
    return NormalizeString(s, values);
  }
  return v;
}

// The string values of `vars`, longest first, for NormalizeString.
std::vector<std::pair<std::string, std::string>> StringValues(const json& vars) {
  std::vector<std::pair<std::string, std::string>> values;
  for (auto it = vars.begin(); it != vars.end(); ++it) {
    if (it.value().is_string() && it.value().get<std::string>().size() >= 4) {
      values.emplace_back(it.key(), it.value().get<std::string>());
    }
  }
  std::sort(values.begin(), values.end(), [](const auto& a, const auto& b) {
    return a.second.size() != b.second.size() ? a.second.size() > b.second.size()
                                              : a.first < b.first;
  });
  return values;
}

// A proto default: null, 0, "", false, [], or an object whose members are
// all defaults (a message set with nothing in it, e.g. an appeal's
// `options` without options, reads as the absent one).
bool IsDefault(const json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!IsDefault(it.value())) return false;
    }
    return true;
  }
  return v.is_null() || (v.is_number() && v == 0) || (v.is_string() && v.get<std::string>().empty()) ||
         (v.is_boolean() && !v.get<bool>()) || (v.is_array() && v.empty());
}

void Walk(const json& u, const json& s, const std::string& at, const Difference& proto,
          std::vector<Difference>* out, bool unordered = false);

// The leaves of `v` (1 for a scalar): what leaving it unpaired costs.
int Leaves(const json& v) {
  if (!v.is_structured() || v.empty()) return 1;
  int n = 0;
  for (const json& e : v) n += Leaves(e);
  return n;
}

// The differences, besides extra_default, between `u` and `s`.
int Cost(const json& u, const json& s, bool unordered) {
  std::vector<Difference> d;
  Walk(u, s, "", Difference{}, &d, unordered);
  int n = 0;
  for (const Difference& x : d) n += x.kind != "extra_default";
  return n;
}

// Pairs the elements of arrays of different lengths so that one element
// missing from (or added to) a list is one difference, not a shifted
// comparison of every element after it: the alignment (order kept) of least
// cost, where a pair costs its differences and an unpaired element its
// leaves. Returns (upstream index, sluice index) pairs, -1 for none.
std::vector<std::pair<int, int>> Align(const json& u, const json& s) {
  const int n = static_cast<int>(u.size()), m = static_cast<int>(s.size());
  std::vector<std::vector<int>> best(n + 1, std::vector<int>(m + 1, 0));
  std::vector<std::vector<int>> pair(n, std::vector<int>(m, 0));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) pair[i][j] = Cost(u[i], s[j], false);
  }
  for (int i = 1; i <= n; ++i) best[i][0] = best[i - 1][0] + Leaves(u[i - 1]);
  for (int j = 1; j <= m; ++j) best[0][j] = best[0][j - 1] + Leaves(s[j - 1]);
  for (int i = 1; i <= n; ++i) {
    for (int j = 1; j <= m; ++j) {
      best[i][j] = std::min({best[i - 1][j - 1] + pair[i - 1][j - 1],
                             best[i - 1][j] + Leaves(u[i - 1]), best[i][j - 1] + Leaves(s[j - 1])});
    }
  }
  std::vector<std::pair<int, int>> out;
  for (int i = n, j = m; i > 0 || j > 0;) {
    if (i > 0 && j > 0 && best[i][j] == best[i - 1][j - 1] + pair[i - 1][j - 1]) {
      out.push_back({--i, --j});
    } else if (i > 0 && best[i][j] == best[i - 1][j] + Leaves(u[i - 1])) {
      out.push_back({--i, -1});
    } else {
      out.push_back({-1, --j});
    }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// Pairs the elements of two unordered lists: the cheapest pairs first
// (Cost), ties in list order; what is left is unpaired (-1). Returns the
// pairs in upstream order, then Sluice's unpaired elements.
std::vector<std::pair<int, int>> Match(const json& u, const json& s) {
  const int n = static_cast<int>(u.size()), m = static_cast<int>(s.size());
  std::vector<std::tuple<int, int, int>> costs;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) costs.emplace_back(Cost(u[i], s[j], true), i, j);
  }
  std::sort(costs.begin(), costs.end());
  std::vector<int> of_u(n, -1), of_s(m, -1);
  for (const auto& [c, i, j] : costs) {
    if (of_u[i] >= 0 || of_s[j] >= 0) continue;
    // Two elements with nothing in common are no pair.
    if (c >= Leaves(u[i]) + Leaves(s[j])) continue;
    of_u[i] = j;
    of_s[j] = i;
  }
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < n; ++i) out.push_back({i, of_u[i]});
  for (int j = 0; j < m; ++j) {
    if (of_s[j] < 0) out.push_back({-1, j});
  }
  return out;
}

void Walk(const json& u, const json& s, const std::string& at, const Difference& proto,
          std::vector<Difference>* out, bool unordered) {
  auto add = [&](const std::string& where, const std::string& kind, const json* uv, const json* sv) {
    Difference d = proto;
    d.at = where;
    d.kind = kind;
    d.upstream = uv ? uv->dump() : "";
    d.sluice = sv ? sv->dump() : "";
    out->push_back(std::move(d));
  };
  if (u.is_object() && s.is_object()) {
    std::set<std::string> keys;
    for (auto it = u.begin(); it != u.end(); ++it) keys.insert(it.key());
    for (auto it = s.begin(); it != s.end(); ++it) keys.insert(it.key());
    for (const std::string& k : keys) {
      std::string where = absl::StrCat(at, ".", k);
      if (!s.contains(k)) {
        add(where, "missing", &u[k], nullptr);
      } else if (!u.contains(k)) {
        add(where, IsDefault(s[k]) ? "extra_default" : "extra", nullptr, &s[k]);
      } else {
        Walk(u[k], s[k], where, proto, out, unordered);
      }
    }
    return;
  }
  if (u.is_array() && s.is_array() && (unordered || u.size() != s.size())) {
    for (auto [i, j] : unordered ? Match(u, s) : Align(u, s)) {
      if (j < 0) {
        add(absl::StrCat(at, "[", i, "]"), "missing", &u[i], nullptr);
      } else if (i < 0) {
        add(absl::StrCat(at, "[", j, "]"), "extra", nullptr, &s[j]);
      } else {
        Walk(u[i], s[j], absl::StrCat(at, "[", i, "]"), proto, out, unordered);
      }
    }
    return;
  }
  if (u.is_array() && s.is_array()) {
    for (size_t i = 0; i < std::max(u.size(), s.size()); ++i) {
      std::string where = absl::StrCat(at, "[", i, "]");
      if (i >= s.size()) {
        add(where, "missing", &u[i], nullptr);
      } else if (i >= u.size()) {
        add(where, "extra", nullptr, &s[i]);
      } else {
        Walk(u[i], s[i], where, proto, out, unordered);
      }
    }
    return;
  }
  if (u != s) add(at, "value", &u, &s);
}

// The exchanges of `transcript` grouped by their step number `n`.
std::map<int, std::vector<std::pair<int, const json*>>> ByStep(const json& transcript) {
  std::map<int, std::vector<std::pair<int, const json*>>> steps;
  const json& ex = transcript["exchanges"];
  for (size_t i = 0; i < ex.size(); ++i) {
    steps[ex[i].value("n", -1)].emplace_back(static_cast<int>(i), &ex[i]);
  }
  return steps;
}

}  // namespace

json Normalize(const json& v, const json& vars, bool unordered) {
  return NormalizeValue(v, "", StringValues(vars), unordered);
}

json Record(const json& scenario, const RecordOptions& opts) {
  json vars = opts.vars;
  vars["receiver_url"] = opts.receiver->Url("");
  // Every value ever saved, for normalization ("name~2" for a name saved twice).
  json saved = vars;
  const std::string scenario_base = scenario.value("base", "");
  const std::string default_as = scenario.value("default_as", "admin@example.com");
  std::vector<bool> consumed;  // receiver requests already recorded, by arrival
  struct Pending {
    json exchange;
    bool unordered;
  };
  std::vector<Pending> exchanges;

  int n = 0;
  for (const json& raw : scenario.value("steps", json::array())) {
    ++n;
    const std::string name = raw.value("step", absl::StrCat("step ", n));
    if (raw.contains("sleep_ms")) {
      std::this_thread::sleep_for(std::chrono::milliseconds(raw["sleep_ms"].get<int>()));
      continue;
    }
    if (raw.contains("deliveries")) {
      const json& d = raw["deliveries"];
      const std::string path = d.value("path", "");
      const size_t want = d.value("count", 0);
      // The requests not yet recorded by an earlier delivery step, at `path`
      // ("" = any), in arrival order.
      auto unread = [&]() {
        std::vector<size_t> found;
        std::vector<FakeHttpServer::Request> all = opts.receiver->Requests("");
        consumed.resize(all.size(), false);
        for (size_t i = 0; i < all.size(); ++i) {
          if (!consumed[i] && (path.empty() || all[i].path == path)) found.push_back(i);
        }
        return std::make_pair(all, found);
      };
      absl::Time deadline = absl::Now() + absl::Seconds(d.value("timeout_s", 30));
      while (unread().second.size() < want && absl::Now() < deadline) {
        absl::SleepFor(absl::Milliseconds(50));
      }
      absl::SleepFor(absl::Milliseconds(d.value("settle_ms", 1000)));
      auto [got, found] = unread();
      for (size_t i : found) {
        consumed[i] = true;
        json headers = json::object();
        for (const auto& [h, value] : got[i].headers) {
          if (HeaderMatters(h)) headers[h] = value;
        }
        exchanges.push_back({{{"n", n},
                              {"step", name},
                              {"delivery",
                               {{"method", got[i].method},
                                {"path", got[i].path},
                                {"query", got[i].query},
                                {"headers", headers},
                                {"body", ParsedOrText(got[i].body)}}}},
                             true});
      }
      continue;
    }
    std::set<std::string> missing;
    json step = replay::Substitute(raw, vars, &missing);
    json request = {{"method", raw.value("method", "")}, {"path", raw.value("path", "")}};
    if (raw.contains("body")) request["body"] = raw["body"];
    if (raw.contains("raw_body")) request["raw_body"] = raw["raw_body"];
    if (!missing.empty()) {
      exchanges.push_back({{{"n", n},
                            {"step", name},
                            {"request", request},
                            {"skipped", absl::StrCat("needs ", absl::StrJoin(missing, ", "))}},
                           false});
      continue;
    }
    std::vector<std::string> headers = {"X-Auth-Email: " + step.value("as", default_as)};
    for (const json& h : step.value("headers", json::array())) headers.push_back(h.get<std::string>());
    HttpResponse r = Http(step.value("method", ""),
                          opts.root + step.value("base", scenario_base) + step.value("path", ""),
                          step.contains("raw_body") ? step.value("raw_body", "")
                          : step.contains("body")   ? step["body"].dump()
                                                    : "",
                          headers);
    json body = ParsedOrText(r.body);
    json response_headers = json::object();
    for (const auto& [h, value] : r.headers) {
      if (h == "content-type") response_headers[h] = value;
    }
    json exchange = {{"n", n},     {"step", name},    {"request", request},
                     {"status", r.status}, {"headers", response_headers}, {"body", body}};
    if (r.status == 0) exchange["error"] = r.error;
    json unsaved = json::array();
    json save = step.value("save", json::object());
    for (auto it = save.begin(); it != save.end(); ++it) {
      std::optional<json> v = replay::Lookup(body, it.value().get<std::string>());
      if (!v.has_value()) {
        unsaved.push_back(it.key());
        continue;
      }
      std::string key = it.key();
      for (int k = 2; saved.contains(key) && saved[key] != *v; ++k) key = absl::StrCat(it.key(), "~", k);
      saved[key] = *v;
      vars[it.key()] = *v;
    }
    if (!unsaved.empty()) exchange["unsaved"] = unsaved;
    exchanges.push_back({exchange, raw.value("unordered", false)});
    if (opts.after_step) opts.after_step(&vars);
  }

  json out = json::array();
  std::vector<std::pair<std::string, std::string>> values = StringValues(saved);
  std::vector<json> group;  // one delivery step's exchanges, sorted on output
  auto flush = [&]() {
    std::sort(group.begin(), group.end(),
              [](const json& a, const json& b) { return a.dump() < b.dump(); });
    for (json& g : group) out.push_back(std::move(g));
    group.clear();
  };
  for (Pending& p : exchanges) {
    json e = p.exchange;
    if (e.contains("delivery")) {
      e["delivery"] = NormalizeValue(e["delivery"], "", values, /*unordered=*/false);
      if (!group.empty() && group.back()["n"] != e["n"]) flush();
      group.push_back(std::move(e));
      continue;
    }
    flush();
    if (e.contains("body")) e["body"] = NormalizeValue(e["body"], "", values, p.unordered);
    out.push_back(std::move(e));
  }
  flush();
  return {{"exchanges", out}};
}

std::vector<Difference> Compare(const json& upstream, const json& sluice,
                                const std::set<int>& unordered_steps) {
  std::vector<Difference> diffs;
  auto us = ByStep(upstream);
  auto ss = ByStep(sluice);
  std::set<int> steps;
  for (const auto& [n, v] : us) steps.insert(n);
  for (const auto& [n, v] : ss) steps.insert(n);
  for (int n : steps) {
    const auto& u = us[n];
    const auto& s = ss[n];
    for (size_t i = 0; i < std::max(u.size(), s.size()); ++i) {
      Difference proto;
      if (i >= s.size() || i >= u.size()) {  // an exchange only one side has
        const bool missing = i >= s.size();
        const auto& [index, exchange] = missing ? u[i] : s[i];
        proto.exchange = index;
        proto.step = exchange->value("step", "");
        proto.at = "exchange";
        proto.kind = missing ? "missing" : "extra";
        (missing ? proto.upstream : proto.sluice) = exchange->dump();
        diffs.push_back(proto);
        continue;
      }
      const json& ue = *u[i].second;
      const json& se = *s[i].second;
      proto.exchange = u[i].first;
      proto.step = ue.value("step", "");
      if (ue.contains("delivery") || se.contains("delivery")) {
        Walk(ue.value("delivery", json()), se.value("delivery", json()), "delivery", proto, &diffs);
        continue;
      }
      if (ue.contains("skipped") || se.contains("skipped")) {
        Walk(ue.value("skipped", json()), se.value("skipped", json()), "skipped", proto, &diffs);
        continue;
      }
      Walk(ue.value("status", json()), se.value("status", json()), "status", proto, &diffs);
      Walk(ue.value("headers", json::object()), se.value("headers", json::object()), "headers",
           proto, &diffs);
      Walk(ue.value("body", json()), se.value("body", json()), "body", proto, &diffs,
           unordered_steps.count(ue.value("n", 0)) > 0);
    }
  }
  return diffs;
}

Verdict Judge(int exchanges, const std::vector<Difference>& diffs,
              const std::vector<Allowance>& allowed) {
  Verdict v;
  v.exchanges = exchanges;
  std::vector<int> uses(allowed.size(), 0);
  std::set<int> touched;
  for (const Difference& d : diffs) {
    touched.insert(d.exchange);
    bool ok = false;
    for (size_t i = 0; i < allowed.size() && !ok; ++i) {
      const Allowance& a = allowed[i];
      if ((a.kind.empty() || a.kind == d.kind) && RE2::PartialMatch(d.step, a.step) &&
          RE2::FullMatch(d.at, a.at)) {
        ++uses[i];
        ok = true;
      }
    }
    if (ok) {
      ++v.allowed;
      continue;
    }
    auto clip = [](const std::string& s) { return s.size() > 300 ? s.substr(0, 297) + "..." : s; };
    v.unexplained.push_back(absl::StrCat("#", d.exchange, " [", d.step, "] ", d.at, " (", d.kind,
                                         "): upstream ", d.upstream.empty() ? "-" : clip(d.upstream),
                                         " | sluice ", d.sluice.empty() ? "-" : clip(d.sluice)));
  }
  v.identical = exchanges - static_cast<int>(std::count_if(
                                touched.begin(), touched.end(), [&](int e) { return e < exchanges; }));
  for (size_t i = 0; i < allowed.size(); ++i) {
    std::string line = absl::StrCat(uses[i], " × [", allowed[i].step, "] ", allowed[i].at, ": ",
                                    allowed[i].reason, " (", allowed[i].guide, ")");
    (uses[i] > 0 ? v.allowance_use : v.unused).push_back(line);
  }
  return v;
}

Verdict ReplayTranscript(const std::string& scenario, const std::string& recorded,
                         const RecordOptions& opts, const std::vector<Allowance>& allowed) {
  auto load = [](const std::string& runfile) {
    std::ifstream in(Runfile(runfile));
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  };
  json steps = load(scenario);
  json upstream = load(recorded);
  Verdict v;
  if (!steps.is_object() || !upstream.is_object() || !upstream.contains("exchanges")) {
    v.unexplained.push_back(absl::StrCat("unreadable: ", scenario, " or ", recorded));
    return v;
  }
  json sluice = Record(steps, opts);
  if (const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
    std::string base = recorded.substr(recorded.rfind('/') + 1);
    std::ofstream(absl::StrCat(dir, "/sluice.", base)) << sluice.dump(1) << "\n";
  }
  std::set<int> unordered;
  int n = 0;
  for (const json& step : steps.value("steps", json::array())) {
    ++n;
    if (step.value("unordered", false)) unordered.insert(n);
  }
  v = Judge(static_cast<int>(upstream["exchanges"].size()), Compare(upstream, sluice, unordered),
            allowed);
  int deliveries = 0;
  for (const json& e : upstream["exchanges"]) deliveries += e.contains("delivery");
  std::printf("\n%s, started as: %s\n", upstream.value("upstream", "?").c_str(),
              upstream.value("started", "?").c_str());
  for (const std::string& line : v.allowance_use) std::printf("  allowed %s\n", line.c_str());
  for (const std::string& line : v.unused) std::printf("  UNUSED allowance %s\n", line.c_str());
  for (const std::string& line : v.unexplained) std::printf("  UNEXPLAINED %s\n", line.c_str());
  std::printf("%d exchanges (%d deliveries): %d identical, %d allowed differences, %zu unexplained\n",
              v.exchanges, deliveries, v.identical, v.allowed, v.unexplained.size());
  std::fflush(stdout);
  return v;
}

}  // namespace sluice::integration::transcript
