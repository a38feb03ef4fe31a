#include "server/access/providers/rest/rest.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/outbound.h"

namespace sluice::access::rest {

absl::StatusOr<JsonResponse> DoJson(HttpClient& http, const JsonCall& call,
                                    const CallLimits& limits) {
  HttpRequest req;
  req.method = call.method;
  req.url = call.url;
  req.headers = call.headers;
  req.headers.push_back("Accept: application/json");
  if (call.body.has_value()) {
    req.headers.push_back("Content-Type: application/json");
    req.body = call.body->dump();
  }
  req.timeout = limits.timeout;
  req.max_response_bytes = limits.max_response_bytes;
  auto result = http.Do(req);
  if (!result.ok()) return result.status();
  JsonResponse out;
  out.status = result->status;
  if (!result->body.empty()) {
    out.body = nlohmann::json::parse(result->body, nullptr, /*allow_exceptions=*/false);
    if (out.body.is_discarded()) out.body = nullptr;
  }
  return out;
}

absl::Status VendorError(absl::string_view what, const JsonResponse& response) {
  HttpResult r{response.status, ""};
  absl::Status st = HttpStatusToError(what, r);
  if (response.status == 403) {
    return absl::FailedPreconditionError(
        absl::StrCat(st.message(), " (the provider's credentials lack the right to do this)"));
  }
  if (response.status == 401) {
    return absl::FailedPreconditionError(
        absl::StrCat(st.message(), " (the provider refused the credentials)"));
  }
  return st;
}

std::string CredentialString(const google::protobuf::Struct& credentials, absl::string_view key) {
  auto it = credentials.fields().find(std::string(key));
  if (it == credentials.fields().end()) return "";
  const auto& v = it->second;
  if (v.has_string_value()) return v.string_value();
  if (v.kind_case() == google::protobuf::Value::kNumberValue) {
    return std::to_string(static_cast<long long>(v.number_value()));
  }
  return "";
}

absl::StatusOr<std::string> RequiredCredential(const google::protobuf::Struct& credentials,
                                               absl::string_view key) {
  std::string v = CredentialString(credentials, key);
  if (v.empty()) return absl::InvalidArgumentError(absl::StrCat("credentials.", key, ": required"));
  return v;
}

absl::StatusOr<std::string> BaseUrl(const google::protobuf::Struct& credentials) {
  auto host = RequiredCredential(credentials, "host");
  if (!host.ok()) return host.status();
  if (auto st = ValidateHttpUrl("credentials.host", *host); !st.ok()) return st;
  std::string base = *host;
  while (absl::EndsWith(base, "/")) base.pop_back();
  return base;
}

long long Int(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number_integer()) return it->get<long long>();
  if (it->is_number()) return static_cast<long long>(it->get<double>());
  long long v = 0;
  if (it->is_string() && absl::SimpleAtoi(it->get<std::string>(), &v)) return v;
  return 0;
}

std::string Str(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return "";
}

const nlohmann::json& Field(const nlohmann::json& j, const char* key) {
  static const auto* null = new nlohmann::json();
  if (!j.is_object()) return *null;
  auto it = j.find(key);
  return it == j.end() ? *null : *it;
}

const nlohmann::json& Array(const nlohmann::json& j, const char* key) {
  static const auto* empty = new nlohmann::json(nlohmann::json::array());
  if (!j.is_object()) return *empty;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return *empty;
  return *it;
}

std::shared_ptr<SessionCache::Entry> SessionCache::EntryFor(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto& e = entries_[key];
  if (e == nullptr) e = std::make_shared<Entry>();
  return e;
}

absl::StatusOr<Session> SessionCache::Get(const std::string& key, const SignIn& sign_in) {
  auto entry = EntryFor(key);
  absl::MutexLock lock(&entry->mu);
  if (entry->session.has_value()) return *entry->session;
  auto session = sign_in();
  {
    absl::MutexLock count(&mu_);
    ++sign_ins_;
  }
  if (!session.ok()) return session.status();
  entry->session = *session;
  return *session;
}

void SessionCache::Invalidate(const std::string& key, const std::string& token) {
  auto entry = EntryFor(key);
  absl::MutexLock lock(&entry->mu);
  if (entry->session.has_value() && entry->session->token == token) entry->session.reset();
}

absl::StatusOr<JsonResponse> SessionCache::Call(
    const std::string& key, const SignIn& sign_in,
    const std::function<absl::StatusOr<JsonResponse>(const Session&)>& call) {
  for (int attempt = 0;; ++attempt) {
    auto session = Get(key, sign_in);
    if (!session.ok()) return session.status();
    auto r = call(*session);
    if (!r.ok() || r->status != 401 || attempt == 1) return r;
    // The vendor ended the session (expiry, restart, sign-out): sign in again.
    Invalidate(key, session->token);
  }
}

int SessionCache::sign_ins() const {
  absl::MutexLock lock(&mu_);
  return sign_ins_;
}

std::string SessionKey(const std::vector<std::string>& parts) {
  std::vector<std::string> shown(parts.begin(), parts.end());
  if (!shown.empty()) shown.back() = std::to_string(std::hash<std::string>{}(shown.back()));
  return absl::StrJoin(shown, "\n");
}

absl::Mutex* KeyedLocks::For(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto& m = locks_[key];
  if (m == nullptr) m = std::make_unique<absl::Mutex>();
  return m.get();
}

}  // namespace sluice::access::rest
