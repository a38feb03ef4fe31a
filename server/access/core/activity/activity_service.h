// ActivityService (Guardian's core/activity): provider activity read from a
// provider's audit log, imported on demand and kept in the activities table.
#ifndef SLUICE_SERVER_ACCESS_CORE_ACTIVITY_ACTIVITY_SERVICE_H_
#define SLUICE_SERVER_ACCESS_CORE_ACTIVITY_ACTIVITY_SERVICE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/sluice/access/v1beta1/appeal.pb.h"
#include "server/access/core/provider_client.h"
#include "server/access/core/provider_service.h"
#include "server/access/core/repositories.h"

namespace sluice::access {

// Guardian's ListProviderActivitiesFilter: each non-empty list is an IN,
// lists AND together; `timestamp` bounds inclusive (0 = unbounded).
struct ActivityFilter {
  std::vector<std::string> provider_ids, account_ids, resource_ids, types;
  TimeRange timestamp;
};

// Where imported activities are kept (migration 0014's activities table).
class ActivityRepository {
 public:
  virtual ~ActivityRepository() = default;
  // Inserts or, for an existing (provider_id, provider_activity_id),
  // replaces each activity (Guardian's BulkUpsert). resource_id is set from
  // activity.resource (provider_type, provider_urn, type, urn) when a
  // Sluice resource, deleted or not, has that key, else left empty.
  // Assigns id and created_at (kept from the first import on a replace).
  virtual absl::Status BulkUpsert(std::vector<pb::ProviderActivity>* activities) = 0;
  // NotFound (also for a malformed id).
  virtual absl::StatusOr<pb::ProviderActivity> Get(const std::string& id) = 0;
  // Newest first (timestamp, then id), every match (Guardian's Find has no
  // paging).
  virtual absl::StatusOr<std::vector<pb::ProviderActivity>> List(const ActivityFilter& filter) = 0;
};

class ActivityService {
 public:
  // Borrowed pointers must outlive this object.
  ActivityService(ActivityRepository* activities, ProviderService* providers,
                  ResourceRepository* resources, const ProviderRegistry* registry)
      : activities_(activities), providers_(providers), resources_(resources),
        registry_(registry) {}

  // Guardian's Import: reads the activities of provider request.provider_id()
  // matching the request from the provider and upserts them; returns them
  // as stored. InvalidArgument naming provider_id (required), resource_ids
  // (a resource not found or of another provider) or a timestamp;
  // NotFound for the provider; FailedPrecondition "provider type \"x\" does
  // not support activity import" (Guardian's
  // ErrImportActivitiesMethodNotSupported); the plugin's error otherwise.
  absl::StatusOr<std::vector<pb::ProviderActivity>> Import(
      const pb::ImportActivitiesRequest& request);
  // NotFound.
  absl::StatusOr<pb::ProviderActivity> Get(const std::string& id);
  // Guardian's Find.
  absl::StatusOr<std::vector<pb::ProviderActivity>> List(const ActivityFilter& filter);

 private:
  ActivityRepository* activities_;
  ProviderService* providers_;
  ResourceRepository* resources_;
  const ProviderRegistry* registry_;
};

// "2026-01-02T15:04:05Z" of `ts` (whole seconds as Guardian's
// time.RFC3339 filter), "" for an unset timestamp.
std::string Rfc3339(const google::protobuf::Timestamp& ts);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_ACTIVITY_ACTIVITY_SERVICE_H_
