// Imported provider activities (migration 0014's activities table).
// soci::soci_error never leaves the .cc: Pool::Run/InTransaction map it.
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_ACTIVITY_REPOSITORY_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_ACTIVITY_REPOSITORY_H_

#include <string>
#include <vector>

#include "common/db/pool.h"
#include "server/access/core/activity/activity_service.h"

namespace sluice::access {

class PostgresActivityRepository : public ActivityRepository {
 public:
  explicit PostgresActivityRepository(db::Pool* pool) : pool_(pool) {}
  // One INSERT ... ON CONFLICT (provider_id, provider_activity_id) DO
  // UPDATE; of several activities with one provider_activity_id in the
  // batch, the last is kept (the others get its id).
  absl::Status BulkUpsert(std::vector<pb::ProviderActivity>* activities) override;
  absl::StatusOr<pb::ProviderActivity> Get(const std::string& id) override;
  absl::StatusOr<std::vector<pb::ProviderActivity>> List(const ActivityFilter& filter) override;

 private:
  db::Pool* pool_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_ACTIVITY_REPOSITORY_H_
