#include "server/notification/core/alerting.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/notification/core/go_template.h"

namespace sluice::notification {

namespace {

bool IsUrnLike(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

absl::Status CheckName(absl::string_view field, absl::string_view v) {
  if (IsUrnLike(v)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": \"", v, "\" must match ^[A-Za-z0-9_-]+$"));
}

absl::Status CheckHost(absl::string_view host) {
  if ((absl::StartsWith(host, "http://") && host.size() > 7) ||
      (absl::StartsWith(host, "https://") && host.size() > 8)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("host: \"", host, "\" must be an http:// or https:// URL"));
}

absl::Status CheckCredentials(const nlohmann::json& c, absl::string_view field) {
  if (!c.is_null() && !c.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": must be an object"));
  }
  for (auto it = c.begin(); c.is_object() && it != c.end(); ++it) {
    if (it->is_string()) {
      if (auto st = Crypter::RejectCiphertext(absl::StrCat(field, ".", it.key()),
                                              it->get<std::string>());
          !st.ok()) {
        return st;
      }
    }
  }
  return absl::OkStatus();
}

nlohmann::json Masked(const nlohmann::json& c) {
  nlohmann::json out = nlohmann::json::object();
  for (auto it = c.begin(); c.is_object() && it != c.end(); ++it) out[it.key()] = kMaskedSecret;
  return out;
}

// `given` with every "*****" value replaced by the stored one.
nlohmann::json KeepMasked(nlohmann::json given, const nlohmann::json& stored) {
  if (!given.is_object()) return nlohmann::json::object();
  for (auto it = given.begin(); it != given.end(); ++it) {
    if (it->is_string() && it->get<std::string>() == kMaskedSecret && stored.contains(it.key())) {
      *it = stored[it.key()];
    }
  }
  return given;
}

// A provider's credentials are bound to its host: when `given` moves the
// provider to another host, every stored credential must come again in
// plain text (a "*****" or an omitted one is refused), so a stored secret is
// never sent to a new destination. The receivers' rule (ReceiverService::
// Update); review R3 "Info and hardening".
absl::Status CredentialsFollowHost(const AlertProvider& given, const AlertProvider& stored) {
  if (given.host == stored.host) return absl::OkStatus();
  for (auto it = stored.credentials.begin();
       stored.credentials.is_object() && it != stored.credentials.end(); ++it) {
    const nlohmann::json* v = given.credentials.is_object() && given.credentials.contains(it.key())
                                  ? &given.credentials[it.key()]
                                  : nullptr;
    if (v == nullptr || (v->is_string() && v->get<std::string>() == kMaskedSecret)) {
      return absl::InvalidArgumentError(
          absl::StrCat("credentials.", it.key(),
                       ": must be supplied again (in plain text) when host changes (a stored "
                       "secret is never sent to a new destination)"));
    }
  }
  return absl::OkStatus();
}

std::string ProviderContext(const AlertProvider& p) {
  return absl::StrCat("alerting/providers/", p.host, "/credentials");
}
std::string NamespaceContext(const AlertNamespace& n) {
  return absl::StrCat("alerting/namespaces/", n.provider_id, "/", n.urn, "/credentials");
}

