// PostgreSQL implementation of AccessEventStore: the access_events outbox
// (migration 0004) and the reminder jobs' queries.
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_EVENT_STORE_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_EVENT_STORE_H_

#include <soci/soci.h>

#include "common/db/pool.h"
#include "server/access/core/event_outbox.h"

namespace sluice::access {

// Writes `events` in one multi-row INSERT … ON CONFLICT (id) DO NOTHING on
// `sql` (inside the caller's transaction, if any); returns how many were new.
// Throws soci::soci_error.
int InsertAccessEvents(soci::session& sql, const std::vector<AccessEvent>& events);

class PostgresAccessEventStore : public AccessEventStore {
 public:
  explicit PostgresAccessEventStore(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<int> Insert(const std::vector<AccessEvent>& events) override;
  // One UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING.
  absl::StatusOr<std::vector<ClaimedEvent>> Claim(int limit, absl::Duration lease) override;
  absl::StatusOr<int> Prune(absl::Time before) override;
  // One UPDATE … FROM jsonb_to_recordset for the whole batch.
  absl::Status Settle(const std::vector<Settlement>& settlements) override;
  absl::StatusOr<std::vector<pb::Grant>> ExpiringGrants(absl::Time now, absl::Time until,
                                                        int limit) override;
  absl::StatusOr<std::vector<pb::Appeal>> PendingAppeals(absl::Time created_before,
                                                         int limit) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_EVENT_STORE_H_
