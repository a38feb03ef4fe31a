#include "integration/replay.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice::integration::replay {

using nlohmann::json;

namespace {

// `s` with `{{name}}` replaced as Substitute describes.
json SubstituteString(const std::string& s, const json& vars, std::set<std::string>* missing) {
  if (absl::StartsWith(s, "{{") && absl::EndsWith(s, "}}") &&
      s.find("{{", 2) == std::string::npos) {
    std::string name = s.substr(2, s.size() - 4);
    if (vars.contains(name)) return vars[name];
    missing->insert(name);
    return s;
  }
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = s.find("{{", pos);
    size_t close = open == std::string::npos ? open : s.find("}}", open + 2);
    if (close == std::string::npos) {
      out += s.substr(pos);
      return out;
    }
    out += s.substr(pos, open - pos);
    std::string name = s.substr(open + 2, close - open - 2);
    if (!vars.contains(name)) {
      missing->insert(name);
      out += s.substr(open, close + 2 - open);
    } else if (vars[name].is_string()) {
      out += vars[name].get<std::string>();
    } else {
      out += vars[name].dump();
    }
    pos = close + 2;
  }
}

// A printable, bounded form of `v` for messages.
std::string Show(const json& v) {
  std::string s = v.dump();
  return s.size() > 160 ? s.substr(0, 157) + "..." : s;
}

// One step of a path: an object key plus an optional array selector.
struct Step {
  std::string key;
  enum { kNone, kIndex, kMatch } selector = kNone;
  size_t index = 0;
  std::string match_key, match_value;
};

// Splits `path` into steps; false when malformed.
bool ParsePath(absl::string_view path, std::vector<Step>* steps) {
  size_t i = 0;
  while (i < path.size()) {
    Step step;
    while (i < path.size() && path[i] != '.' && path[i] != '[') step.key += path[i++];
    if (i < path.size() && path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == absl::string_view::npos) return false;
      std::string inner(path.substr(i + 1, close - i - 1));
      size_t eq = inner.find('=');
      if (eq == std::string::npos) {
        if (!absl::SimpleAtoi(inner, &step.index)) return false;
        step.selector = Step::kIndex;
      } else {
        step.selector = Step::kMatch;
        step.match_key = inner.substr(0, eq);
        step.match_value = inner.substr(eq + 1);
      }
      i = close + 1;
    }
    if (i < path.size()) {
      if (path[i] != '.') return false;
      ++i;
    }
    steps->push_back(std::move(step));
  }
  return true;
}

}  // namespace

json Substitute(const json& v, const json& vars, std::set<std::string>* missing) {
  if (v.is_string()) return SubstituteString(v.get<std::string>(), vars, missing);
  if (v.is_object()) {
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it)
      out[it.key()] = Substitute(it.value(), vars, missing);
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& e : v) out.push_back(Substitute(e, vars, missing));
    return out;
  }
  return v;
}

std::optional<json> Lookup(const json& doc, absl::string_view path) {
  std::vector<Step> steps;
  if (!ParsePath(path, &steps)) return std::nullopt;
  const json* cur = &doc;
  for (const auto& step : steps) {
    if (!step.key.empty()) {
      if (!cur->is_object() || !cur->contains(step.key)) return std::nullopt;
      cur = &(*cur)[step.key];
    }
    if (step.selector == Step::kIndex) {
      if (!cur->is_array() || step.index >= cur->size()) return std::nullopt;
      cur = &(*cur)[step.index];
    } else if (step.selector == Step::kMatch) {
      if (!cur->is_array()) return std::nullopt;
      const json* found = nullptr;
      for (const auto& e : *cur) {
        if (!e.is_object() || !e.contains(step.match_key)) continue;
        const json& v = e[step.match_key];
        if ((v.is_string() && v.get<std::string>() == step.match_value) ||
            (!v.is_string() && v.dump() == step.match_value)) {
          found = &e;
          break;
        }
      }
      if (found == nullptr) return std::nullopt;
      cur = found;
    }
  }
  return *cur;
}

