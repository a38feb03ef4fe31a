// What the HTTP provider plugins (metabase, grafana, tableau) share: JSON
// calls through the injected common/http_client.h HttpClient, credential
// fields, vendor errors as Status, and a cache of session tokens that are
// renewed when the vendor answers 401.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_REST_REST_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_REST_REST_H_

#include <google/protobuf/struct.pb.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/http_client.h"
#include "nlohmann/json.hpp"

namespace sluice::access::rest {

// Per-call limits of a plugin's HTTP calls.
struct CallLimits {
  absl::Duration timeout = absl::Seconds(30);
  // Listings of large sites are paged, so one page stays well under this.
  size_t max_response_bytes = size_t{16} << 20;
};

// One JSON request: `body` (if set) is sent as application/json; every
// call sends Accept: application/json.
struct JsonCall {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::optional<nlohmann::json> body;
};

// A vendor's answer: any HTTP status; `body` is null when it is empty or
// not JSON.
struct JsonResponse {
  long status = 0;
  nlohmann::json body;
  bool ok() const { return status >= 200 && status < 300; }
};

// Performs `call`. Transport failures keep HttpClient's codes
// (Unavailable, DeadlineExceeded, FailedPrecondition for an oversized body).
absl::StatusOr<JsonResponse> DoJson(HttpClient& http, const JsonCall& call,
                                    const CallLimits& limits);

// The Status of a non-2xx answer to `what` (e.g. "metabase GET /api/user"):
// 429 ResourceExhausted, 5xx Unavailable, others FailedPrecondition, as
// common/http_client.h's HttpStatusToError; 403 says that the provider's
// account lacks the right. The vendor's body is never quoted.
absl::Status VendorError(absl::string_view what, const JsonResponse& response);

// credentials.<key> as a string ("" when absent; numbers as integers).
std::string CredentialString(const google::protobuf::Struct& credentials, absl::string_view key);

// InvalidArgument "credentials.<key>: required" when credentials.<key> is
// empty; otherwise its value.
absl::StatusOr<std::string> RequiredCredential(const google::protobuf::Struct& credentials,
                                               absl::string_view key);

// `host` without trailing slashes, after ValidateHttpUrl("credentials.host").
absl::StatusOr<std::string> BaseUrl(const google::protobuf::Struct& credentials);

// Tolerant readers of vendor JSON: j[key] as an integer (a number, or a
// string of digits; else 0) and as a string (a string, or a number's
// digits; else ""). `j` may be anything.
long long Int(const nlohmann::json& j, const char* key);
std::string Str(const nlohmann::json& j, const char* key);
// j[key], or a null value when `j` is not an object or has no `key`.
const nlohmann::json& Field(const nlohmann::json& j, const char* key);
// j[key] when it is an array (or {"<inner>": [...]}-style wrappers are
// looked through by the caller); otherwise an empty array.
const nlohmann::json& Array(const nlohmann::json& j, const char* key);

// A signed-in session: the token and what the sign-in answered with it
// (Tableau's site and user ids).
struct Session {
  std::string token;
  std::string site_id;
  std::string user_id;
};

// Session tokens by key (the provider's host, account and a digest of its
// secret, so a changed password signs in again). Thread-safe; sign-ins for
// one key are serialized, so a burst of calls after an expiry signs in once.
class SessionCache {
 public:
  using SignIn = std::function<absl::StatusOr<Session>()>;
  // The cached session of `key`, or a new one from `sign_in`.
  absl::StatusOr<Session> Get(const std::string& key, const SignIn& sign_in);
  // Forgets `key`'s session if its token is still `token` (after a 401:
  // another thread may already have renewed it).
  void Invalidate(const std::string& key, const std::string& token);
  // Runs `call` with `key`'s session; when it answers 401 the session is
  // renewed once and `call` runs again (Guardian's clients do the same).
  absl::StatusOr<JsonResponse> Call(
      const std::string& key, const SignIn& sign_in,
      const std::function<absl::StatusOr<JsonResponse>(const Session&)>& call);
  // Sign-ins performed so far (for tests).
  int sign_ins() const;

 private:
  struct Entry {
    absl::Mutex mu;  // serializes sign-ins of one key
    std::optional<Session> session ABSL_GUARDED_BY(mu);
  };
  std::shared_ptr<Entry> EntryFor(const std::string& key);
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
  int sign_ins_ ABSL_GUARDED_BY(mu_) = 0;
};

// A cache key for `parts` (host, account, secret): the parts joined, the
// last one replaced by a hash so that no secret is kept twice.
std::string SessionKey(const std::vector<std::string>& parts);

// Per-key mutexes for read-modify-write sequences inside this process (the
// vendor's revision or a re-check guards against other writers).
class KeyedLocks {
 public:
  // The mutex of `key`; it lives as long as this object.
  absl::Mutex* For(const std::string& key);

 private:
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<absl::Mutex>> locks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace sluice::access::rest

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_REST_REST_H_
