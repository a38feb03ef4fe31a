// The notification API module of sluice-server (row in server/modules.cc).
//
// Config section `notification:` (all optional):
//   workers: 4                  delivery threads (0: this replica sends nothing)
//   batch_size: 16              messages claimed per query
//   poll_interval_ms: 1000      idle wait between queue polls
//   max_tries: 3                tries before a message is `failed`
//   retry_backoff_ms: 1000      wait after the first failed try (doubles per try)
//   retry_backoff_max_ms: 300000
//   message_validity_seconds: 86400   waiting longer than this → `expired`
//   lease_seconds: 60           a claimed message returns to the queue after this
//   cleanup_interval_seconds: 3600    how often the cleanup_queue job runs (0: on
//                               demand only: `sluice-server job run cleanup_queue`)
//   queue_retention_seconds: 604800   cleanup_queue deletes published messages
//                               older than this (Siren's 168h; must be > 0)
//   file_receiver_dir: ""       the directory `file` receivers write under (an
//                               existing absolute path); unset or "": the file
//                               receiver type is disabled
//   slack_api_url: https://slack.com/api   Slack's Web API base URL (http/https)
//                               for slack receivers without their own api_url
//                               and for the OAuth code exchange
//   lark_api_url: https://open.larksuite.com   Lark's open platform base URL
//                               for lark receivers without their own api_url
//   admins: [], admin_groups: []    notification admins (identities, JWT groups)
//   senders: [], sender_groups: []  who else may POST /notifications (F-M1;
//                               "*" in senders: every caller, for development);
//                               both empty: notification admins only
//   alert_hook_tokens: []       [{provider, token_file | token_env}]
//   alert_hook_base_url: ""     where Alertmanager reaches Sluice's hook (the
//                               gateway's base URL), for namespace routes
//   prometheus:                 the "prometheus" alert provider type (#31)
//     rules_dir: ""             existing directory Prometheus loads rule files from
//     alertmanager_config_file: ""   Alertmanager's config file (Sluice owns it)
//     alertmanager_url: ""      Alertmanager's base URL (POST /-/reload)
//     group_wait: 30s, group_interval: 5m, repeat_interval: 4h   its route timings
#ifndef SLUICE_SERVER_NOTIFICATION_MODULE_H_
#define SLUICE_SERVER_NOTIFICATION_MODULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "server/module.h"
#include "server/notification/store/store.h"

namespace sluice::notification {

// Builds the module; InvalidArgument naming a bad `notification:` key.
absl::StatusOr<std::unique_ptr<server::Module>> CreateModule(const server::ModuleContext& ctx);

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_MODULE_H_
