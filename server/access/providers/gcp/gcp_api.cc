#include "server/access/providers/gcp/gcp_api.h"

#include <algorithm>
#include <random>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/outbound.h"

namespace sluice::access::gcp {
namespace {

std::string Field(const google::protobuf::Struct& s, const std::string& key) {
  auto it = s.fields().find(key);
  if (it == s.fields().end()) return "";
  const auto& v = it->second;
  if (v.has_string_value()) return v.string_value();
  if (v.kind_case() == google::protobuf::Value::kNumberValue) {
    return std::to_string(static_cast<long long>(v.number_value()));
  }
  return "";
}

// Google's error status word ("PERMISSION_DENIED") when the body has one of
// safe characters; never the free-text message.
std::string GoogleStatusWord(const std::string& body) {
  Json doc = Json::parse(body, nullptr, false);
  if (!doc.is_object() || !doc.contains("error") || !doc["error"].is_object()) return "";
  const Json& e = doc["error"];
  if (!e.contains("status") || !e["status"].is_string()) return "";
  std::string s = e["status"].get<std::string>();
  if (s.size() > 40) return "";
  for (char c : s) {
    if (!(absl::ascii_isupper(static_cast<unsigned char>(c)) || c == '_')) return "";
  }
  return s;
}

absl::StatusCode CodeFor(long status) {
  switch (status) {
    case 400: return absl::StatusCode::kInvalidArgument;
    case 401: return absl::StatusCode::kUnauthenticated;
    case 403: return absl::StatusCode::kPermissionDenied;
    case 404: return absl::StatusCode::kNotFound;
    case 409:
    case 412: return absl::StatusCode::kAborted;
    case 429: return absl::StatusCode::kResourceExhausted;
    default: break;
  }
  if (status >= 500) return absl::StatusCode::kUnavailable;
  return absl::StatusCode::kFailedPrecondition;
}

bool Retryable(absl::StatusCode code) {
  return code == absl::StatusCode::kUnavailable || code == absl::StatusCode::kResourceExhausted ||
         code == absl::StatusCode::kDeadlineExceeded;
}

void Backoff(int attempt) {
  static thread_local std::mt19937 rng(std::random_device{}());
  int base = 100 << std::min(attempt, 5);
  absl::SleepFor(absl::Milliseconds(base + std::uniform_int_distribution<int>(0, base)(rng)));
}

}  // namespace

std::string Credentials::ResourceId() const {
  return std::string(resource_name.substr(resource_name.find('/') + 1));
}

bool Credentials::IsProject() const { return absl::StartsWith(resource_name, "projects/"); }

std::string Credentials::Url(Api api) const {
  switch (api) {
    case Api::kBigQuery:
      return absl::StrCat(api_base_url.empty() ? "https://bigquery.googleapis.com" : api_base_url,
                          "/bigquery/v2");
    case Api::kStorage:
      return absl::StrCat(api_base_url.empty() ? "https://storage.googleapis.com" : api_base_url,
                          "/storage/v1");
    case Api::kResourceManager:
      return absl::StrCat(
          api_base_url.empty() ? "https://cloudresourcemanager.googleapis.com" : api_base_url,
          "/v1");
    case Api::kIam:
      return absl::StrCat(api_base_url.empty() ? "https://iam.googleapis.com" : api_base_url,
                          "/v1");
    case Api::kLogging:
      return absl::StrCat(api_base_url.empty() ? "https://logging.googleapis.com" : api_base_url,
                          "/v2");
  }
  return "";
}

absl::StatusOr<Credentials> ParseCredentials(const google::protobuf::Struct& credentials,
                                             bool projects_only) {
  Credentials c;
  std::string encoded = Field(credentials, "service_account_key");
  if (encoded.empty()) {
    return absl::InvalidArgumentError("credentials.service_account_key: required");
  }
  std::string json;
  // Guardian stores the key as standard base64 (validate:"base64").
  std::string trimmed;
  for (char ch : encoded) {
    if (!absl::ascii_isspace(static_cast<unsigned char>(ch))) trimmed += ch;
  }
  if (!absl::Base64Unescape(trimmed, &json)) {
    return absl::InvalidArgumentError(
        "credentials.service_account_key: must be the base64 encoding of a service account key "
        "JSON");
  }
  auto key = ParseServiceAccountKey(json);
  if (!key.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("credentials.service_account_key: ", key.status().message()));
  }
  c.key = *std::move(key);
  c.resource_name = Field(credentials, "resource_name");
  if (c.resource_name.empty()) return absl::InvalidArgumentError("credentials.resource_name: required");
  bool project = absl::StartsWith(c.resource_name, "projects/");
  bool org = absl::StartsWith(c.resource_name, "organizations/");
  std::string id = c.resource_name.substr(c.resource_name.find('/') + 1);
  if ((!project && !org) || (org && projects_only) || id.empty() ||
      id.find_first_of("/?#%: ") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "credentials.resource_name: want ",
        projects_only ? "\"projects/<project id>\"" : "\"projects/<id>\" or \"organizations/<id>\"",
        ", got \"", c.resource_name.substr(0, 80), "\""));
  }
  std::string base = Field(credentials, "api_base_url");
  if (!base.empty()) {
    if (auto st = ValidateHttpUrl("credentials.api_base_url", base); !st.ok()) return st;
    c.api_base_url = std::string(absl::StripSuffix(base, "/"));
  }
  std::string timeout = Field(credentials, "request_timeout_ms");
  if (!timeout.empty()) {
    int ms = 0;
    if (!absl::SimpleAtoi(timeout, &ms) || ms < 1 || ms > 300000) {
      return absl::InvalidArgumentError(absl::StrCat(
          "credentials.request_timeout_ms: want milliseconds, 1 to 300000, got \"",
          timeout.substr(0, 20), "\""));
    }
    c.timeout = absl::Milliseconds(ms);
  }
  return c;
}