absl::Status CheckStringMap(const nlohmann::json& rule, const char* key, const std::string& at) {
  if (!rule.contains(key)) return absl::OkStatus();
  const nlohmann::json& m = rule[key];
  if (!m.is_object()) return absl::InvalidArgumentError(absl::StrCat(at, ".", key, ": want a map"));
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->is_string() && !it->is_number() && !it->is_boolean()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".", key, ".", it.key(), ": want a string"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePrometheusRules(const nlohmann::json& rules, absl::string_view what) {
  if (!rules.is_array()) return absl::InvalidArgumentError(absl::StrCat(what, ": want a list of rules"));
  static const std::set<std::string> kKeys = {"alert", "record", "expr", "for", "labels",
                                              "annotations", "keep_firing_for"};
  for (size_t i = 0; i < rules.size(); ++i) {
    const nlohmann::json& r = rules[i];
    std::string at = absl::StrCat(what, "[", i, "]");
    if (!r.is_object()) return absl::InvalidArgumentError(absl::StrCat(at, ": want a mapping"));
    for (auto it = r.begin(); it != r.end(); ++it) {
      if (kKeys.count(it.key()) == 0) {
        return absl::InvalidArgumentError(absl::StrCat(at, ".", it.key(), ": unknown field"));
      }
    }
    bool alert = r.contains("alert"), record = r.contains("record");
    if (alert == record) {
      return absl::InvalidArgumentError(absl::StrCat(at, ": want exactly one of alert and record"));
    }
    const nlohmann::json& name = alert ? r["alert"] : r["record"];
    if (!name.is_string() || name.get<std::string>().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".", alert ? "alert" : "record", ": want a non-empty string"));
    }
    if (!r.contains("expr") || !r["expr"].is_string() || r["expr"].get<std::string>().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(at, ".expr: want a non-empty expression"));
    }
    if (r.contains("for")) {
      if (!alert) return absl::InvalidArgumentError(absl::StrCat(at, ".for: only alerts have for"));
      absl::Duration d;
      if (!r["for"].is_string() || !absl::ParseDuration(r["for"].get<std::string>(), &d)) {
        return absl::InvalidArgumentError(absl::StrCat(at, ".for: want a duration such as 5m"));
      }
    }
    if (record && r.contains("annotations")) {
      return absl::InvalidArgumentError(absl::StrCat(at, ".annotations: only alerts have them"));
    }
    if (auto st = CheckStringMap(r, "labels", at); !st.ok()) return st;
    if (auto st = CheckStringMap(r, "annotations", at); !st.ok()) return st;
  }
  return absl::OkStatus();
}

std::vector<RuleVariable> MergeRuleVariables(const std::vector<TemplateVariable>& declared,
                                             const std::vector<RuleVariable>& given) {
  std::vector<RuleVariable> out;
  for (const TemplateVariable& d : declared) {
    const RuleVariable* match = nullptr;
    for (const RuleVariable& g : given) {
      if (g.name == d.name) match = &g;  // the last one, as Siren's loop
    }
    if (match != nullptr) {
      out.push_back(*match);
    } else {
      out.push_back({d.name, d.default_value, d.type, d.description});
    }
  }
  return out;
}

absl::StatusOr<std::string> AlertingService::Seal(const nlohmann::json& c,
                                                  const std::string& context) const {
  if (!c.is_object() || c.empty()) return std::string();
  return crypter_->Encrypt(c.dump(), context);
}

absl::StatusOr<nlohmann::json> AlertingService::Open(const std::string& sealed,
                                                     const std::string& context) const {
  if (sealed.empty()) return nlohmann::json::object();
  auto plain = crypter_->Decrypt(sealed, context);
  if (!plain.ok()) return plain.status();
  auto j = nlohmann::json::parse(*plain, nullptr, false);
  if (!j.is_object()) return absl::InternalError("stored credentials are not an object");
  return j;
}

absl::StatusOr<RuleBackend*> AlertingService::Backend(absl::string_view type) {
  auto it = backends_.find(std::string(type));
  if (it == backends_.end() || it->second == nullptr) {
    std::string known;
    for (const auto& [name, b] : backends_) {
      if (b != nullptr) absl::StrAppend(&known, known.empty() ? "" : ", ", name);
    }
    return absl::InvalidArgumentError(absl::StrCat("type: unsupported provider type \"", type,
                                                   "\" (this server serves: ", known, ")"));
  }
  return it->second;
}

// ---- Providers ----

absl::StatusOr<uint64_t> AlertingService::CreateProvider(AlertProvider p) {
  if (auto st = CheckHost(p.host); !st.ok()) return st;
  if (auto st = CheckName("urn", p.urn); !st.ok()) return st;
  if (auto st = CheckName("name", p.name); !st.ok()) return st;
  if (auto b = Backend(p.type); !b.ok()) return b.status();
  if (auto st = CheckCredentials(p.credentials, "credentials"); !st.ok()) return st;
  auto sealed = Seal(p.credentials, ProviderContext(p));
  if (!sealed.ok()) return sealed.status();
  return repo_->CreateProvider(p, *sealed);
}

