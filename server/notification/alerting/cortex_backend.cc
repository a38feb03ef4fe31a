#include "server/notification/alerting/cortex_backend.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/notification/core/go_template.h"

namespace sluice::notification::alerting {

namespace {

std::string Base(const std::string& host) {
  std::string b = host;
  while (!b.empty() && b.back() == '/') b.pop_back();
  return b;
}

// Percent-encodes a path segment (RFC 3986 unreserved characters stay).
std::string Segment(absl::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "%%%02X", c);
    }
  }
  return out;
}

absl::Status Refused(const std::string& what, const HttpResult& r) {
  return ProviderRefused(what, r.status);
}

bool Ok(const HttpResult& r) { return r.status >= 200 && r.status < 300; }

}  // namespace

absl::StatusOr<nlohmann::json> CortexAlertmanagerConfig(const PrometheusOptions& o,
                                                        const AlertHookSecrets& hook_secrets,
                                                        const NamespaceRoute& r) {
  auto token = NamespaceHookTokenFor(hook_secrets, "cortex", r.provider.id, r.ns.id);
  if (!token.ok()) return token.status();
  std::string base = Base(o.hook_base_url);
  nlohmann::json webhook = {
      {"url", absl::StrCat(base, "/v1beta1/alerts/cortex/", r.provider.id, "/", r.ns.id)},
      {"send_resolved", true},
      {"http_config", {{"authorization", {{"type", "Bearer"}, {"credentials", *token}}}}}};
  return nlohmann::json{
      {"route",
       {{"receiver", "sluice"},
        {"group_by", {"alertname", "severity", "owner", "service_name", "time_stamp", "identifier"}},
        {"group_wait", o.group_wait},
        {"group_interval", o.group_interval},
        {"repeat_interval", o.repeat_interval}}},
      {"receivers",
       nlohmann::json::array(
           {{{"name", "sluice"}, {"webhook_configs", nlohmann::json::array({webhook})}}})}};
}

absl::StatusOr<HttpResult> CortexBackend::Send(const std::string& method, const std::string& url,
                                               const std::string& tenant,
                                               const std::string& body) {
  HttpRequest req;
  req.method = method;
  req.url = url;
  req.body = body;
  req.headers = {"X-Scope-OrgID: " + tenant};
  if (!body.empty()) req.headers.push_back("Content-Type: application/yaml");
  return http_->Do(req);
}

absl::StatusOr<std::map<std::string, nlohmann::json>> CortexBackend::Groups(
    const AlertProvider& p, const std::string& tenant, const std::string& rule_namespace) {
  std::string url = absl::StrCat(Base(p.host), "/api/v1/rules/", Segment(rule_namespace));
  auto res = Send("GET", url, tenant, "");
  if (!res.ok()) return res.status();
  std::map<std::string, nlohmann::json> out;
  if (res->status == 404) return out;
  if (!Ok(*res)) return Refused(absl::StrCat("cortex provider ", p.urn, " GET rules"), *res);
  auto doc = YamlToJson(res->body);
  if (!doc.ok()) return doc.status();
  if (doc->is_object() && doc->contains(rule_namespace) && (*doc)[rule_namespace].is_array()) {
    for (const nlohmann::json& g : (*doc)[rule_namespace]) out[g.value("name", "")] = g;
  }
  return out;
}

absl::Status CortexBackend::SyncRules(const AlertProvider& p, const AlertNamespace& ns,
                                      const std::map<std::string, RuleGroups>& groups) {
  const std::string& tenant = ns.urn;
  std::string what = absl::StrCat("cortex provider ", p.urn);
  for (const auto& [rule_namespace, list] : groups) {
    auto before = Groups(p, tenant, rule_namespace);
    if (!before.ok()) return before.status();
    std::string url = absl::StrCat(Base(p.host), "/api/v1/rules/", Segment(rule_namespace));
    absl::Status failed;
    std::set<std::string> kept;
    for (const nlohmann::json& g : list) {
      kept.insert(g.value("name", ""));
      auto res = Send("POST", url, tenant, g.dump());
      if (!res.ok()) failed = res.status();
      else if (!Ok(*res)) failed = Refused(what, *res);
      if (!failed.ok()) break;
    }
    if (failed.ok()) {
      for (const auto& [name, g] : *before) {
        if (kept.count(name) > 0) continue;
        auto res = Send("DELETE", absl::StrCat(url, "/", Segment(name)), tenant, "");
        if (!res.ok()) failed = res.status();
        else if (!Ok(*res) && res->status != 404) failed = Refused(what, *res);
        if (!failed.ok()) break;
      }
    }
    if (!failed.ok()) {
      // Put the groups read first back, and drop the new ones.
      for (const auto& [name, g] : *before) (void)Send("POST", url, tenant, g.dump());
      for (const std::string& name : kept) {
        if (before->count(name) == 0) {
          (void)Send("DELETE", absl::StrCat(url, "/", Segment(name)), tenant, "");
        }
      }
      return failed;
    }
  }
  return absl::OkStatus();
}

absl::Status CortexBackend::SyncRoutes(const std::vector<NamespaceRoute>& routes) {
  if (options_.hook_base_url.empty()) {
    return absl::FailedPreconditionError(
        "provider type cortex: notification.alert_hook_base_url must be configured");
  }
  std::vector<std::string> bodies;
  for (const NamespaceRoute& r : routes) {
    auto config = CortexAlertmanagerConfig(options_, *hook_secrets_, r);
    if (!config.ok()) return config.status();
    bodies.push_back(nlohmann::json{{"template_files", nlohmann::json::object()},
                                    {"alertmanager_config", config->dump(2)}}
                         .dump());
  }
  for (size_t i = 0; i < routes.size(); ++i) {
    const NamespaceRoute& r = routes[i];
    auto res = Send("POST", absl::StrCat(Base(r.provider.host), "/api/v1/alerts"), r.ns.urn,
                    bodies[i]);
    if (!res.ok()) return res.status();
    if (!Ok(*res)) {
      return Refused(absl::StrCat("cortex provider ", r.provider.urn, " alertmanager config"), *res);
    }
  }
  return absl::OkStatus();
}

absl::Status CortexBackend::RemoveRoute(const NamespaceRoute& r) {
  auto res = Send("DELETE", absl::StrCat(Base(r.provider.host), "/api/v1/alerts"), r.ns.urn, "");
  if (!res.ok()) return res.status();
  if (!Ok(*res) && res->status != 404) {
    return Refused(absl::StrCat("cortex provider ", r.provider.urn, " delete alertmanager config"),
                   *res);
  }
  return absl::OkStatus();
}

}  // namespace sluice::notification::alerting