GoogleApi::GoogleApi(std::string type, std::shared_ptr<HttpClient> http)
    : type_(std::move(type)), http_(std::move(http)), auth_(http_.get()) {}

absl::Status GoogleApi::CheckKey(const Credentials& creds) {
  return auth_.AccessToken(creds.key, kCloudPlatformScope).status();
}

absl::StatusOr<Json> GoogleApi::Call(const Credentials& creds, const std::string& method,
                                     const std::string& url, const Json* body,
                                     const std::vector<std::string>& headers) {
  std::string where = absl::StrCat(method, " ", RedactUrl(url));
  HttpRequest req;
  req.method = method;
  req.url = url;
  req.headers = headers;
  req.headers.push_back("Accept: application/json");
  if (body != nullptr) {
    req.headers.push_back("Content-Type: application/json");
    req.body = body->dump();
  }
  req.timeout = creds.timeout;
  req.max_response_bytes = 16 * kDefaultMaxResponseBytes;
  absl::Status last;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    if (attempt > 0) Backoff(attempt);
    // A token or transport error; a 401 was already answered once with a
    // new token by GoogleAuth::Do.
    auto res = auth_.Do(creds.key, kCloudPlatformScope, req);
    if (!res.ok()) {
      last = res.status();
      if (Retryable(last.code())) continue;
      return last;
    }
    if (res->status >= 200 && res->status <= 299) {
      if (res->body.empty()) return Json::object();
      Json doc = Json::parse(res->body, nullptr, false);
      if (doc.is_discarded()) {
        return absl::FailedPreconditionError(absl::StrCat(where, ": answer is not JSON"));
      }
      return doc;
    }
    std::string word = GoogleStatusWord(res->body);
    last = absl::Status(CodeFor(res->status), absl::StrCat(where, ": HTTP ", res->status,
                                                           word.empty() ? "" : " ", word));
    if (!Retryable(last.code())) return last;
  }
  return last;
}

absl::Status GoogleApi::WithResourceLock(const std::string& key,
                                         const std::function<absl::Status()>& fn) {
  std::shared_ptr<absl::Mutex> m;
  {
    absl::MutexLock lock(&mu_);
    auto& slot = locks_[key];
    if (!slot) slot = std::make_shared<absl::Mutex>();
    m = slot;
  }
  absl::MutexLock lock(m.get());
  return fn();
}