std::string Check(const json& doc, const json& check, absl::string_view upstream) {
  std::string at = check.value("at", "");
  std::optional<json> got = Lookup(doc, at);
  std::string where = at.empty() ? "the body" : at;
  if (check.contains("exists")) {
    bool want = check["exists"].get<bool>();
    if (got.has_value() == want) return "";
    return want ? absl::StrCat(where, " is missing")
                : absl::StrCat(where, " is present: ", Show(*got));
  }
  if (!got.has_value()) return absl::StrCat(where, " is missing");
  if (check.contains("eq")) {
    if (*got == check["eq"]) return "";
    return absl::StrCat(where, " is ", Show(*got), ", ", upstream, " gives ", Show(check["eq"]));
  }
  if (check.contains("contains")) {
    const json& want = check["contains"];
    if (got->is_array()) {
      for (const auto& e : *got) {
        if (e == want) return "";
      }
    } else if (got->is_string() && want.is_string() &&
               absl::StrContains(got->get<std::string>(), want.get<std::string>())) {
      return "";
    }
    return absl::StrCat(where, " is ", Show(*got), ", without ", Show(want));
  }
  if (check.contains("nonempty")) {
    bool empty = got->is_null() ||
                 ((got->is_array() || got->is_object() || got->is_string()) && got->empty());
    if (!empty) return "";
    return absl::StrCat(where, " is empty: ", Show(*got));
  }
  return absl::StrCat("check on ", where, " has no eq/contains/exists/nonempty");
}

std::string Expect(const json& expect, long status, const json& body,
                   absl::string_view upstream) {
  long want = expect.value("status", 200L);
  if (status != want) {
    std::string why = absl::StrCat("HTTP ", status, " (", upstream, ": ", want, ")");
    if (body.is_object() && body.contains("message")) {
      absl::StrAppend(&why, ": ", body.value("code", -1), " ", body.value("message", ""));
    } else if (!body.is_null()) {
      absl::StrAppend(&why, ": ", Show(body));
    }
    return why;
  }
  if (expect.contains("code") && (!body.is_object() || body.value("code", -1) != expect["code"])) {
    return absl::StrCat("code ", body.is_object() ? body.value("code", -1) : -1,
                        " (", upstream, ": ", expect["code"].dump(), ")");
  }
  if (expect.contains("message_has")) {
    std::string message = body.is_object() ? body.value("message", "") : "";
    if (!absl::StrContains(absl::AsciiStrToLower(message),
                           absl::AsciiStrToLower(expect["message_has"].get<std::string>()))) {
      return absl::StrCat("message \"", message, "\" does not name ", expect["message_has"].dump());
    }
  }
  for (const auto& check : expect.value("checks", json::array())) {
    std::string why = Check(body, check, upstream);
    if (!why.empty()) return why;
  }
  return "";
}

std::string MatchesRoute(absl::string_view route, absl::string_view method,
                         absl::string_view path) {
  std::pair<std::string, std::string> parts = absl::StrSplit(route, absl::MaxSplits(' ', 1));
  if (parts.first != method)
    return absl::StrCat("method ", method, " is not the route's ", parts.first);
  size_t version = 0;  // length of the route's version prefix
  for (absl::string_view v : {"/v1beta1/", "/v1/"}) {
    if (absl::StartsWith(parts.second, v)) version = v.size();
  }
  if (version == 0) return absl::StrCat("route ", route, " is not under /v1beta1 or /v1");
  std::vector<std::string> want = absl::StrSplit(parts.second.substr(version), '/');
  std::string bare(path.substr(0, path.find('?')));
  if (!absl::StartsWith(bare, "/")) return absl::StrCat("path ", path, " does not start with /");
  std::vector<std::string> got = absl::StrSplit(bare.substr(1), '/');
  if (got.size() != want.size()) return absl::StrCat("path ", bare, " does not fit ", route);
  for (size_t i = 0; i < want.size(); ++i) {
    bool param = absl::StartsWith(want[i], "{") && absl::EndsWith(want[i], "}");
    if (param ? got[i].empty() : got[i] != want[i]) {
      return absl::StrCat("path ", bare, " does not fit ", route, " at ", want[i]);
    }
  }
  return "";
}

}  // namespace sluice::integration::replay
