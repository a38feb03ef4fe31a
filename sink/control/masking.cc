#include "sink/control/masking.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {
namespace {

bool IsSchemeChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

// Masks the userinfo of every "scheme://userinfo@host" in `v`. The userinfo
// runs to the last '@' before the next whitespace or the next URL, so a
// password holding an unencoded '/' or '@' is masked whole. An '@' after a
// path without a ':' before it (".../users/@me", "?email=a@b") is not userinfo.
std::string MaskUrlUserinfo(absl::string_view v) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t sep = v.find("://", pos);
    if (sep == absl::string_view::npos) break;
    size_t start = sep + 3;
    // The segment of this URL: up to whitespace or the scheme of the next one.
    size_t end = v.size();
    for (size_t i = start; i < v.size(); ++i) {
      if (absl::ascii_isspace(static_cast<unsigned char>(v[i]))) {
        end = i;
        break;
      }
    }
    if (size_t next = v.find("://", start); next != absl::string_view::npos && next < end) {
      size_t scheme = next;
      while (scheme > start && IsSchemeChar(v[scheme - 1])) --scheme;
      end = scheme;
    }
    absl::string_view segment = v.substr(start, end - start);
    size_t at = segment.rfind('@');
    absl::StrAppend(&out, v.substr(pos, start - pos));
    if (at != absl::string_view::npos) {
      absl::string_view userinfo = segment.substr(0, at);
      size_t colon = userinfo.find(':');
      bool is_userinfo = colon != absl::string_view::npos || userinfo.find('/') == absl::string_view::npos;
      if (is_userinfo && !userinfo.empty()) {
        if (colon != absl::string_view::npos) {
          absl::StrAppend(&out, userinfo.substr(0, colon + 1), kMasked);
        } else {
          out.append(kMasked);
        }
        absl::StrAppend(&out, segment.substr(at));
        pos = end;
        continue;
      }
    }
    absl::StrAppend(&out, segment);
    pos = end;
  }
  absl::StrAppend(&out, v.substr(pos));
  return out;
}

// True for parameter names whose value is a credential.
bool IsSecretKey(absl::string_view key) {
  std::string upper = absl::AsciiStrToUpper(key);
  for (char& c : upper) {
    if (c == '-' || c == '.') c = '_';
  }
  if (IsSecretName(upper)) return true;
  for (const char* k : {"PWD", "PASSWD", "PASS", "APIKEY", "AUTH", "AUTHORIZATION", "COOKIE",
                        "SET_COOKIE", "SIGNATURE", "SIG", "PRIVATE_KEY", "ACCESS_KEY",
                        "ACCOUNT_KEY"}) {
    if (upper == k || absl::EndsWith(upper, absl::StrCat("_", k))) return true;
  }
  return false;
}

// Masks the value of every `key=value` whose key is secret, where the key
// starts the string or follows '?', '&', ';' or whitespace (URL queries,
// JDBC parameters, libpq DSNs). A value ends at '&', ';', '#' or
// whitespace; a value opened with a quote ends at the matching quote.
std::string MaskSecretParams(absl::string_view v) {
  std::string out;
  size_t i = 0;
  while (i < v.size()) {
    bool boundary = i == 0 || v[i - 1] == '?' || v[i - 1] == '&' || v[i - 1] == ';' ||
                    absl::ascii_isspace(static_cast<unsigned char>(v[i - 1]));
    size_t eq = boundary ? v.find('=', i) : absl::string_view::npos;
    if (eq != absl::string_view::npos) {
      absl::string_view key = v.substr(i, eq - i);
      bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
        return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
               c == '.';
      });
      if (plain && IsSecretKey(key)) {
        size_t end = eq + 1;
        if (end < v.size() && (v[end] == '\'' || v[end] == '"')) {
          size_t close = v.find(v[end], end + 1);
          end = close == absl::string_view::npos ? v.size() : close + 1;
        } else {
          while (end < v.size() && v[end] != '&' && v[end] != ';' && v[end] != '#' &&
                 !absl::ascii_isspace(static_cast<unsigned char>(v[end]))) {
            ++end;
          }
        }
        absl::StrAppend(&out, v.substr(i, eq + 1 - i), kMasked);
        i = end;
        continue;
      }
    }
    out.push_back(v[i]);
    ++i;
  }
  return out;
}

// "Bearer abc" -> "Bearer ****"; "abc" -> "****".
std::string MaskCredential(absl::string_view value) {
  absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(value);
  std::string lead(value.substr(0, value.size() - trimmed.size()));
  size_t space = trimmed.find(' ');
  if (space != absl::string_view::npos) {
    return absl::StrCat(lead, trimmed.substr(0, space + 1), kMasked);
  }
  return absl::StrCat(lead, kMasked);
}