absl::StatusOr<AlertProvider> AlertingService::LoadProvider(uint64_t id) {
  std::string sealed;
  auto p = repo_->GetProvider(id, &sealed);
  if (!p.ok()) return p.status();
  auto c = Open(sealed, ProviderContext(*p));
  if (!c.ok()) return c.status();
  p->credentials = *c;
  return p;
}

absl::StatusOr<AlertProvider> AlertingService::GetProvider(uint64_t id) {
  auto p = LoadProvider(id);
  if (!p.ok()) return p.status();
  p->credentials = Masked(p->credentials);
  return p;
}

absl::StatusOr<std::vector<AlertProvider>> AlertingService::ListProviders(absl::string_view urn,
                                                                          absl::string_view type) {
  auto list = repo_->ListProviders(urn, type);
  if (!list.ok()) return list.status();
  // Lists carry no credentials: load each to mask its keys.
  for (AlertProvider& p : *list) {
    auto full = LoadProvider(p.id);
    if (!full.ok()) return full.status();
    p.credentials = Masked(full->credentials);
  }
  return list;
}

absl::Status AlertingService::UpdateProvider(AlertProvider p) {
  auto current = LoadProvider(p.id);
  if (!current.ok()) return current.status();
  if (auto st = CheckHost(p.host); !st.ok()) return st;
  if (auto st = CheckName("name", p.name); !st.ok()) return st;
  if (p.type.empty()) p.type = current->type;
  if (auto b = Backend(p.type); !b.ok()) return b.status();
  if (auto st = CheckCredentials(p.credentials, "credentials"); !st.ok()) return st;
  p.urn = current->urn;
  if (auto st = CredentialsFollowHost(p, *current); !st.ok()) return st;
  p.credentials = KeepMasked(p.credentials, current->credentials);
  auto sealed = Seal(p.credentials, ProviderContext(p));
  if (!sealed.ok()) return sealed.status();
  return repo_->UpdateProvider(p, *sealed);
}

absl::Status AlertingService::DeleteProvider(uint64_t id) { return repo_->DeleteProvider(id); }

// ---- Namespaces ----

absl::Status AlertingService::SyncRoutesOf(absl::string_view type) {
  auto backend = Backend(type);
  if (!backend.ok()) return backend.status();
  auto providers = repo_->ListProviders("", type);
  if (!providers.ok()) return providers.status();
  std::vector<NamespaceRoute> routes;
  for (const AlertProvider& p : *providers) {
    auto list = repo_->ListNamespaces(p.id);
    if (!list.ok()) return list.status();
    for (const AlertNamespace& n : *list) routes.push_back({p, n});
  }
  return (*backend)->SyncRoutes(routes);
}

absl::StatusOr<uint64_t> AlertingService::CreateNamespace(AlertNamespace n) {
  if (auto st = CheckName("urn", n.urn); !st.ok()) return st;
  if (auto st = CheckName("name", n.name); !st.ok()) return st;
  if (auto st = CheckCredentials(n.credentials, "credentials"); !st.ok()) return st;
  if (n.provider_id == 0) return absl::InvalidArgumentError("provider: provider id is required");
  auto p = LoadProvider(n.provider_id);
  if (absl::IsNotFound(p.status())) {
    return absl::NotFoundError(absl::StrCat("provider: no provider ", n.provider_id));
  }
  if (!p.ok()) return p.status();
  auto sealed = Seal(n.credentials, NamespaceContext(n));
  if (!sealed.ok()) return sealed.status();
  auto id = repo_->CreateNamespace(n, *sealed);
  if (!id.ok()) return id.status();
  if (auto st = SyncRoutesOf(p->type); !st.ok()) {
    (void)repo_->DeleteNamespace(*id);
    return st;
  }
  return id;
}

absl::StatusOr<AlertNamespace> AlertingService::LoadNamespace(uint64_t id) {
  std::string sealed;
  auto n = repo_->GetNamespace(id, &sealed);
  if (!n.ok()) return n.status();
  auto c = Open(sealed, NamespaceContext(*n));
  if (!c.ok()) return c.status();
  n->credentials = *c;
  return n;
}

