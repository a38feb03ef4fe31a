// Providers and the resource sync (upsert the fetched set, soft-delete the rest) in PostgreSQL.
// soci::soci_error never leaves the .cc: Pool::Run/InTransaction map it.
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_PROVIDER_REPOSITORY_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_PROVIDER_REPOSITORY_H_

#include "common/db/pool.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

class PostgresProviderRepository : public ProviderRepository {
 public:
  explicit PostgresProviderRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<StoredProvider> Create(const StoredProvider& provider,
                                        const std::vector<pb::Resource>& resources,
                                        const AuditEntry& audit) override;
  absl::StatusOr<StoredProvider> Update(const StoredProvider& provider,
                                        const std::vector<pb::Resource>& resources,
                                        const AuditEntry& audit) override;
  absl::StatusOr<StoredProvider> Get(const std::string& id) override;
  absl::StatusOr<StoredProvider> GetByTypeUrn(const std::string& type,
                                              const std::string& urn) override;
  absl::StatusOr<std::vector<StoredProvider>> List() override;
  absl::StatusOr<std::vector<StoredProvider>> ListPage(const Page& page, int64_t* total,
                                                       const ProviderFilter& filter) override;
  absl::Status Delete(const std::string& id, const AuditEntry& audit) override;
  absl::StatusOr<std::map<std::string, std::vector<std::string>>> ResourceTypes() override;
  absl::Status SyncResources(const pb::Provider& provider,
                             const std::vector<pb::Resource>& resources,
                             const AuditEntry& audit) override;

 private:
  // Every provider (`page` null) or one page; `total` (may be null) counts all.
  absl::StatusOr<std::vector<StoredProvider>> Load(const Page* page, int64_t* total,
                                                   const ProviderFilter* filter = nullptr);
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_PROVIDER_REPOSITORY_H_
