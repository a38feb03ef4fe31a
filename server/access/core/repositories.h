// Storage interfaces the access core needs. The store/ adapters implement them
// on PostgreSQL; core tests use in-memory fakes. Every mutating method takes an
// AuditEntry and writes it in the same transaction as the change.
#ifndef SLUICE_SERVER_ACCESS_CORE_REPOSITORIES_H_
#define SLUICE_SERVER_ACCESS_CORE_REPOSITORIES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "common/paging.h"
#include "proto/sluice/access/v1beta1/access.pb.h"

namespace sluice::access {

namespace pb = ::sluice::access::v1beta1;

// Lists take a sluice::Page (common/paging.h): the API bounds it with ParsePage.
using ::sluice::Page;

// One audit_logs row to write with a change.
struct AuditEntry {
  std::string action;  // e.g. "policy.create"
  std::string actor;   // caller email or "system"
  nlohmann::json data = nlohmann::json::object();
};

class PolicyRepository {
 public:
  virtual ~PolicyRepository() = default;
  // Inserts one version. AlreadyExists when (id, version) exists.
  virtual absl::Status Insert(const pb::Policy& policy, const AuditEntry& audit) = 0;
  // Version `version` of `id`, or the latest when version == 0. NotFound.
  virtual absl::StatusOr<pb::Policy> Get(const std::string& id, uint32_t version) = 0;
  // One page of every version of every policy, oldest first (created_at,
  // then id, version), as Guardian's policy_repository.go Find; `total`
  // counts all versions. With `ids` (Guardian's ListPolicies ids: "<id>"
  // every version, "<id>:0" the latest, "<id>:<n>" version n) only those.
  virtual absl::StatusOr<std::vector<pb::Policy>> List(const Page& page, int64_t* total,
                                                       const std::vector<std::string>& ids) = 0;
};

// A provider as stored: config without credentials, plus the credentials
// JSON encrypted with the server's Crypter ("" when there are none).
struct StoredProvider {
  pb::Provider provider;
  std::string encrypted_credentials;
};

// Guardian's string matchers on one column (internal/store/postgres/utils.go
// applyLikeAndInFilter): the positive ones (and the column's IN list) are
// ORed, the negative ones ANDed; LIKE, case-sensitive.
struct StringMatch {
  std::string starts_with, ends_with, contains;
  std::string not_starts_with, not_ends_with, not_contains;
  bool empty() const {
    return starts_with.empty() && ends_with.empty() && contains.empty() &&
           not_starts_with.empty() && not_ends_with.empty() && not_contains.empty();
  }
};

// A created_at window in microseconds since the epoch; 0 = unbounded.
// Both ends inclusive (Guardian's BETWEEN).
struct TimeRange {
  int64_t start_micros = 0, end_micros = 0;
};

// Guardian's ListProviders filters; a urns entry is "<urn>" or
// "<urn>:<type>" (internal/store/postgres/provider_repository.go).
struct ProviderFilter {
  std::vector<std::string> ids, urns, types;
};

class ProviderRepository {
 public:
  virtual ~ProviderRepository() = default;
  // Inserts the provider (id assigned here, returned in the result) and syncs
  // `resources` in one transaction. AlreadyExists for a duplicate (type, urn).
  virtual absl::StatusOr<StoredProvider> Create(const StoredProvider& provider,
                                                const std::vector<pb::Resource>& resources,
                                                const AuditEntry& audit) = 0;
  // Replaces config/credentials of provider.provider.id() and syncs `resources`
  // in one transaction. NotFound.
  virtual absl::StatusOr<StoredProvider> Update(const StoredProvider& provider,
                                                const std::vector<pb::Resource>& resources,
                                                const AuditEntry& audit) = 0;
  // NotFound when absent.
  virtual absl::StatusOr<StoredProvider> Get(const std::string& id) = 0;
  // NotFound when absent.
  virtual absl::StatusOr<StoredProvider> GetByTypeUrn(const std::string& type,
                                                      const std::string& urn) = 0;
  // All providers, ordered by creation (for the background jobs).
  virtual absl::StatusOr<std::vector<StoredProvider>> List() = 0;
  // One page of them in the same order; `total` counts all providers.
  // Filtered by `filter` (empty lists match everything).
  virtual absl::StatusOr<std::vector<StoredProvider>> ListPage(const Page& page,
                                                               int64_t* total,
                                                               const ProviderFilter& filter) = 0;
  // Deletes the provider and soft-deletes its resources. NotFound.
  virtual absl::Status Delete(const std::string& id, const AuditEntry& audit) = 0;
  // Sync semantics for one provider: upsert on (provider_type, provider_urn,
  // type, urn) (undeleting), soft-delete resources no longer returned; keys
  // added to details through ResourceRepository::Update are kept.
  virtual absl::Status SyncResources(const pb::Provider& provider,
                                     const std::vector<pb::Resource>& resources,
                                     const AuditEntry& audit) = 0;
  // The distinct resource types of the stored (not deleted) resources, by
  // provider type, each list sorted (Guardian's GetTypes reads the same).
  virtual absl::StatusOr<std::map<std::string, std::vector<std::string>>> ResourceTypes() = 0;
};

// Filters of ListResources; empty strings/lists match everything. The
// singular fields are folded into the lists by the API.
struct ResourceFilter {
  std::string provider_type, provider_urn, type, urn, name;
  std::vector<std::string> ids, provider_types, provider_urns, types, urns;
  // Guardian's matchers, ORed with provider_urns / urns respectively.
  StringMatch provider_urn_match, urn_match;
  // ILIKE substring of urn or name; exact matches sort first.
  std::string q;
  // (dot path, value) pairs matched against details as strings.
  std::vector<std::pair<std::vector<std::string>, std::string>> details;
  bool is_deleted = false;
  // (column, descending): updated_at, created_at, name, urn.
  std::vector<std::pair<std::string, bool>> order_by;
};

class ResourceRepository {
 public:
  virtual ~ResourceRepository() = default;
  // One page of the matches of `filter`, ordered by provider type and urn,
  // type and urn; `total` (may be null) counts all matches.
  virtual absl::StatusOr<std::vector<pb::Resource>> List(const ResourceFilter& filter,
                                                         const Page& page, int64_t* total) = 0;
  // NotFound (also for a malformed id).
  virtual absl::StatusOr<pb::Resource> Get(const std::string& id) = 0;
  // Merges `details` into the user-owned details (kept across syncs; keys the
  // provider owns are not overridden) and replaces labels when `labels` is
  // non-null. NotFound.
  virtual absl::StatusOr<pb::Resource> Update(const std::string& id,
                                              const google::protobuf::Struct& details,
                                              const google::protobuf::Map<std::string, std::string>* labels,
                                              const AuditEntry& audit) = 0;
  // Soft delete. NotFound.
  virtual absl::Status Delete(const std::string& id, const AuditEntry& audit) = 0;
  // Inserts `resource` (its details become user-owned details, kept across
  // syncs) and the audit row; returns it with id and timestamps.
  // AlreadyExists for a duplicate (provider_type, provider_urn, type, urn),
  // deleted or not.
  virtual absl::StatusOr<pb::Resource> Create(const pb::Resource& resource,
                                              const AuditEntry& audit) = 0;
};

struct AuditLogFilter {
  std::string action, actor;
  std::string start_time, end_time;  // RFC 3339, empty = unbounded
  int size = 50;
  int offset = 0;
};

class AuditLogRepository {
 public:
  virtual ~AuditLogRepository() = default;
  // Newest first; `total` counts all matches before paging.
  virtual absl::StatusOr<std::vector<pb::AuditLog>> List(const AuditLogFilter& filter,
                                                          int64_t* total) = 0;
};

// Cluster-wide mutual exclusion for background jobs (several replicas).
class JobLock {
 public:
  virtual ~JobLock() = default;
  // Runs `fn` when no other replica holds lock `key`; returns whether it ran.
  virtual absl::StatusOr<bool> RunExclusive(int64_t key, const std::function<void()>& fn) = 0;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_REPOSITORIES_H_
