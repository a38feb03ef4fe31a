// The audit log (audit_logs) read back from PostgreSQL.
// soci::soci_error never leaves the .cc: Pool::Run/InTransaction map it.
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_AUDIT_LOG_REPOSITORY_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_AUDIT_LOG_REPOSITORY_H_

#include "common/db/pool.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

class PostgresAuditLogRepository : public AuditLogRepository {
 public:
  explicit PostgresAuditLogRepository(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<std::vector<pb::AuditLog>> List(const AuditLogFilter& filter,
                                                  int64_t* total) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_AUDIT_LOG_REPOSITORY_H_
