// Policies (versioned rows) in PostgreSQL.
// soci::soci_error never leaves the .cc: Pool::Run/InTransaction map it.
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_POLICY_REPOSITORY_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_POLICY_REPOSITORY_H_

#include "common/db/pool.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

class PostgresPolicyRepository : public PolicyRepository {
 public:
  explicit PostgresPolicyRepository(db::Pool* pool) : pool_(pool) {}
  absl::Status Insert(const pb::Policy& policy, const AuditEntry& audit) override;
  absl::StatusOr<pb::Policy> Get(const std::string& id, uint32_t version) override;
  absl::StatusOr<std::vector<pb::Policy>> List(const Page& page, int64_t* total,
                                               const std::vector<std::string>& ids) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_POLICY_REPOSITORY_H_
