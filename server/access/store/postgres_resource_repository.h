// Resources (list, get, user details/labels, soft delete) in PostgreSQL.
// soci::soci_error never leaves the .cc: Pool::Run/InTransaction map it.
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_RESOURCE_REPOSITORY_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_RESOURCE_REPOSITORY_H_

#include "common/db/pool.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

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
  absl::StatusOr<pb::Resource> Create(const pb::Resource& resource,
                                      const AuditEntry& audit) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_RESOURCE_REPOSITORY_H_