absl::StatusOr<AlertNamespace> AlertingService::GetNamespace(uint64_t id) {
  auto n = LoadNamespace(id);
  if (!n.ok()) return n.status();
  n->credentials = Masked(n->credentials);
  return n;
}

absl::StatusOr<std::vector<AlertNamespace>> AlertingService::ListNamespaces() {
  auto list = repo_->ListNamespaces(0);
  if (!list.ok()) return list.status();
  for (AlertNamespace& n : *list) {
    auto full = LoadNamespace(n.id);
    if (!full.ok()) return full.status();
    n.credentials = Masked(full->credentials);
  }
  return list;
}

absl::Status AlertingService::UpdateNamespace(AlertNamespace n) {
  auto current = LoadNamespace(n.id);
  if (!current.ok()) return current.status();
  if (auto st = CheckName("name", n.name); !st.ok()) return st;
  if (auto st = CheckCredentials(n.credentials, "credentials"); !st.ok()) return st;
  if (n.provider_id != 0 && n.provider_id != current->provider_id) {
    return absl::InvalidArgumentError(
        "provider: a namespace stays with its provider (delete and create it instead)");
  }
  n.provider_id = current->provider_id;
  n.urn = current->urn;
  n.credentials = KeepMasked(n.credentials, current->credentials);
  auto sealed = Seal(n.credentials, NamespaceContext(n));
  if (!sealed.ok()) return sealed.status();
  return repo_->UpdateNamespace(n, *sealed);
}

absl::Status AlertingService::DeleteNamespace(uint64_t id) {
  auto n = repo_->GetNamespace(id, nullptr);
  if (!n.ok()) return n.status();
  auto p = repo_->GetProvider(n->provider_id, nullptr);
  if (!p.ok()) return p.status();
  auto backend = Backend(p->type);
  if (!backend.ok()) return backend.status();
  // The store refuses too (in its transaction); asking first keeps the
  // provider's side untouched in the common case.
  AlertRuleFilter f;
  f.namespace_id = id;
  auto rules = repo_->ListRules(f);
  if (!rules.ok()) return rules.status();
  int enabled = 0;
  for (const AlertRule& r : *rules) enabled += r.enabled ? 1 : 0;
  if (enabled > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("namespace ", id, " has ", enabled, " enabled rule(s): disable them first"));
  }
  // The tenant's config holds the namespace's hook token: it goes first, so
  // a refusal leaves everything as it was (review R3-M2).
  if (auto st = (*backend)->RemoveRoute({*p, *n}); !st.ok()) return st;
  if (auto st = repo_->DeleteNamespace(id); !st.ok()) {
    (void)SyncRoutesOf(p->type);  // put the route back
    return st;
  }
  return SyncRoutesOf(p->type);
}

absl::Status AlertingService::CheckHookNamespace(absl::string_view type, uint64_t provider_id,
                                                 uint64_t namespace_id) {
  auto missing = [&] {
    return absl::NotFoundError(absl::StrCat("alert hook ", type, "/", provider_id, "/",
                                            namespace_id, ": no namespace ", namespace_id,
                                            " of alert provider ", type, "/", provider_id));
  };
  auto n = repo_->GetNamespace(namespace_id, nullptr);
  if (absl::IsNotFound(n.status())) return missing();
  if (!n.ok()) return n.status();
  if (n->provider_id != provider_id) return missing();
  auto p = repo_->GetProvider(provider_id, nullptr);
  if (absl::IsNotFound(p.status())) return missing();
  if (!p.ok()) return p.status();
  if (p->type != type) return missing();
  return absl::OkStatus();
}

// ---- Rules ----

