// The provider plugin interface (one folder per type under
// server/access/providers/, listed in providers/registry.cc) and the registry
// the core looks plugins up in. Modelled on Guardian's provider interface.
#ifndef SLUICE_SERVER_ACCESS_CORE_PROVIDER_CLIENT_H_
#define SLUICE_SERVER_ACCESS_CORE_PROVIDER_CLIENT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/sluice/access/v1beta1/access.pb.h"
#include "proto/sluice/access/v1beta1/appeal.pb.h"

namespace sluice::access {

// Another active grant of the same account on the same provider (config),
// for plugins whose grants share account-wide provider state, such as
// Tableau's site role (ProviderClient::UsesOtherGrants).
struct OtherGrant {
  std::string resource_type;             // Resource.type
  std::string resource_urn;              // Resource.urn
  std::vector<std::string> permissions;  // the grant's permissions
  std::string provider_state;            // its Grant.provider_state
};

// What to grant or revoke: an account, a resource and a role's permissions.
struct AccessRequest {
  std::string account_id;
  std::string account_type;
  v1beta1::Resource resource;
  std::string role;
  std::vector<std::string> permissions;
  // RevokeAccess: the state GrantAccessWithState returned when the grant
  // being revoked was made (Grant.provider_state); "" when none or unknown.
  std::string provider_state;
  // Only when the plugin's UsesOtherGrants() is true: the account's other
  // active grants on this provider (never the grant being revoked).
  std::vector<OtherGrant> other_grants;
};

// One access that exists in the provider, as ListAccess reports it
// (Guardian's provider ListAccess / ImportGrantsFromProvider input).
struct ProviderAccess {
  std::string resource_type;             // Resource.type, as GetResources returns it
  std::string resource_urn;              // Resource.urn, as GetResources returns it
  std::string account_id;                // e.g. an email or a role name
  std::string account_type;              // e.g. "user", "serviceAccount", "group"
  std::vector<std::string> permissions;  // as the provider names them (a role's permissions)
};

// What an activity import asks a provider for (Guardian's
// domain.ListActivitiesFilter): every field narrows; empty = unbounded.
struct ActivityQuery {
  std::vector<std::string> account_ids;
  // Sluice resources of this provider (resolved from resource_ids).
  std::vector<v1beta1::Resource> resources;
  std::string timestamp_gte, timestamp_lte;  // RFC 3339, e.g. "2026-01-02T15:04:05Z"
};

// One of a role's permissions (Role.permissions, a google.protobuf.Value) as
// the string an appeal and its grant carry and AccessRequest::permissions
// passes to the plugin: a string as it is; an object {"name": N} or
// {"name": N, "type": T} with string fields as "N" or "N@T" (Guardian's
// tableau Permission.String(), e.g. "Viewer@site_role"); anything else as
// compact JSON.
std::string PermissionString(const google::protobuf::Value& permission);

// One provider type. Configs passed in carry plaintext credentials.
class ProviderClient {
 public:
  virtual ~ProviderClient() = default;
  // The `type` value this plugin serves, e.g. "noop".
  virtual std::string Type() const = 0;
  // InvalidArgument naming the offending field.
  virtual absl::Status ValidateConfig(const v1beta1::ProviderConfig& config) const = 0;
  // Every resource the provider currently holds (before the config's filter).
  virtual absl::StatusOr<std::vector<v1beta1::Resource>> GetResources(
      const v1beta1::ProviderConfig& config) = 0;
  // The roles configured for `resource_type`; NotFound for an unknown type.
  virtual absl::StatusOr<std::vector<v1beta1::Role>> GetRoles(
      const v1beta1::ProviderConfig& config, absl::string_view resource_type) const;
  // Account types the provider can grant to, e.g. {"user"}.
  virtual std::vector<std::string> GetAccountTypes() const = 0;
  // Checks, at appeal creation, that `account_id` (of `account_type`, one
  // of the config's allowed types) names one account the provider can grant
  // to, so that no appeal is approved for an id that means something else
  // in the provider (PostgreSQL's `public`, review finding M11).
  // InvalidArgument with a message starting "account_id: " when it does
  // not; another code when the check itself failed (e.g. FailedPrecondition
  // or DeadlineExceeded for an unreachable or stalled provider).
  // Default: every non-empty id is accepted.
  virtual absl::Status ValidateAccount(const v1beta1::ProviderConfig& config,
                                       absl::string_view account_type,
                                       absl::string_view account_id);
  // The form in which an appeal and its grant store `account_id` (of
  // `account_type`), applied at appeal creation before ValidateAccount and
  // to ListAccess results when importing, so that one account has one id.
  // Default: unchanged. The Google plugins (bigquery, gcs, gcloud_iam)
  // lower-case emails and domains: Google compares them case-insensitively
  // and answers its own canonical casing (review F-H2).
  virtual std::string NormalizeAccountId(absl::string_view account_type,
                                         absl::string_view account_id) const;
  // Idempotent: granting an existing access succeeds.
  virtual absl::Status GrantAccess(const v1beta1::ProviderConfig& config,
                                   const AccessRequest& request) = 0;
  // GrantAccess, returning what the plugin needs back when this grant is
  // revoked (kept as Grant.provider_state, passed to RevokeAccess as
  // AccessRequest::provider_state; JSON by convention, at most a few
  // hundred bytes). Default: GrantAccess and "".
  virtual absl::StatusOr<std::string> GrantAccessWithState(const v1beta1::ProviderConfig& config,
                                                           const AccessRequest& request);
  // Idempotent: revoking an absent access succeeds.
  virtual absl::Status RevokeAccess(const v1beta1::ProviderConfig& config,
                                    const AccessRequest& request) = 0;
  // True when grants and revokes need AccessRequest::other_grants (the core
  // then looks the account's other active grants up). Default: false.
  virtual bool UsesOtherGrants() const { return false; }
  // Who holds what on `resources` (a subset of GetResources' result), for
  // importing grants made outside Sluice and reporting drift. Default:
  // Unimplemented (the plugin cannot list access).
  virtual absl::StatusOr<std::vector<ProviderAccess>> ListAccess(
      const v1beta1::ProviderConfig& config, const std::vector<v1beta1::Resource>& resources);
  // True when the plugin reads activity from the provider's audit log
  // (Guardian's activityManager interface). Default: false.
  virtual bool SupportsActivities() const { return false; }
  // The provider's activities matching `query` (Guardian's GetActivities):
  // provider_activity_id, account, timestamp, type, authorizations,
  // related_permissions and metadata set, `resource` carrying the
  // activity's resource type, urn and name (the core matches it to a
  // Sluice resource). Default: Unimplemented.
  virtual absl::StatusOr<std::vector<v1beta1::ProviderActivity>> GetActivities(
      const v1beta1::ProviderConfig& config, const ActivityQuery& query);
};

// Plugins by type. Thread-safe after construction.
class ProviderRegistry {
 public:
  explicit ProviderRegistry(std::vector<std::unique_ptr<ProviderClient>> clients);
  // The plugin for `type`; InvalidArgument listing the known types.
  absl::StatusOr<ProviderClient*> Find(absl::string_view type) const;
  // Known types, sorted.
  std::vector<std::string> Types() const;

 private:
  std::map<std::string, std::unique_ptr<ProviderClient>, std::less<>> clients_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_PROVIDER_CLIENT_H_
