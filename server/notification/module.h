// The notification API module of sluice-server (row in server/modules.cc).
//
// Config section `notification:` (all optional): the keys, their defaults
// and what they do are kNotificationConfigKeys below.
#ifndef SLUICE_SERVER_NOTIFICATION_MODULE_H_
#define SLUICE_SERVER_NOTIFICATION_MODULE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/module.h"
#include "server/notification/store/store.h"

namespace sluice::notification {


// Every key of the `notification:` section (server::ConfigKeyDoc; the docs
// table of docs/configuration.md is generated from this list, string
// literals only). An empty default means unset.
inline constexpr server::ConfigKeyDoc kNotificationConfigKeys[] = {
    {"workers", "4", "delivery threads per replica (`0`: this replica only accepts)"},
    {"batch_size", "16", "messages claimed per query"},
    {"poll_interval_ms", "1000", "idle wait between queue polls (a local enqueue wakes workers at once)"},
    {"max_tries", "3", "tries before a message is `failed`"},
    {"retry_backoff_ms", "1000", "wait after the first failed try; doubles per try"},
    {"retry_backoff_max_ms", "300000", "the cap of that wait"},
    {"message_validity_seconds", "86400", "a message still undelivered after this is `expired`"},
    {"lease_seconds", "60",
     "a claimed message is claimable again after this (at-least-once delivery)"},
    {"cleanup_interval_seconds", "3600",
     "how often the `cleanup_queue` job runs (`0`: on demand only, `sluice-server job run "
     "cleanup_queue`)"},
    {"queue_retention_seconds", "604800",
     "`cleanup_queue` deletes published messages older than this (Siren's 168h; must be > 0)"},
    {"file_receiver_dir", "",
     "the directory `file` receivers write under (an existing absolute path); unset: the file "
     "receiver type is disabled"},
    {"slack_api_url", "https://slack.com/api",
     "Slack's Web API base URL (http/https) for slack receivers without their own `api_url`, and "
     "for the OAuth code exchange"},
    {"lark_api_url", "https://open.larksuite.com",
     "Lark's open platform base URL (http/https) for lark receivers without their own `api_url`"},
    {"admins", "[]", "notification admins (identities)"},
    {"admin_groups", "[]", "JWT groups whose members are notification admins"},
    {"senders", "[]",
     "who else may `POST /notifications` (identities; `\"*\"`: every caller, for development "
     "only); with `sender_groups` empty too, notification admins only"},
    {"sender_groups", "[]", "JWT groups whose members may `POST /notifications`"},
    {"alert_hook_tokens", "[]",
     "`[{provider: \"<type>/<id>\" | \"*\", token_file | token_env}]`: the bearer tokens of the "
     "alert hook (see [Security model](security.md))"},
    {"alert_hook_secrets", "[]",
     "`[{provider: \"<type>/<id>\" | \"*\", secret_file | secret_env}]` (at least 32 bytes): the "
     "secrets that sign alert hook URLs"},
    {"alert_hook_base_url", "",
     "where Alertmanager reaches Sluice's hook (the gateway's base URL), for namespace routes"},
    {"prometheus.rules_dir", "",
     "the \"prometheus\" alert provider type: the existing directory Prometheus loads rule files "
     "from"},
    {"prometheus.alertmanager_config_file", "",
     "Alertmanager's config file, which Sluice owns (its directory exists)"},
    {"prometheus.alertmanager_url", "", "Alertmanager's base URL (`POST /-/reload`)"},
    {"prometheus.group_wait", "30s", "the namespace routes' `group_wait`"},
    {"prometheus.group_interval", "5m", "the namespace routes' `group_interval`"},
    {"prometheus.repeat_interval", "4h", "the namespace routes' `repeat_interval`"},
};

// The effective settings of a `notification:` section (Null: the defaults),
// one "key=value" per line in kNotificationConfigKeys' order, secrets as
// counts; InvalidArgument as the module's own parse would refuse it.
absl::StatusOr<std::string> DescribeNotificationConfig(const YAML::Node& node);

// Builds the module; InvalidArgument naming a bad `notification:` key.
absl::StatusOr<std::unique_ptr<server::Module>> CreateModule(const server::ModuleContext& ctx);

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_MODULE_H_