bool HasAuthScheme(absl::string_view value) {
  absl::string_view v = absl::StripLeadingAsciiWhitespace(value);
  for (const char* scheme : {"bearer ", "basic ", "token ", "digest ", "negotiate ", "apikey "}) {
    if (absl::StartsWithIgnoreCase(v, scheme)) return true;
  }
  return false;
}

// A "k:v,k2:v2" list with the credentials in it masked.
std::string MaskHeaderList(absl::string_view v) {
  std::vector<std::string> items;
  for (absl::string_view item : absl::StrSplit(v, ',')) {
    size_t colon = item.find(':');
    if (colon == absl::string_view::npos) {
      items.emplace_back(item);
      continue;
    }
    absl::string_view key = item.substr(0, colon);
    absl::string_view value = item.substr(colon + 1);
    std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(key));
    std::string masked;
    if (name == "authorization" || name == "proxy-authorization" || HasAuthScheme(value)) {
      masked = MaskCredential(value);
    } else if (IsSecretKey(name)) {
      absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(value);
      masked = absl::StrCat(value.substr(0, value.size() - trimmed.size()), kMasked);
    } else {
      masked = std::string(value);
    }
    items.push_back(absl::StrCat(key, ":", masked));
  }
  return absl::StrJoin(items, ",");
}

// A string inside a JSON template: credentials after an auth scheme, URL
// userinfo and key=value secrets masked.
std::string MaskTemplateString(absl::string_view v) {
  if (HasAuthScheme(v)) return MaskCredential(v);
  return MaskSecretParams(MaskUrlUserinfo(v));
}

// Masks, at any depth of a JSON template, the members whose key is secret
// (IsSecretKey: the whole value, also an object or a number), keeps only the
// scheme of Authorization/Proxy-Authorization values whatever their text and
// of any value carrying an auth scheme, and masks the other strings as
// MaskTemplateString.
void MaskJsonNode(nlohmann::ordered_json* node) {
  if (node->is_string()) {
    *node = MaskTemplateString(node->get_ref<const std::string&>());
    return;
  }
  if (node->is_array()) {
    for (auto& item : *node) MaskJsonNode(&item);
    return;
  }
  if (!node->is_object()) return;
  for (auto it = node->begin(); it != node->end(); ++it) {
    std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(it.key()));
    bool authorization = name == "authorization" || name == "proxy-authorization";
    if (authorization && it.value().is_string()) {
      it.value() = MaskCredential(it.value().get_ref<const std::string&>());
    } else if (authorization || IsSecretKey(name)) {
      it.value() = kMasked;
    } else {
      MaskJsonNode(&it.value());
    }
  }
}

// `v` of a *_TEMPLATE variable with its secrets masked when it is a JSON
// object or array (SINK_HTTPV2_HEADERS_TEMPLATE, _QUERY_TEMPLATE,
// _JSON_BODY_TEMPLATE, SINK_HTTP_JSON_BODY_TEMPLATE; review R3-L1),
// printed compact with members in their order. Text that starts like JSON but
// does not parse is masked whole (it cannot be read member by member);
// anything else (a Redis key pattern) is nullopt, for the other rules.
std::optional<std::string> MaskJsonTemplate(absl::string_view v) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(v);
  if (trimmed.empty() || (trimmed.front() != '{' && trimmed.front() != '[')) return std::nullopt;
  auto json = nlohmann::ordered_json::parse(trimmed, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::string(kMasked);
  MaskJsonNode(&json);
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::string MaskSecrets(absl::string_view name, absl::string_view value) {
  if (IsSecretName(name)) return kMasked;
  if (absl::EndsWith(name, "_TEMPLATE")) {
    if (std::optional<std::string> masked = MaskJsonTemplate(value)) return *std::move(masked);
  }
  std::string v = MaskUrlUserinfo(value);
  v = MaskSecretParams(v);
  if (absl::EndsWith(name, "_HEADERS") || absl::EndsWith(name, "_METADATA")) {
    v = MaskHeaderList(v);
  }
  return v;
}

std::map<std::string, std::string> MaskedConfig(const Env& env) {
  static constexpr const char* kPrefixes[] = {"SOURCE_", "SINK_",   "INPUT_", "SCHEMA_",
                                              "FILTER_", "ERROR_",  "RETRY_", "DLQ_",
                                              "METRIC_", "APPLICATION_", "KAFKA_"};
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env.All()) {
    bool ours = false;
    for (const char* p : kPrefixes) ours = ours || absl::StartsWith(k, p);
    if (!ours) continue;
    out[k] = MaskSecrets(k, v);
  }
  return out;
}

}  // namespace sluice::sink
