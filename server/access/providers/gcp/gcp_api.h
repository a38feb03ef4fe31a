// What the three GCP provider plugins (bigquery, gcs, gcloud_iam) share: the
// credentials shape of Guardian's GCP providers, authenticated JSON calls to
// Google's REST APIs with bounded retries, the IAM policy read-modify-write
// loop with etags, and IAM member parsing.
//
// credentials (Guardian's shape, plus two optional Sluice keys):
//   service_account_key  base64 of the service-account key JSON (required;
//                        Guardian: `validate:"required,base64"`)
//   resource_name        "projects/<id>" or "organizations/<id>" (required)
//   api_base_url         optional: one base URL for every Google API the
//                        plugin calls (tests, emulators); paths keep their
//                        API prefix (/bigquery/v2, /storage/v1, /v1, /v2 for
//                        Cloud Logging). Unset:
//                        each API's own Google host.
//   request_timeout_ms   optional: per HTTP call, default 10000.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_GCP_GCP_API_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_GCP_GCP_API_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/struct.pb.h>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/google_auth.h"
#include "common/http_client.h"
#include "nlohmann/json.hpp"
#include "server/access/core/provider_client.h"

namespace sluice::access::gcp {

using Json = nlohmann::json;

// Default of credentials.request_timeout_ms.
inline constexpr int kDefaultRequestTimeoutMs = 10000;
// Attempts of one call on 429, 5xx, transport errors and timeouts.
inline constexpr int kMaxAttempts = 3;
// Attempts of one read-modify-write on an etag conflict (409 ABORTED or
// 412): Google's IAM docs ask to "retry the whole read-modify-write".
inline constexpr int kMaxEtagAttempts = 8;

// The Google APIs the plugins call.
enum class Api { kBigQuery, kStorage, kResourceManager, kIam, kLogging };

// Parsed credentials.
struct Credentials {
  ServiceAccountKey key;
  std::string resource_name;  // "projects/<id>" or "organizations/<id>"
  std::string api_base_url;   // "" = Google's hosts
  absl::Duration timeout = absl::Milliseconds(kDefaultRequestTimeoutMs);

  // "<id>" of resource_name.
  std::string ResourceId() const;
  bool IsProject() const;
  // "https://bigquery.googleapis.com/bigquery/v2", ".../storage/v1",
  // "https://cloudresourcemanager.googleapis.com/v1", "https://iam.googleapis.com/v1",
  // "https://logging.googleapis.com/v2";
  // with api_base_url: that base plus the same path prefix.
  std::string Url(Api api) const;
};

// Parses `credentials`. InvalidArgument "credentials.<field>: ..." for a
// missing field, a service_account_key that is not base64 of a
// service-account key JSON (never echoing it), a resource_name without a
// projects/ or organizations/ prefix (or an organization when
// `projects_only`), a non-http(s) api_base_url or a bad timeout.
absl::StatusOr<Credentials> ParseCredentials(const google::protobuf::Struct& credentials,
                                             bool projects_only);

// Authenticated JSON calls for one plugin instance. Thread-safe.
class GoogleApi {
 public:
  // `type` names the plugin in messages ("bigquery provider <urn>: ...").
  GoogleApi(std::string type, std::shared_ptr<HttpClient> http);

  // Calls `method` `url` with an optional JSON body and extra headers, with
  // a bearer token for creds.key. Retries 429, 5xx, transport errors and
  // timeouts (kMaxAttempts, backoff 200 ms, 400 ms) and a 401 once with a
  // fresh token. The parsed 2xx body ({} when empty), else: NotFound (404),
  // Aborted (409, 412: an etag conflict), PermissionDenied (403),
  // Unauthenticated (401, or the token endpoint refused the key),
  // InvalidArgument (400), ResourceExhausted (429), Unavailable (5xx,
  // transport), DeadlineExceeded (timeout), FailedPrecondition (other).
  // Messages carry HTTP status and Google's error status word, never bodies.
  absl::StatusOr<Json> Call(const Credentials& creds, const std::string& method,
                            const std::string& url, const Json* body = nullptr,
                            const std::vector<std::string>& headers = {});

  // Exchanges the key for a token now (registration's real call). Errors as
  // GoogleAuth::AccessToken.
  absl::Status CheckKey(const Credentials& creds);

  // Runs `fn` holding this process's lock for `key` (a resource), so that
  // concurrent grants on one resource in one replica queue instead of
  // spending etag retries; across replicas the etag decides.
  absl::Status WithResourceLock(const std::string& key, const std::function<absl::Status()>& fn);

  const std::string& type() const { return type_; }
  GoogleAuth& auth() { return auth_; }

