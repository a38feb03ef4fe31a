// Siren's alerting side (issue #31): alert providers, their namespaces
// (tenants) and rules rendered from rule templates, as Siren's core/provider,
// core/namespace and core/rule. A provider type ("prometheus", "cortex") is
// one RuleBackend, which holds the rule groups and the Alertmanager route of
// each namespace on the provider's side.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_ALERTING_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_ALERTING_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/crypto.h"
#include "nlohmann/json.hpp"
#include "server/notification/core/catalog.h"
#include "server/notification/core/model.h"

namespace sluice::notification {

// An alert provider (Siren's core/provider.Provider). `credentials` is the
// plaintext object in the service and encrypted text in the repository.
struct AlertProvider {
  uint64_t id = 0;
  std::string host, urn, name, type;
  nlohmann::json credentials = nlohmann::json::object();
  Labels labels;
  absl::Time created_at, updated_at;
};

// A namespace of a provider (Siren's core/namespace.Namespace): a tenant.
struct AlertNamespace {
  uint64_t id = 0;
  std::string urn, name;
  uint64_t provider_id = 0;
  nlohmann::json credentials = nlohmann::json::object();
  Labels labels;
  absl::Time created_at, updated_at;
};

// One variable of a rule (Siren's core/rule.RuleVariable).
struct RuleVariable {
  std::string name, value, type, description;
};

// A rule (Siren's core/rule.Rule): `template` rendered with `variables`
// into group `group_name` of ruler namespace `rule_namespace`, in namespace
// `namespace_id`. `name` is Siren's unique key.
struct AlertRule {
  uint64_t id = 0;
  std::string name;
  bool enabled = false;
  std::string group_name, rule_namespace, template_name;
  std::vector<RuleVariable> variables;
  uint64_t namespace_id = 0;
  absl::Time created_at, updated_at;
};

// ListRules filter (Siren's rule.Filter); empty / 0 parts match all.
struct AlertRuleFilter {
  std::string name, rule_namespace, group_name, template_name;
  uint64_t namespace_id = 0;
};

// Storage of providers, namespaces and rules. Credentials are stored as
// given (the service encrypts them). NotFound for unknown ids;
// AlreadyExists for a duplicate urn (provider) / (provider, urn) namespace;
// FailedPrecondition deleting a provider with namespaces or a namespace
// with rules.
class AlertingRepository {
 public:
  virtual ~AlertingRepository() = default;
  virtual absl::StatusOr<uint64_t> CreateProvider(const AlertProvider& p,
                                                  const std::string& credentials) = 0;
  // Returns the stored credentials text in `*credentials` when non-null.
  virtual absl::StatusOr<AlertProvider> GetProvider(uint64_t id, std::string* credentials) = 0;
  virtual absl::StatusOr<std::vector<AlertProvider>> ListProviders(absl::string_view urn,
                                                                   absl::string_view type) = 0;
  virtual absl::Status UpdateProvider(const AlertProvider& p, const std::string& credentials) = 0;
  virtual absl::Status DeleteProvider(uint64_t id) = 0;

  virtual absl::StatusOr<uint64_t> CreateNamespace(const AlertNamespace& n,
                                                   const std::string& credentials) = 0;
  virtual absl::StatusOr<AlertNamespace> GetNamespace(uint64_t id, std::string* credentials) = 0;
  // All namespaces (provider_id 0) or those of one provider, by id.
  virtual absl::StatusOr<std::vector<AlertNamespace>> ListNamespaces(uint64_t provider_id) = 0;
  virtual absl::Status UpdateNamespace(const AlertNamespace& n, const std::string& credentials) = 0;
  virtual absl::Status DeleteNamespace(uint64_t id) = 0;

