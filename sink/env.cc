#include "sink/env.h"

#include <unistd.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

extern char** environ;

namespace sluice::sink {

Env Env::FromProcess() {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    absl::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq == absl::string_view::npos) continue;
    vars.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return Env(std::move(vars));
}

std::optional<std::string> Env::Get(absl::string_view name) const {
  auto it = vars_.find(std::string(name));
  if (it == vars_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::string Env::GetOr(absl::string_view name, absl::string_view def) const {
  auto v = Get(name);
  return v ? *v : std::string(def);
}

absl::StatusOr<std::string> Env::Require(absl::string_view name) const {
  auto v = Get(name);
  if (!v) return absl::InvalidArgumentError(absl::StrCat(name, " is required"));
  return *v;
}

absl::StatusOr<int64_t> Env::GetInt(absl::string_view name, int64_t def) const {
  auto v = Get(name);
  if (!v) return def;
  int64_t out;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(*v), &out)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be an integer, got \"", *v, "\""));
  }
  return out;
}

absl::StatusOr<double> Env::GetDouble(absl::string_view name, double def) const {
  auto v = Get(name);
  if (!v) return def;
  double out;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(*v), &out)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a number, got \"", *v, "\""));
  }
  return out;
}

absl::StatusOr<bool> Env::GetBool(absl::string_view name, bool def) const {
  auto v = Get(name);
  if (!v) return def;
  std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*v));
  if (s == "true") return true;
  if (s == "false") return false;
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be true or false, got \"", *v, "\""));
}

absl::StatusOr<int> Env::GetPositiveInt(absl::string_view name, int def) const {
  auto v = GetInt(name, def);
  if (!v.ok()) return v.status();
  if (*v <= 0 || *v > INT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a positive integer"));
  }
  return static_cast<int>(*v);
}

absl::StatusOr<int> Env::GetPort(absl::string_view name, int def) const {
  auto v = GetInt(name, def);
  if (!v.ok()) return v.status();
  if (*v < 0 || *v > 65535) return absl::InvalidArgumentError(absl::StrCat(name, " out of range"));
  return static_cast<int>(*v);
}

absl::StatusOr<absl::Duration> Env::GetDuration(absl::string_view name,
                                               absl::Duration def) const {
  auto v = Get(name);
  if (!v) return def;
  int64_t ms;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(*v), &ms) || ms < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a number of milliseconds >= 0, got \"", *v, "\""));
  }
  return absl::Milliseconds(ms);
}

std::vector<std::string> Env::GetList(absl::string_view name) const {
  std::vector<std::string> out;
  for (absl::string_view e : absl::StrSplit(GetOr(name, ""), ',', absl::SkipWhitespace())) {
    out.emplace_back(absl::StripAsciiWhitespace(e));
  }
  return out;
}

absl::StatusOr<int> Env::RequirePort(absl::string_view name) const {
  auto v = Require(name);
  if (!v.ok()) return v.status();
  int port;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(*v), &port) || port < 1 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a port in 1-65535, got \"", *v, "\""));
  }
  return port;
}

bool IsHostPort(absl::string_view s) {
  size_t colon = s.rfind(':');
  int port = 0;
  return colon != absl::string_view::npos && colon != 0 &&
         s.substr(0, colon).find_first_of("/@?,") == absl::string_view::npos &&
         absl::SimpleAtoi(s.substr(colon + 1), &port) && port > 0 && port <= 65535;
}

absl::StatusOr<std::vector<std::string>> Env::GetHostPorts(absl::string_view name,
                                                           absl::string_view example) const {
  auto text = Require(name);
  if (!text.ok()) return text.status();
  std::vector<std::string> out;
  for (absl::string_view entry : absl::StrSplit(*text, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    if (!IsHostPort(entry)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": \"", entry, "\" is not host:port (e.g. ", example, ")"));
    }
    out.emplace_back(entry);
  }
  if (out.empty()) return absl::InvalidArgumentError(absl::StrCat(name, " is empty"));
  return out;
}

absl::StatusOr<std::string> Env::GetEnum(absl::string_view name, absl::string_view def,
                                         std::initializer_list<absl::string_view> allowed) const {
  std::string v = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(GetOr(name, def)));
  for (absl::string_view a : allowed) {
    if (v == a) return v;
  }
  std::vector<absl::string_view> names(allowed);
  std::string list = absl::StrJoin(names.begin(), names.end() - 1, ", ");
  return absl::InvalidArgumentError(absl::StrCat(name, " must be ",
                                                 names.size() > 1 ? absl::StrCat(list, " or ") : "",
                                                 names.back(), ", got \"", v, "\""));
}

std::map<std::string, std::string> Env::WithPrefix(absl::string_view prefix) const {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : vars_) {
    if (absl::StartsWith(k, prefix) && k.size() > prefix.size()) {
      out.emplace(k.substr(prefix.size()), v);
    }
  }
  return out;
}

bool IsSecretName(absl::string_view name) {
  std::string n = absl::AsciiStrToUpper(name);
  for (const char* s : {"PASSWORD", "SECRET", "TOKEN", "SASL_JAAS", "_KEY_PASSWORD",
                        "SSL_KEY", "API_KEY", "CREDENTIAL"}) {
    if (absl::StrContains(n, s)) return true;
  }
  return false;
}

}  // namespace sluice::sink
