// Providers and their resources: registration through the provider plugin,
// policy reference checks, resource fetching (with the config's filter),
// sync, credentials encrypted at rest and masked in responses.
#ifndef SLUICE_SERVER_ACCESS_CORE_PROVIDER_SERVICE_H_
#define SLUICE_SERVER_ACCESS_CORE_PROVIDER_SERVICE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/status/statusor.h"
#include "common/crypto.h"
#include "server/access/core/provider_client.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

// Replaces credential values whose key names a secret (password, secret,
// token, key; case-insensitive substring) with kMaskedSecret, recursively.
void MaskCredentials(google::protobuf::Struct* credentials);

class ProviderService {
 public:
  // Borrowed pointers must outlive the service.
  ProviderService(ProviderRepository* providers, PolicyRepository* policies,
                  const ProviderRegistry* registry, const Crypter* crypter)
      : providers_(providers), policies_(policies), registry_(registry), crypter_(crypter) {}

  // Validates (plugin + common rules), checks referenced policies (NotFound),
  // rejects a duplicate (type, urn) (AlreadyExists), fetches the resources
  // (the plugin's error on failure; nothing stored) and stores all in one
  // transaction. Returns the provider with masked credentials. `dry_run`
  // (Guardian's WithDryRun): validates and fetches the resources as above,
  // returns the provider that would be stored (no id) and writes nothing.
  // config.policies: each `when` required and compiling, each policy
  // "<id>@<version>" existing (InvalidArgument / NotFound naming
  // policies[i]).
  absl::StatusOr<pb::Provider> Create(pb::ProviderConfig config, const std::string& actor,
                                      bool dry_run = false);
  // Replaces the provider's config with `changes`, as Guardian's
  // UpdateProvider does (core/provider/service.go Update): a field left out
  // is cleared (labels, appeal, policies, credentials keys), except type and
  // urn (the provider's own when empty; InvalidArgument when different) and
  // allowed_account_types (the plugin's when empty, as on Create). A masked
  // credential value keeps the stored secret (InvalidArgument when none is
  // stored). Validates and re-fetches. NotFound. `dry_run` as for Create.
  absl::StatusOr<pb::Provider> Update(const std::string& id, const pb::ProviderConfig& changes,
                                      const std::string& actor, bool dry_run = false);
  // Masked. NotFound.
  absl::StatusOr<pb::Provider> Get(const std::string& id);
  // One page, masked, oldest first; `total` counts all providers.
  absl::StatusOr<std::vector<pb::Provider>> List(const Page& page, int64_t* total,
                                                 const ProviderFilter& filter = {});
  // Deletes the provider and soft-deletes its resources. NotFound.
  absl::Status Delete(const std::string& id, const std::string& actor);
  // Update of the provider registered as (type, urn) (Guardian's second
  // UpdateProvider binding, PUT /providers/{config.type}/{config.urn}).
  // NotFound naming both.
  absl::StatusOr<pb::Provider> UpdateByTypeUrn(const std::string& type, const std::string& urn,
                                               const pb::ProviderConfig& changes,
                                               const std::string& actor, bool dry_run = false);
  // Every plugin type this server has (sorted), each with the distinct
  // resource types of its stored resources (Guardian's GetTypes reads those
  // from the resources table; a type without providers has none).
  absl::StatusOr<std::vector<pb::ProviderType>> Types();
  // The roles of one resource type. NotFound for the provider or the type.
  absl::StatusOr<std::vector<pb::Role>> ListRoles(const std::string& id,
                                                  const std::string& resource_type);
  // What one SyncAll did.
  struct SyncReport {
    int providers_synced = 0;  // providers whose resources were re-fetched
    int providers_failed = 0;  // failures (logged), including listing them
    int64_t resources = 0;     // resources the synced providers reported
  };
  // Re-fetches every provider's resources (the `fetch_resources` job, actor
  // "system", Guardian's job of that name). Failures are logged and counted.
  SyncReport SyncAll();
  // The plaintext config of the provider (type, urn); NotFound. Cached for
  // up to 2 s (the hot path of appeal creation); this process's own updates
  // and deletes invalidate the entry at once.
  absl::StatusOr<pb::ProviderConfig> GetPlainConfig(const std::string& type,
                                                    const std::string& urn);
  // Every provider's plaintext config keyed by "type/urn".
  absl::StatusOr<std::map<std::string, pb::ProviderConfig>> PlainConfigs();

 private:
  absl::Status Validate(const pb::ProviderConfig& config, ProviderClient** client);
  absl::StatusOr<std::vector<pb::Resource>> Fetch(ProviderClient* client,
                                                  const pb::ProviderConfig& config);
  absl::StatusOr<StoredProvider> Seal(const pb::Provider& provider);
  absl::StatusOr<pb::ProviderConfig> Unseal(const StoredProvider& stored);
  pb::Provider Masked(const StoredProvider& stored);

  void Invalidate();

  ProviderRepository* providers_;
  PolicyRepository* policies_;
  const ProviderRegistry* registry_;
  const Crypter* crypter_;
  absl::Mutex mu_;
  std::map<std::string, std::pair<absl::Time, pb::ProviderConfig>> config_cache_
      ABSL_GUARDED_BY(mu_);
};

class ResourceService {
 public:
  // `providers` (may be null: Create is then FailedPrecondition) checks
  // the provider of a created resource.
  explicit ResourceService(ResourceRepository* repo, ProviderService* providers = nullptr)
      : repo_(repo), providers_(providers) {}
  // Adds one resource to a registered provider (Guardian's CreateResource):
  // provider_type, provider_urn, type and urn required (InvalidArgument
  // naming them); NotFound for the provider; InvalidArgument when the
  // provider's config lists no resources of that type; AlreadyExists for a
  // duplicate. Its details are user-owned (kept across syncs); a sync that
  // no longer sees the urn in the provider soft-deletes it, as any resource.
  absl::StatusOr<pb::Resource> Create(const pb::Resource& resource, const std::string& actor);
  // One page of the resources matching `filter`; `total` counts all matches.
  absl::StatusOr<std::vector<pb::Resource>> List(const ResourceFilter& filter, const Page& page,
                                                 int64_t* total);
  absl::StatusOr<pb::Resource> Get(const std::string& id);
  // Updates details (merged into the user-owned part) and labels (replaced
  // when non-empty). NotFound.
  absl::StatusOr<pb::Resource> Update(const std::string& id, const pb::Resource& changes,
                                      const std::string& actor);
  absl::Status Delete(const std::string& id, const std::string& actor);

 private:
  ResourceRepository* repo_;
  ProviderService* providers_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_PROVIDER_SERVICE_H_