absl::StatusOr<std::map<std::string, RuleGroups>> AlertingService::RenderGroups(
    const std::vector<AlertRule>& rules) {
  // Groups keep the order of their first rule; rules within a group too.
  std::map<std::string, RuleGroups> out;
  for (const AlertRule& r : rules) {
    if (!r.enabled) continue;
    auto t = templates_->Get(r.template_name);
    if (!t.ok()) return t.status();
    nlohmann::json vars = nlohmann::json::object();
    for (const RuleVariable& v : r.variables) vars[v.name] = v.value;
    auto text = RenderGoTemplateBody(*t, vars);
    if (!text.ok()) return text.status();
    auto list = YamlToJson(*text);
    if (!list.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("template ", r.template_name, ": rendered rules: ", list.status().message()));
    }
    if (auto st = ValidatePrometheusRules(*list, absl::StrCat("template ", r.template_name));
        !st.ok()) {
      return st;
    }
    RuleGroups& groups = out[r.rule_namespace];
    nlohmann::json* group = nullptr;
    for (nlohmann::json& g : groups) {
      if (g["name"] == r.group_name) group = &g;
    }
    if (group == nullptr) {
      groups.push_back({{"name", r.group_name}, {"rules", nlohmann::json::array()}});
      group = &groups.back();
    }
    for (const nlohmann::json& rule : *list) (*group)["rules"].push_back(rule);
  }
  return out;
}

absl::StatusOr<AlertRule> AlertingService::UpsertRule(AlertRule r) {
  if (r.namespace_id == 0) {
    return absl::InvalidArgumentError("provider_namespace: namespace id is required");
  }
  if (r.group_name.empty()) return absl::InvalidArgumentError("group_name: is required");
  if (r.rule_namespace.empty()) return absl::InvalidArgumentError("namespace: is required");
  if (auto st = CheckName("template", r.template_name); !st.ok()) return st;
  auto ns = LoadNamespace(r.namespace_id);
  if (absl::IsNotFound(ns.status())) {
    return absl::InvalidArgumentError(
        absl::StrCat("provider_namespace: no namespace ", r.namespace_id));
  }
  if (!ns.ok()) return ns.status();
  auto p = LoadProvider(ns->provider_id);
  if (!p.ok()) return p.status();
  auto backend = Backend(p->type);
  if (!backend.ok()) return backend.status();
  auto t = templates_->Get(r.template_name);
  if (absl::IsNotFound(t.status())) {
    return absl::NotFoundError(absl::StrCat("template: no template \"", r.template_name, "\""));
  }
  if (!t.ok()) return t.status();
  if (t->engine != kEngineGo) {
    return absl::InvalidArgumentError(
        absl::StrCat("template: \"", r.template_name, "\" is not a rule template (engine go)"));
  }
  r.variables = MergeRuleVariables(t->variables, r.variables);
  // Siren's name: siren_api_<provider urn>_<namespace urn>_<ruler namespace>_<group>_<template>.
  r.name = absl::StrCat("siren_api_", p->urn, "_", ns->urn, "_", r.rule_namespace, "_",
                        r.group_name, "_", r.template_name);

  AlertRuleFilter f;
  f.namespace_id = r.namespace_id;
  auto stored = repo_->ListRules(f);
  if (!stored.ok()) return stored.status();
  std::vector<AlertRule> next;
  bool replaced = false;
  std::set<std::string> rule_namespaces;
  for (const AlertRule& s : *stored) {
    rule_namespaces.insert(s.rule_namespace);
    if (s.name == r.name) {
      next.push_back(r);
      replaced = true;
    } else {
      next.push_back(s);
    }
  }
  if (!replaced) next.push_back(r);
  auto groups = RenderGroups(next);
  if (!groups.ok()) return groups.status();
  // A ruler namespace left without enabled rules is sent empty (removed).
  rule_namespaces.insert(r.rule_namespace);
  for (const std::string& rn : rule_namespaces) (*groups)[rn];
  if (auto st = (*backend)->SyncRules(*p, *ns, *groups); !st.ok()) return st;
  auto saved = repo_->UpsertRule(r);
  if (!saved.ok()) {
    // Put the provider back as the stored rules have it.
    auto before = RenderGroups(*stored);
    if (before.ok()) {
      for (const std::string& rn : rule_namespaces) (*before)[rn];
      (void)(*backend)->SyncRules(*p, *ns, *before);
    }
  }
  return saved;
}

absl::StatusOr<std::vector<AlertRule>> AlertingService::ListRules(const AlertRuleFilter& filter) {
  return repo_->ListRules(filter);
}

}  // namespace sluice::notification