absl::Status ReadModifyWrite(const std::function<absl::StatusOr<Json>()>& read,
                             const std::function<bool(Json*)>& mutate,
                             const std::function<absl::Status(const Json&)>& write) {
  absl::Status last;
  for (int attempt = 0; attempt < kMaxEtagAttempts; ++attempt) {
    if (attempt > 0) Backoff(std::min(attempt, 3));
    auto doc = read();
    if (!doc.ok()) return doc.status();
    if (!mutate(&*doc)) return absl::OkStatus();
    last = write(*doc);
    if (last.code() != absl::StatusCode::kAborted) return last;
  }
  return absl::AbortedError(absl::StrCat("etag conflict persisted after ", kMaxEtagAttempts,
                                         " read-modify-write attempts: ", last.message()));
}

std::string Member(const std::string& account_type, const std::string& account_id) {
  return absl::StrCat(account_type, ":", account_id);
}

bool IsPrincipalType(absl::string_view account_type) {
  return account_type == "user" || account_type == "group" || account_type == "serviceAccount" ||
         account_type == "domain";
}

std::string NormalizeAccountId(absl::string_view account_type, absl::string_view account_id) {
  if (!IsPrincipalType(account_type)) return std::string(account_id);
  return absl::AsciiStrToLower(account_id);
}

bool SameMember(absl::string_view a, absl::string_view b) {
  auto ca = a.find(':'), cb = b.find(':');
  if (ca == absl::string_view::npos || cb == absl::string_view::npos) return a == b;
  absl::string_view type = a.substr(0, ca);
  if (type != b.substr(0, cb)) return false;
  // Google compares these principals case-insensitively and answers them
  // in their canonical casing (review F-H2); other members compare exactly.
  if (!IsPrincipalType(type)) return a == b;
  return absl::EqualsIgnoreCase(a.substr(ca + 1), b.substr(cb + 1));
}

namespace {
bool Unconditional(const Json& b) { return !b.contains("condition") || b["condition"].is_null(); }
}  // namespace

bool AddBindings(Json* policy, const std::vector<std::string>& roles, const std::string& member) {
  if (!policy->contains("bindings") || !(*policy)["bindings"].is_array()) {
    (*policy)["bindings"] = Json::array();
  }
  Json& bindings = (*policy)["bindings"];
  bool changed = false;
  for (const auto& role : roles) {
    Json* binding = nullptr;
    for (auto& b : bindings) {
      if (b.value("role", "") == role && Unconditional(b)) binding = &b;
    }
    if (binding == nullptr) {
      bindings.push_back({{"role", role}, {"members", Json::array()}});
      binding = &bindings.back();
    }
    Json& members = (*binding)["members"];
    if (!members.is_array()) members = Json::array();
    if (std::none_of(members.begin(), members.end(),
                     [&](const Json& m) { return m.is_string() && SameMember(m, member); })) {
      members.push_back(member);
      changed = true;
    }
  }
  return changed;
}

bool RemoveBindings(Json* policy, const std::vector<std::string>& roles,
                    const std::string& member) {
  if (!policy->contains("bindings") || !(*policy)["bindings"].is_array()) return false;
  Json kept = Json::array();
  bool changed = false;
  for (auto& b : (*policy)["bindings"]) {
    std::string role = b.value("role", "");
    if (Unconditional(b) && std::find(roles.begin(), roles.end(), role) != roles.end() &&
        b.contains("members") && b["members"].is_array()) {
      Json members = Json::array();
      for (const auto& m : b["members"]) {
        if (m.is_string() && SameMember(m.get<std::string>(), member)) {
          changed = true;
        } else {
          members.push_back(m);
        }
      }
      b["members"] = members;
      if (members.empty()) continue;
    }
    kept.push_back(b);
  }
  (*policy)["bindings"] = kept;
  return changed;
}

