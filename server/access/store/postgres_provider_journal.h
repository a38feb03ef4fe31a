// PostgreSQL implementation of ProviderJournal (table provider_operations).
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_PROVIDER_JOURNAL_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_PROVIDER_JOURNAL_H_

#include "common/db/pool.h"
#include "server/access/core/provider_journal.h"

namespace sluice::access {

class PostgresProviderJournal : public ProviderJournal {
 public:
  // `pool` (borrowed) must not be the pool whose transactions call Begin:
  // an entry commits on its own while the caller's transaction is open, and
  // a second lease from the same pool could wait forever. One dedicated
  // connection is enough (two short statements per provider call).
  explicit PostgresProviderJournal(db::Pool* pool) : pool_(pool) {}
  absl::StatusOr<std::string> Begin(const ProviderOperation& op) override;
  absl::Status Finish(const std::string& id, const std::string& outcome) override;
  absl::StatusOr<std::vector<ProviderOperation>> InFlight(absl::Time before, int limit) override;
  // Deletes settled entries older than `before`; returns how many.
  absl::StatusOr<int> Prune(absl::Time before);

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_PROVIDER_JOURNAL_H_
