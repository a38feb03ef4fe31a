// The "cortex" alert provider type (Siren's plugins/providers/cortex): the
// Cortex/Mimir ruler API and Alertmanager config API of the provider's host,
// one tenant per namespace (X-Scope-OrgID: the namespace's urn, as Siren).
//   rules:  GET/POST /api/v1/rules/{namespace}, DELETE
//           /api/v1/rules/{namespace}/{group} (one YAML rule group per POST)
//   routes: POST /api/v1/alerts {template_files, alertmanager_config};
//           DELETE /api/v1/alerts when the namespace is deleted
// Bodies are JSON, a subset of YAML, sent as application/yaml.
#ifndef SLUICE_SERVER_NOTIFICATION_ALERTING_CORTEX_BACKEND_H_
#define SLUICE_SERVER_NOTIFICATION_ALERTING_CORTEX_BACKEND_H_

#include <map>
#include <string>
#include <vector>

#include "common/http_client.h"
#include "server/notification/alerting/prometheus_backend.h"
#include "server/notification/core/alerting.h"
#include "server/notification/core/hook_token.h"

namespace sluice::notification::alerting {

// The tenant's Alertmanager config: every alert to Sluice's hook
// {hook_base_url}/v1beta1/alerts/cortex/{provider_id}/{namespace_id} with
// that namespace's own bearer token (NamespaceHookTokenFor: derived from
// hook_secrets, never a notification.alert_hook_tokens token, which a tenant
// could read back and use on other hooks); Siren's group_by and the route
// timings of `options`. FailedPrecondition when the provider has no secret.
absl::StatusOr<nlohmann::json> CortexAlertmanagerConfig(const PrometheusOptions& options,
                                                        const AlertHookSecrets& hook_secrets,
                                                        const NamespaceRoute& route);

class CortexBackend : public RuleBackend {
 public:
  // `options` gives hook_base_url and the route timings only. `http` and
  // `hook_secrets` outlive the backend.
  CortexBackend(PrometheusOptions options, HttpClient* http, const AlertHookSecrets* hook_secrets)
      : options_(std::move(options)), http_(http), hook_secrets_(hook_secrets) {}

  // Per ruler namespace: reads the tenant's groups, POSTs each group of
  // `groups`, DELETEs the ones no longer there. On a refusal the groups
  // read first are put back (best effort) and the error names the answer's
  // status (ProviderRefused: never its body).
  absl::Status SyncRules(const AlertProvider& provider, const AlertNamespace& ns,
                         const std::map<std::string, RuleGroups>& groups) override;
  // POSTs each namespace's Alertmanager config to its tenant; every config
  // is made first, so a provider without a hook secret fails the call
  // before any tenant is written.
  absl::Status SyncRoutes(const std::vector<NamespaceRoute>& routes) override;
  // DELETE /api/v1/alerts for the namespace's tenant (Cortex's "Delete
  // Alertmanager configuration"): its config, all Sluice's, goes with the
  // namespace. A tenant without one (404) is fine.
  absl::Status RemoveRoute(const NamespaceRoute& route) override;

 private:
  absl::StatusOr<HttpResult> Send(const std::string& method, const std::string& url,
                                  const std::string& tenant, const std::string& body);
  // The tenant's groups in `rule_namespace`, by name (none: empty).
  absl::StatusOr<std::map<std::string, nlohmann::json>> Groups(const AlertProvider& provider,
                                                               const std::string& tenant,
                                                               const std::string& rule_namespace);

  PrometheusOptions options_;
  HttpClient* http_;
  const AlertHookSecrets* hook_secrets_;
};

}  // namespace sluice::notification::alerting

#endif  // SLUICE_SERVER_NOTIFICATION_ALERTING_CORTEX_BACKEND_H_
