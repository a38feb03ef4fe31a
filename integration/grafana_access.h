// The access setup two end-to-end tests share: a one-step manual policy and
// a grafana provider whose dashboards are appealed for under it, against
// access::testing::FakeGrafana's admin account.
#ifndef SLUICE_INTEGRATION_GRAFANA_ACCESS_H_
#define SLUICE_INTEGRATION_GRAFANA_ACCESS_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace sluice::integration {

// The bodies of POST /api/v1beta1/policies and /providers.
struct GrafanaAccess {
  nlohmann::json policy;
  nlohmann::json provider;
};

// Policy `policy_id` (version 1): one manual step "approver" with
// `approvers`, permanent access allowed. Provider `urn`: type grafana at
// `grafana_url` as admin@localhost/password, its dashboards under that
// policy with the single role "viewer" (permission "view").
inline GrafanaAccess GrafanaDashboardAccess(const std::string& policy_id, const std::string& urn,
                                            const std::string& grafana_url,
                                            const std::vector<std::string>& approvers) {
  using nlohmann::json;
  GrafanaAccess out;
  out.policy = {{"id", policy_id},
                {"steps",
                 {{{"name", "approver"}, {"strategy", "manual"}, {"approvers", approvers}}}},
                {"appeal", {{"allow_permanent_access", true}}}};
  out.provider = {
      {"type", "grafana"},
      {"urn", urn},
      {"credentials",
       {{"host", grafana_url}, {"username", "admin@localhost"}, {"password", "password"}}},
      {"appeal", {{"allow_permanent_access", true}}},
      {"resources",
       {{{"type", "dashboard"},
         {"policy", {{"id", policy_id}, {"version", 1}}},
         {"roles", {{{"id", "viewer"}, {"name", "Viewer"}, {"permissions", {"view"}}}}}}}}};
  return out;
}

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_GRAFANA_ACCESS_H_
