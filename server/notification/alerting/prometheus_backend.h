// The "prometheus" alert provider type (issue #31; not in Siren): for teams
// without Cortex. Rule groups go to one file per namespace in a directory
// Prometheus loads (rule_files: ["<rules_dir>/*.yml"]), then
// POST {provider host}/-/reload; the Alertmanager config is written to its
// file, then POST {alertmanager_url}/-/reload. Prometheus needs
// --web.enable-lifecycle (Alertmanager 0.25 serves /-/reload as is). Paths are server configuration only
// (notification.prometheus), never API fields. Files are written as JSON
// (a subset of YAML), confined to their directory: names are made here
// from ids, no symlink is followed (O_NOFOLLOW, openat on the directory),
// and each write is an atomic rename of a fresh file.
#ifndef SLUICE_SERVER_NOTIFICATION_ALERTING_PROMETHEUS_BACKEND_H_
#define SLUICE_SERVER_NOTIFICATION_ALERTING_PROMETHEUS_BACKEND_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/http_client.h"
#include "nlohmann/json.hpp"
#include "server/notification/core/alerting.h"
#include "server/notification/core/hook_token.h"

namespace sluice::notification::alerting {

// notification.prometheus settings.
struct PrometheusOptions {
  std::string rules_dir;                 // absolute, existing directory
  std::string alertmanager_config_file;  // absolute; its directory exists
  std::string alertmanager_url;          // http(s) base URL of Alertmanager
  // Base URL at which Alertmanager reaches Sluice's hook (the gateway),
  // from notification.alert_hook_base_url.
  std::string hook_base_url;
  // Alertmanager's route timings (Alertmanager duration strings).
  std::string group_wait = "30s";
  std::string group_interval = "5m";
  std::string repeat_interval = "4h";
};

// The label every alerting rule of a namespace carries, "<provider_id>/
// <namespace_id>", on which the Alertmanager config routes it.
inline constexpr char kNamespaceLabel[] = "sluice_namespace";

// The rule file of a namespace: {"groups": [...]} with each group named
// "<ruler namespace>/<group>" and kNamespaceLabel added to every alert.
nlohmann::json PrometheusRuleFile(const AlertNamespace& ns,
                                  const std::map<std::string, RuleGroups>& groups);

// The whole Alertmanager config routing each namespace's alerts to
// {hook_base_url}/v1beta1/alerts/prometheus/{provider_id}/{namespace_id},
// with that namespace's own bearer token (NamespaceHookTokenFor, from
// hook_secrets) in http_config; alerts of no namespace go to a receiver
// without destinations. FailedPrecondition when a route's provider has no
// secret.
absl::StatusOr<nlohmann::json> AlertmanagerConfig(const PrometheusOptions& options,
                                                  const AlertHookSecrets& hook_secrets,
                                                  const std::vector<NamespaceRoute>& routes);

// The error for a provider's non-2xx answer: FailedPrecondition
// "<what>: HTTP <status> (<fixed description of the status class>)". Never
// the answer's body (review R3-L2): a provider's host is any URL a
// notification admin names, and its answer is not Sluice's to repeat.
absl::Status ProviderRefused(absl::string_view what, long status);

// The mode of every file WriteConfined writes: owner read-write, group
// read, nothing for others (the Alertmanager config holds hook tokens).
inline constexpr mode_t kConfinedFileMode = 0640;

// Writes `content` to `name` in directory `dir`: a fresh temporary file
// (O_EXCL | O_NOFOLLOW, opened relative to the directory, itself opened
// with O_NOFOLLOW) of mode kConfinedFileMode, fsync, renameat over `name`. `*previous` (if non-null)
// gets the file's former content, or nullopt when there was none.
// InvalidArgument for a name with '/' or a leading '.'; Internal on I/O
// errors (naming the file).
absl::Status WriteConfined(const std::string& dir, const std::string& name,
                           const std::string& content,
                           std::optional<std::string>* previous = nullptr);

class PrometheusBackend : public RuleBackend {
 public:
  // `http` and `hook_secrets` outlive the backend.
  PrometheusBackend(PrometheusOptions options, HttpClient* http,
                    const AlertHookSecrets* hook_secrets)
      : options_(std::move(options)), http_(http), hook_secrets_(hook_secrets) {}

  // Writes sluice-p<provider id>-n<namespace id>.rules.yml and reloads the
  // provider's Prometheus; if the reload fails, the former file is put
  // back and the error names Prometheus's status (ProviderRefused).
  absl::Status SyncRules(const AlertProvider& provider, const AlertNamespace& ns,
                         const std::map<std::string, RuleGroups>& groups) override;
  // Writes the Alertmanager config and reloads Alertmanager (the former
  // file is put back when the reload fails).
  absl::Status SyncRoutes(const std::vector<NamespaceRoute>& routes) override;
  // Nothing: the namespace's route leaves the one Alertmanager file with
  // the SyncRoutes of the remaining namespaces that follows.
  absl::Status RemoveRoute(const NamespaceRoute&) override { return absl::OkStatus(); }

 private:
  // POST {base}/-/reload; ProviderRefused naming `what` and the status
  // for a non-2xx answer.
  absl::Status Reload(const std::string& what, const std::string& base);

  PrometheusOptions options_;
  HttpClient* http_;
  const AlertHookSecrets* hook_secrets_;
  absl::Mutex mu_;  // one file write + reload at a time
};

}  // namespace sluice::notification::alerting

#endif  // SLUICE_SERVER_NOTIFICATION_ALERTING_PROMETHEUS_BACKEND_H_
