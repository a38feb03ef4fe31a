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
//   max_page_size: 1000          # list page when size is unset, and its largest
//   read_scope: own              # own | all: who lists every appeal/approval/grant
//   notifications:               # access events → notifications (issue 17, section 1)
//     disabled_events: [appeal.approved]  # event types never sent (default: none)
//     expiring_grant_days: [7, 3, 1]      # job expiring_grant_notification's thresholds
//     expiring_grant_interval: 24h        # how often that job runs (0: on demand only)
//     pending_approval_age: 24h           # job pending_approvals_reminder: appeals older
//     pending_reminder_interval: 24h      #   than this, run this often (0: on demand)
//     poll_interval: 1s                   # the dispatcher's outbox poll when idle
//     max_attempts: 10                    # tries before an event is settled as failed
#ifndef SLUICE_SERVER_ACCESS_MODULE_H_
#define SLUICE_SERVER_ACCESS_MODULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/auth/caller.h"
#include "server/access/core/event_outbox.h"
#include "server/module.h"

namespace sluice::db {
// The access module's migrations (server/access/store/migrations).
const MigrationSet& AccessMigrations();
}  // namespace sluice::db

namespace sluice::access {

// The parsed `access.notifications:` section.
struct AccessNotificationConfig {
  EventPolicy events;           // disabled_events
  ReminderSettings reminders;   // expiring_grant_days, pending_approval_age
  absl::Duration expiring_grant_interval = absl::Hours(24);
  absl::Duration pending_reminder_interval = absl::Hours(24);
  DispatchSettings dispatch;    // poll_interval, max_attempts
};

// The parsed `access:` section.
struct AccessConfig {
  absl::Duration resource_sync_interval = absl::Hours(2);
  absl::Duration grant_expiry_interval = absl::Minutes(1);
  // Settle provider operations a crash left in flight (security review M2).
  absl::Duration reconcile_interval = absl::Minutes(1);
  absl::Duration max_grant_duration = absl::Hours(2160);
  auth::AdminList admins;  // `admins` (identities) and `admin_groups`
  AccessNotificationConfig notifications;
  // A list's page when `size` is unset, and the largest `size` accepted.
  int max_page_size = 1000;
  // read_scope: all → every authenticated caller lists every appeal,
  // approval and grant (Guardian); own (default) → non-admins list their
  // own and what they approve.
  bool read_scope_all = false;
};

// The largest access.max_page_size accepted.
inline constexpr int kMaxListPageSize = 100000;

// Parses the section (Null → defaults). InvalidArgument naming the key for an
// unknown key, a bad duration, an admins entry that is not a string list, an
// unknown event type in notifications.disabled_events or a non-positive
// notifications.expiring_grant_days entry.
absl::StatusOr<AccessConfig> ParseAccessConfig(const YAML::Node& node);

// The module table's factory (server/modules.cc).
absl::StatusOr<std::unique_ptr<server::Module>> CreateModule(const server::ModuleContext& ctx);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_MODULE_H_