  virtual absl::StatusOr<std::vector<AlertRule>> ListRules(const AlertRuleFilter& filter) = 0;
  // Inserts or replaces the rule with r.name; returns it as stored.
  virtual absl::StatusOr<AlertRule> UpsertRule(const AlertRule& r) = 0;
};

// A Prometheus rule group: {"name": ..., "rules": [{alert|record, expr,
// for?, labels?, annotations?}...]} (Prometheus's rulefmt).
using RuleGroups = std::vector<nlohmann::json>;

// A namespace with its provider (credentials of neither are loaded).
struct NamespaceRoute {
  AlertProvider provider;
  AlertNamespace ns;
};

// One provider type's side of the loop (Siren's RuleUploader and
// ConfigSyncer). Errors name the provider's answer by its HTTP status only,
// never its body (review R3-L2).
class RuleBackend {
 public:
  virtual ~RuleBackend() = default;
  // Replaces every rule group of namespace `ns` on the provider with
  // `groups` (by ruler namespace: rule_namespace -> groups); a ruler
  // namespace with no groups left is removed. On error the provider's
  // rules are as they were.
  virtual absl::Status SyncRules(const AlertProvider& provider, const AlertNamespace& ns,
                                 const std::map<std::string, RuleGroups>& groups) = 0;
  // Makes the Alertmanager(s) route the alerts of every namespace in
  // `routes` (all namespaces of all providers of this type) to Sluice's hook
  // /v1beta1/alerts/{type}/{provider_id}/{namespace_id}, each with the
  // namespace's own hook token (hook_token.h); FailedPrecondition, before
  // anything is written, when a provider has no hook secret.
  virtual absl::Status SyncRoutes(const std::vector<NamespaceRoute>& routes) = 0;
  // Removes Sluice's route of `route` (a namespace being deleted) from the
  // provider's side where SyncRoutes of the others would not (a tenant's
  // own config); nothing changed on error.
  virtual absl::Status RemoveRoute(const NamespaceRoute& route) = 0;
};

// Provider types -> backends (a provider of another type is refused).
using RuleBackends = std::map<std::string, RuleBackend*>;

// Checks one rendered rule list (Prometheus rulefmt): each rule has `expr`
// (non-empty string) and exactly one of `alert` / `record`; `for` only on
// alerts; labels and annotations string maps. InvalidArgument naming
// "<what>[i].<field>".
absl::Status ValidatePrometheusRules(const nlohmann::json& rules, absl::string_view what);

// Siren's mergeRuleVariablesWithDefaults: one variable per template
// variable, the rule's if it names it, else the template's default.
std::vector<RuleVariable> MergeRuleVariables(const std::vector<TemplateVariable>& declared,
                                             const std::vector<RuleVariable>& given);

// The service behind Siren's provider, namespace and rule routes.
class AlertingService {
 public:
  AlertingService(AlertingRepository* repo, TemplateService* templates, const Crypter* crypter,
                  RuleBackends backends)
      : repo_(repo), templates_(templates), crypter_(crypter), backends_(std::move(backends)) {}

  // InvalidArgument for a bad host (http/https URL), urn or name
  // (^[A-Za-z0-9_-]+$), an unknown type or non-object credentials.
  absl::StatusOr<uint64_t> CreateProvider(AlertProvider p);
  // Credentials masked ("*****" values).
  absl::StatusOr<AlertProvider> GetProvider(uint64_t id);
  absl::StatusOr<std::vector<AlertProvider>> ListProviders(absl::string_view urn,
                                                           absl::string_view type);
  // urn stays; a credentials value "*****" keeps the stored one, unless
  // the host changes: then every stored credential must come again in plain
  // text (InvalidArgument naming it), as receivers' secrets do.
  absl::Status UpdateProvider(AlertProvider p);
  absl::Status DeleteProvider(uint64_t id);

  // Stores the namespace, then registers its route (SyncRoutes); a failed
  // registration removes it again and names the provider's status.
  absl::StatusOr<uint64_t> CreateNamespace(AlertNamespace n);
  absl::StatusOr<AlertNamespace> GetNamespace(uint64_t id);
  absl::StatusOr<std::vector<AlertNamespace>> ListNamespaces();
  absl::Status UpdateNamespace(AlertNamespace n);
  // Removes Sluice's route from the provider's side first (RemoveRoute:
  // for cortex, the tenant's Alertmanager config, which holds the
  // namespace's hook token), then the namespace, then syncs the remaining
  // routes. FailedPrecondition with enabled rules (nothing changed), or
  // naming the provider's status when the removal is refused (nothing
  // changed either; try again).
  absl::Status DeleteNamespace(uint64_t id);

  // The namespace hook's check (review R3-M2): OK when namespace
  // `namespace_id` exists and belongs to provider `provider_id` of type
  // `type`; NotFound otherwise (a deleted namespace included), so no alert
  // is taken for a namespace of another provider or none.
  absl::Status CheckHookNamespace(absl::string_view type, uint64_t provider_id,
                                  uint64_t namespace_id);

  // Siren's rule Upsert (core/rule/service.go): merges variables with the
  // template's defaults, names the rule, renders the namespace's whole rule
  // set with it (disabled rules left out), validates it, uploads it
  // (SyncRules), and stores the rule only then: a failed upload leaves the
  // stored rule and the provider as they were.
  absl::StatusOr<AlertRule> UpsertRule(AlertRule r);
  absl::StatusOr<std::vector<AlertRule>> ListRules(const AlertRuleFilter& filter);

 private:
  absl::StatusOr<AlertProvider> LoadProvider(uint64_t id);
  absl::StatusOr<AlertNamespace> LoadNamespace(uint64_t id);
  absl::StatusOr<RuleBackend*> Backend(absl::string_view type);
  absl::Status SyncRoutesOf(absl::string_view type);
  // The rule groups of `rules` (enabled ones), by ruler namespace.
  absl::StatusOr<std::map<std::string, RuleGroups>> RenderGroups(
      const std::vector<AlertRule>& rules);
  absl::StatusOr<std::string> Seal(const nlohmann::json& credentials,
                                   const std::string& context) const;
  absl::StatusOr<nlohmann::json> Open(const std::string& sealed, const std::string& context) const;

  AlertingRepository* repo_;
  TemplateService* templates_;
  const Crypter* crypter_;
  RuleBackends backends_;
};

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_ALERTING_H_