std::vector<ProviderAccess> AccessFromPolicy(const Json& policy,
                                             const v1beta1::Resource& resource) {
  static const std::set<std::string> kTypes = {"user", "serviceAccount", "group", "domain"};
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> held;
  if (policy.contains("bindings") && policy["bindings"].is_array()) {
    for (const auto& b : policy["bindings"]) {
      if (!b.contains("members") || !b["members"].is_array()) continue;
      std::string role = b.value("role", "");
      for (const auto& m : b["members"]) {
        if (!m.is_string()) continue;
        std::string member = m.get<std::string>();
        auto colon = member.find(':');
        if (colon == std::string::npos) continue;
        std::string type = member.substr(0, colon);
        if (!kTypes.count(type)) continue;  // deleted:, allUsers, projectOwner:, ...
        // Keyed as Sluice stores Google accounts (NormalizeAccountId), so
        // that Google's casing matches the grants' ids (review F-H2).
        held[{type, NormalizeAccountId(type, member.substr(colon + 1))}].push_back(role);
      }
    }
  }
  std::vector<ProviderAccess> out;
  for (auto& [account, roles] : held) {
    out.push_back({resource.type(), resource.urn(), account.second, account.first,
                   Unique(std::move(roles))});
  }
  return out;
}

std::vector<std::string> BoundRoles(const Json& policy, const std::vector<std::string>& roles,
                                    const std::string& member) {
  std::vector<std::string> out;
  if (!policy.contains("bindings") || !policy["bindings"].is_array()) return out;
  for (const auto& b : policy["bindings"]) {
    std::string role = b.value("role", "");
    if (!Unconditional(b) || std::find(roles.begin(), roles.end(), role) == roles.end() ||
        !b.contains("members") || !b["members"].is_array()) {
      continue;
    }
    for (const auto& m : b["members"]) {
      if (m.is_string() && SameMember(m.get<std::string>(), member)) out.push_back(role);
    }
  }
  return Unique(std::move(out));
}

absl::Status StillBoundError(const std::string& member, const std::vector<std::string>& roles) {
  return absl::FailedPreconditionError(absl::StrCat(
      member, " is still bound to ", absl::StrJoin(roles, ", "),
      " after the revoke (read back case-insensitively); the access was not removed"));
}

absl::Status RevokeAndVerify(const std::function<absl::StatusOr<Json>()>& read,
                             const std::function<absl::Status(const Json&)>& write,
                             const std::vector<std::string>& roles, const std::string& member) {
  auto st = ReadModifyWrite(
      read, [&](Json* policy) { return RemoveBindings(policy, roles, member); }, write);
  if (!st.ok()) return st;
  // Never report a revoke Google did not carry out: read the policy again.
  auto after = read();
  if (!after.ok()) return after.status();
  auto left = BoundRoles(*after, roles, member);
  if (!left.empty()) return StillBoundError(member, left);
  return absl::OkStatus();
}

absl::Status Outward(const GoogleApi& api, const v1beta1::ProviderConfig& config,
                     const std::string& what, const absl::Status& st) {
  if (st.ok()) return st;
  std::string msg = absl::StrCat(api.type(), " provider ", config.urn(), ": ", what, ": ",
                                 st.message());
  if (Retryable(st.code())) return absl::Status(st.code(), msg);
  return absl::FailedPreconditionError(msg);
}

absl::Status ProbeError(const GoogleApi& api, const std::string& what, const absl::Status& st) {
  if (st.ok()) return st;
  switch (st.code()) {
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied:
      return absl::InvalidArgumentError(absl::StrCat(
          "credentials.service_account_key: the ", api.type(), " provider could not ", what,
          " with this key: ", st.message()));
    case absl::StatusCode::kNotFound:
      return absl::InvalidArgumentError(absl::StrCat("credentials.resource_name: the ",
                                                     api.type(), " provider could not ", what,
                                                     ": ", st.message()));
    default:
      return absl::Status(st.code(), absl::StrCat(api.type(), " provider: could not ", what, ": ",
                                                  st.message()));
  }
}

std::vector<std::string> Unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

