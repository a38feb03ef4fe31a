// PostgreSQL implementation of AppealRepository / AccessTx (SOCI).
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_APPEAL_REPOSITORY_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_APPEAL_REPOSITORY_H_

#include "common/db/pool.h"
#include "server/access/core/appeal_repositories.h"

namespace sluice::access {

class PostgresAppealRepository : public AppealRepository {
 public:
  explicit PostgresAppealRepository(db::Pool* pool) : pool_(pool) {}
  absl::Status InTransaction(const std::function<absl::Status(AccessTx&)>& fn) override;
  // One INSERT … statement in autocommit mode (atomic on its own).
  absl::StatusOr<bool> InsertAppealUnlessActiveGrant(
      pb::Appeal* appeal, AuditEntry audit, std::vector<AccessEvent> events = {}) override;
  absl::StatusOr<std::vector<pb::Appeal>> ListAppeals(const AppealFilter& f, int* total) override;
  absl::StatusOr<std::vector<pb::Approval>> ListApprovals(const ApprovalFilter& f,
                                                           int* total) override;
  absl::StatusOr<std::vector<pb::Grant>> ListGrants(const GrantFilter& f, int* total) override;
  absl::StatusOr<pb::Grant> GetGrant(const std::string& id) override;
  absl::StatusOr<bool> IsResourceApprover(const std::string& resource_id,
                                          const std::string& identity) override;
  // Issue 28 (appeal comments, GET /me/grants/roles, approval summaries;
  // postgres_appeal_routes.cc); see AppealRepository.
  absl::StatusOr<std::vector<pb::AppealComment>> ListComments(const std::string& appeal_id,
                                                              bool newest_first) override;
  absl::Status InsertComment(pb::AppealComment* comment, const AuditEntry& audit) override;
  absl::StatusOr<std::vector<pb::AuditLog>> ListAppealAudit(
      const std::string& appeal_id, const std::vector<std::string>& actions) override;
  absl::StatusOr<std::vector<std::string>> ListUserRoles(const std::string& owner) override;
  absl::StatusOr<std::vector<std::pair<std::vector<std::string>, int>>> SummarizeApprovals(
      const ApprovalSummaryQuery& query) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_APPEAL_REPOSITORY_H_
