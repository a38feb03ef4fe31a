// The access-management API as a sluice-server module (server/module.h):
// policies, providers, resources, audit logs; its jobs (server/jobs.h).
//
// Config section `access:` (all optional):
//   resource_sync_interval: 2h   # job fetch_resources: re-fetch every provider's resources
//   grant_expiry_interval: 1m    # job revoke_expired_grants (issue 5)
//   reconcile_interval: 1m       # job reconcile: settle provider calls left in flight
//   max_grant_duration: 2160h    # longest options.duration when a policy
//                                #   has no duration_options (90 days)
//   admins: [ops@example.com]    # may change policies, providers, resources,
//   admin_groups: [sre]          #   approvers, and bulk-revoke (JWT groups claim)
#ifndef SLUICE_SERVER_ACCESS_MODULE_H_
#define SLUICE_SERVER_ACCESS_MODULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/auth/caller.h"
#include "server/module.h"

namespace sluice::db {
// The access module's migrations (server/access/store/migrations).
const MigrationSet& AccessMigrations();
}  // namespace sluice::db

namespace sluice::access {

// The parsed `access:` section.
struct AccessConfig {
  absl::Duration resource_sync_interval = absl::Hours(2);
  absl::Duration grant_expiry_interval = absl::Minutes(1);
  // Settle provider operations a crash left in flight (security review M2).
  absl::Duration reconcile_interval = absl::Minutes(1);
  absl::Duration max_grant_duration = absl::Hours(2160);
  auth::AdminList admins;  // `admins` (identities) and `admin_groups`
};

// Parses the section (Null → defaults). InvalidArgument naming the key for an
// unknown key, a bad duration or an admins entry that is not a string list.
absl::StatusOr<AccessConfig> ParseAccessConfig(const YAML::Node& node);

// The module table's factory (server/modules.cc).
absl::StatusOr<std::unique_ptr<server::Module>> CreateModule(const server::ModuleContext& ctx);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_MODULE_H_
