// The access-management API as a sluice-server module (server/module.h):
// policies, providers, resources, audit logs; its jobs (server/jobs.h).
//
// Config section `access:` (all optional): the keys, their defaults and what
// they do are kAccessConfigKeys below.
#ifndef SLUICE_SERVER_ACCESS_MODULE_H_
#define SLUICE_SERVER_ACCESS_MODULE_H_

#include <map>
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
  // slack_interactions: Slack signing secrets by workspace (team) id, for
  // approving and rejecting from Slack (issue 44). Empty: no buttons, and
  // /slack/interactions refuses every request.
  std::map<std::string, std::string> slack_signing_secrets;
};

// The largest access.max_page_size accepted.
inline constexpr int kMaxListPageSize = 100000;

// Every key of the `access:` section (server::ConfigKeyDoc; the docs table
// of docs/configuration.md is generated from this list, one entry per line
// group, string literals only).
inline constexpr server::ConfigKeyDoc kAccessConfigKeys[] = {
    {"resource_sync_interval", "2h",
     "job `fetch_resources`: re-fetch every provider's resources (one replica runs it, under a "
     "Postgres advisory lock held on a connection of its own, outside `db.pool_size`)"},
    {"grant_expiry_interval", "1m", "job `revoke_expired_grants`: revoke grants past their "
                                    "expiration date"},
    {"reconcile_interval", "1m",
     "job `reconcile`: settle provider operations a crash left in flight (see Security model)"},
    {"max_grant_duration", "2160h",
     "longest `options.duration` an appeal may ask for when its policy lists no "
     "`duration_options` (longer: 400); also caps an admin's new `expiration_date` on restore, "
     "together with the policy's longest option"},
    {"admins", "[]", "identities of access admins (see [Security model](security.md))"},
    {"admin_groups", "[]",
     "JWT groups (`auth.jwt.groups_claim`) whose members are access admins"},
    {"max_page_size", "1000",
     "rows of a list page when `size` is unset, and the largest `size` accepted (1–100000); see "
     "[Access API](access-api.md)"},
    {"read_scope", "own",
     "`own`: a non-admin lists only the appeals, approvals and grants they hold, own, created or "
     "approve; `all`: every authenticated caller lists all of them, as in Guardian (see "
     "[Security model](security.md))"},
    {"slack_interactions", "[]",
     "`[{team_id, signing_secret_file | signing_secret_env}]`: Slack workspaces whose approvers "
     "approve or reject from Slack, each with its Slack app's signing secret; approver "
     "notifications to their slack receivers get Approve and Reject buttons (see [Approve or "
     "reject from Slack](access-api.md#approve-or-reject-from-slack))"},
    {"notifications.disabled_events", "[]",
     "access event types never sent (see [Access "
     "notifications](notifications.md#access-notifications)), e.g. `[appeal.approved, "
     "grant.expiring]`; an unknown type is rejected at startup naming the key"},
    {"notifications.expiring_grant_days", "[7, 3, 1]",
     "job `expiring_grant_notification`: remind a grant's holder when its expiration is this "
     "many days away (Guardian's thresholds)"},
    {"notifications.expiring_grant_interval", "24h",
     "how often `expiring_grant_notification` runs (`0s`: on demand only)"},
    {"notifications.pending_approval_age", "24h",
     "job `pending_approvals_reminder`: remind the current approvers of appeals pending longer "
     "than this"},
    {"notifications.pending_reminder_interval", "24h",
     "how often `pending_approvals_reminder` runs (`0s`: on demand only)"},
    {"notifications.poll_interval", "1s",
     "the event dispatcher's outbox poll when idle (a local commit wakes it at once)"},
    {"notifications.max_attempts", "10",
     "tries of a transient failure (backoff 1 s doubling, capped at 5 min) before an event is "
     "settled as `failed`"},
};

// Parses the section (Null → defaults). InvalidArgument naming the key for an
// unknown key, a bad duration, an admins entry that is not a string list, an
// unknown event type in notifications.disabled_events or a non-positive
// notifications.expiring_grant_days entry.
absl::StatusOr<AccessConfig> ParseAccessConfig(const YAML::Node& node);

// The module table's factory (server/modules.cc).
absl::StatusOr<std::unique_ptr<server::Module>> CreateModule(const server::ModuleContext& ctx);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_MODULE_H_
