// PostgreSQL implementations of the access core's repositories (SOCI).
// soci::soci_error never leaves this file: Pool::Run/InTransaction map it.
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_REPOSITORIES_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_REPOSITORIES_H_

#include "common/db/migrate.h"
#include "common/db/pool.h"
#include "server/access/core/repositories.h"

namespace sluice::db {
// The access module's migrations (store/migrations/*.up.sql).
const MigrationSet& AccessMigrations();
}  // namespace sluice::db

namespace sluice::access {

class PostgresPolicyRepository : public PolicyRepository {
 public:
  explicit PostgresPolicyRepository(db::Pool* pool) : pool_(pool) {}
  absl::Status Insert(const pb::Policy& policy, const AuditEntry& audit) override;
  absl::StatusOr<pb::Policy> Get(const std::string& id, uint32_t version) override;
  absl::StatusOr<std::vector<pb::Policy>> ListLatest(const Page& page, int64_t* total) override;

 private:
  db::Pool* pool_;
};

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
  absl::StatusOr<std::vector<StoredProvider>> ListPage(const Page& page, int64_t* total) override;
  absl::Status Delete(const std::string& id, const AuditEntry& audit) override;
  absl::Status SyncResources(const pb::Provider& provider,
                             const std::vector<pb::Resource>& resources,
                             const AuditEntry& audit) override;

 private:
  // Every provider (`page` null) or one page; `total` (may be null) counts all.
  absl::StatusOr<std::vector<StoredProvider>> Load(const Page* page, int64_t* total);
  db::Pool* pool_;
};

class PostgresResourceRepository : public ResourceRepository {
 public:
  explicit PostgresResourceRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<std::vector<pb::Resource>> List(const ResourceFilter& filter, const Page& page,
                                                 int64_t* total) override;
  absl::StatusOr<pb::Resource> Get(const std::string& id) override;
  absl::StatusOr<pb::Resource> Update(const std::string& id,
                                      const google::protobuf::Struct& details,
                                      const google::protobuf::Map<std::string, std::string>* labels,
                                      const AuditEntry& audit) override;
  absl::Status Delete(const std::string& id, const AuditEntry& audit) override;

 private:
  db::Pool* pool_;
};

class PostgresAuditLogRepository : public AuditLogRepository {
 public:
  explicit PostgresAuditLogRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<std::vector<pb::AuditLog>> List(const AuditLogFilter& filter,
                                                  int64_t* total) override;

 private:
  db::Pool* pool_;
};

// pg_try_advisory_lock for the duration of `fn`, on a session of its own
// (Pool::OpenDedicated, opened per run): `fn` may use every pooled
// connection. Unavailable when that session cannot be opened.
class PostgresJobLock : public JobLock {
 public:
  explicit PostgresJobLock(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<bool> RunExclusive(int64_t key, const std::function<void()>& fn) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_REPOSITORIES_H_