absl::StatusOr<std::vector<Json>> ListAll(GoogleApi& api, const Credentials& creds,
                                          const std::string& url, const std::string& items_key,
                                          int max_pages) {
  std::vector<Json> out;
  std::string token;
  for (int page = 0; page < max_pages; ++page) {
    std::string u = url;
    if (!token.empty()) {
      absl::StrAppend(&u, url.find('?') == std::string::npos ? "?" : "&", "pageToken=",
                      UrlEscape(token));
    }
    auto doc = api.Call(creds, "GET", u);
    if (!doc.ok()) return doc.status();
    if (doc->contains(items_key) && (*doc)[items_key].is_array()) {
      for (auto& item : (*doc)[items_key]) out.push_back(std::move(item));
    }
    token = doc->contains("nextPageToken") && (*doc)["nextPageToken"].is_string()
                ? (*doc)["nextPageToken"].get<std::string>()
                : "";
    if (token.empty()) return out;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("GET ", RedactUrl(url), ": more than ", max_pages, " pages"));
}

absl::StatusOr<std::vector<std::string>> GrantableRoles(GoogleApi& api, const Credentials& creds,
                                                        const std::string& full_resource_name) {
  std::vector<std::string> out;
  std::string token;
  for (int page = 0; page < 1000; ++page) {
    Json body = {{"fullResourceName", full_resource_name}, {"pageSize", 1000}};
    if (!token.empty()) body["pageToken"] = token;
    auto doc = api.Call(creds, "POST", creds.Url(Api::kIam) + "/roles:queryGrantableRoles", &body);
    if (!doc.ok()) return doc.status();
    if (doc->contains("roles") && (*doc)["roles"].is_array()) {
      for (const auto& r : (*doc)["roles"]) out.push_back(r.value("name", ""));
    }
    token = doc->value("nextPageToken", "");
    if (token.empty()) break;
  }
  return Unique(std::move(out));
}

bool IsRoleName(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t slash = s.find('/', start);
    parts.push_back(s.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  for (const auto& p : parts) {
    if (p.empty()) return false;
  }
  if (parts.size() == 2) return parts[0] == "roles";
  if (parts.size() == 4) {
    return (parts[0] == "projects" || parts[0] == "organizations") && parts[2] == "roles";
  }
  return false;
}

absl::Status CheckAccount(const std::string& account_type, const std::string& account_id) {
  if (account_id.empty()) return absl::InvalidArgumentError("account_id: required");
  for (char c : account_id) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) || absl::ascii_iscntrl(c) ||
        c == ':' || c == ',') {
      return absl::InvalidArgumentError(absl::StrCat(
          "account_id: \"", account_id.substr(0, 80),
          "\" contains a character no Google account id has (space, ':' or ',')"));
    }
  }
  auto at = account_id.find('@');
  if (account_type == "domain") {
    if (at != std::string::npos || account_id.find('.') == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "account_id: a domain account is a domain name such as example.com, got \"",
          account_id.substr(0, 80), "\""));
    }
    return absl::OkStatus();
  }
  if (at == std::string::npos || at == 0 || at + 1 == account_id.size() ||
      account_id.find('@', at + 1) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "account_id: a ", account_type, " account is an email address, got \"",
        account_id.substr(0, 80),
        "\" (special members such as allUsers or allAuthenticatedUsers are never granted)"));
  }
  return absl::OkStatus();
}

absl::Status CheckAllowedType(const v1beta1::ProviderConfig& config,
                              const std::string& account_type) {
  for (const auto& t : config.allowed_account_types()) {
    if (t == account_type) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("account_type: \"", account_type,
                                                 "\" is not in the provider's allowed_account_types"));
}

absl::Status CheckRequest(const v1beta1::ProviderConfig& config, const AccessRequest& req,
                          const std::vector<std::string>& supported) {
  if (auto st = CheckAllowedType(config, req.account_type); !st.ok()) return st;
  if (std::find(supported.begin(), supported.end(), req.account_type) == supported.end()) {
    return absl::InvalidArgumentError(absl::StrCat("account_type: \"", req.account_type,
                                                   "\" is not supported by ", config.type()));
  }
  if (auto st = CheckAccount(req.account_type, req.account_id); !st.ok()) return st;
  if (req.permissions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("role \"", req.role, "\" has no permissions"));
  }
  return absl::OkStatus();
}

}  // namespace sluice::access::gcp