 private:
  std::string type_;
  std::shared_ptr<HttpClient> http_;
  GoogleAuth auth_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<absl::Mutex>> locks_ ABSL_GUARDED_BY(mu_);
};

// Read-modify-write of one policy-like document with etag retries: `read`
// fetches it, `mutate` changes it in place and returns false when nothing
// needs writing (then this returns OK), `write` stores it (carrying its
// etag). Aborted from `write` restarts from `read`, up to kMaxEtagAttempts,
// with jittered backoff; then Aborted.
absl::Status ReadModifyWrite(const std::function<absl::StatusOr<Json>()>& read,
                             const std::function<bool(Json*)>& mutate,
                             const std::function<absl::Status(const Json&)>& write);

// "<type>:<id>" IAM member of an account, e.g. "user:a@example.com".
std::string Member(const std::string& account_type, const std::string& account_id);

// True for the member types that name a Google principal by email or domain:
// user, group, serviceAccount, domain.
bool IsPrincipalType(absl::string_view account_type);

// The form Sluice stores a Google account id in (ProviderClient::
// NormalizeAccountId of the bigquery, gcs and gcloud_iam plugins): lower
// case for the principal types, unchanged otherwise. Google compares
// principals case-insensitively and keeps its own canonical casing
// (review F-H2; GoogleCloudPlatform/security-response-automation#191).
std::string NormalizeAccountId(absl::string_view account_type, absl::string_view account_id);

// True when IAM members `a` and `b` ("<type>:<id>") name the same
// principal: same type, and ids equal ignoring ASCII case for the principal
// types (exactly for other members).
bool SameMember(absl::string_view a, absl::string_view b);

// Adds `member` to the unconditional binding of each of `roles` in an IAM
// Policy JSON ({bindings: [{role, members, condition?}], etag, version}),
// unless it holds the same principal already (SameMember). True when
// something changed.
bool AddBindings(Json* policy, const std::vector<std::string>& roles, const std::string& member);
// Removes every member that is the same principal as `member` (SameMember,
// in whatever casing Google answers) from the unconditional bindings of
// `roles`, dropping bindings left empty. True when something changed.
bool RemoveBindings(Json* policy, const std::vector<std::string>& roles,
                    const std::string& member);

// The roles among `roles` whose unconditional binding still holds `member`
// (SameMember), sorted.
std::vector<std::string> BoundRoles(const Json& policy, const std::vector<std::string>& roles,
                                    const std::string& member);

// FailedPrecondition "<member> is still bound to <roles> after the revoke
// ...": what a revoke returns when a read after it still shows the access.
absl::Status StillBoundError(const std::string& member, const std::vector<std::string>& roles);

// A revoke of `member` from `roles` on an IAM policy: ReadModifyWrite with
// RemoveBindings, then `read` once more; FailedPrecondition
// (StillBoundError) when the member is still bound to any of `roles`, so a
// revoke never reports success while Google keeps the binding (review F-H2).
// Errors of `read` and `write` as ReadModifyWrite's.
absl::Status RevokeAndVerify(const std::function<absl::StatusOr<Json>()>& read,
                             const std::function<absl::Status(const Json&)>& write,
                             const std::vector<std::string>& roles, const std::string& member);

// The accesses an IAM policy shows on `resource`: one ProviderAccess per
// member of a supported type (user, serviceAccount, group, domain), its
// account id as NormalizeAccountId gives it (members differing only in
// case are one account), with the roles it holds, sorted; `deleted:` members, allUsers and the like are left
// out (Guardian's gcs ListAccess does the same).
std::vector<ProviderAccess> AccessFromPolicy(const Json& policy,
                                             const v1beta1::Resource& resource);

// The status a plugin returns to the core for `st` from an action on
// `what`: transient codes (Unavailable, ResourceExhausted, DeadlineExceeded)
// keep their code; everything else becomes FailedPrecondition, so a
// provider's 403 or 404 never reads as the caller's own.
absl::Status Outward(const GoogleApi& api, const v1beta1::ProviderConfig& config,
                     const std::string& what, const absl::Status& st);

// The registration check of a key and resource: ValidateConfig's error for
// `st` from a probe call. Unauthenticated / PermissionDenied →
// InvalidArgument naming credentials.service_account_key; NotFound →
// InvalidArgument naming credentials.resource_name; others unchanged.
absl::Status ProbeError(const GoogleApi& api, const std::string& what, const absl::Status& st);

// Sorted, de-duplicated copy.
std::vector<std::string> Unique(std::vector<std::string> v);

// Every item of a paged Google list: GETs `url` (which may carry a query),
// following nextPageToken, and collects the array `items_key` of each page.
// Stops with FailedPrecondition past `max_pages` pages.
absl::StatusOr<std::vector<Json>> ListAll(GoogleApi& api, const Credentials& creds,
                                          const std::string& url, const std::string& items_key,
                                          int max_pages = 10000);

// IAM role names grantable on `full_resource_name` (e.g.
// "//bigquery.googleapis.com/projects/p/datasets/d"), from
// roles:queryGrantableRoles, all pages (IAM REST reference).
absl::StatusOr<std::vector<std::string>> GrantableRoles(GoogleApi& api, const Credentials& creds,
                                                        const std::string& full_resource_name);

// True for an IAM role name: "roles/<name>", "projects/<p>/roles/<name>" or
// "organizations/<o>/roles/<name>".
bool IsRoleName(const std::string& s);

// InvalidArgument "account_id: ..." unless `account_id` can name exactly one
// principal of `account_type`: an email for user, serviceAccount and group,
// a domain name for domain. Refuses IAM's special members (allUsers,
// allAuthenticatedUsers, projectOwner:... etc.: no '@', or a ':' inside),
// which would grant to everyone or to a role's holders.
absl::Status CheckAccount(const std::string& account_type, const std::string& account_id);

// InvalidArgument unless `account_type` is in config.allowed_account_types.
absl::Status CheckAllowedType(const v1beta1::ProviderConfig& config,
                              const std::string& account_type);

// The checks of every grant and revoke: the account type is allowed by the
// config and in `supported`, the account id passes CheckAccount, and the
// role has permissions. InvalidArgument otherwise.
absl::Status CheckRequest(const v1beta1::ProviderConfig& config, const AccessRequest& req,
                          const std::vector<std::string>& supported);

}  // namespace sluice::access::gcp

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_GCP_GCP_API_H_
