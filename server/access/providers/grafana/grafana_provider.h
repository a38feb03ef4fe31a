// The `grafana` provider (Guardian's plugins/providers/grafana): per-user
// permissions on Grafana folders and dashboards through Grafana's HTTP API.
//
// credentials: {host, username, password} (Guardian's; `user` is accepted
// for `username`) or {host, api_key} (a service account token, sent as a
// Bearer token); optional org_id. Basic-auth calls carry X-Grafana-Org-Id:
// org_id, else the provider urn when it is a number (Guardian sends the
// urn). Validated by a real call (GET /api/org).
//
// Resources, found through GET /api/search paged (limit/page): folder (urn =
// the folder uid; details id, url, parent_uid, path "A/B/C" for nested
// folders) and dashboard (urn = the numeric id, as Guardian; details uid,
// url, tags, folder_id, folder_uid, folder_title, folder_path).
//
// Permissions, as Guardian: "view" (1), "edit" (2), "admin" (4). A grant
// reads the item's permission list, keeps every non-inherited item (users,
// teams, roles) and sets the user's item to the higher of its level and the
// role's, then POSTs the merged list and reads it back (Grafana has no
// revision: another writer's overwrite is detected and the merge redone).
// A revoke drops the user's item when its level is the role's; an absent
// user, item or dashboard is already revoked. Accounts are the emails of
// the organization's users, compared ignoring case across every page of
// GET /api/org/users/search; a login never matches (users may set their own
// login to someone else's email, review F-L6), and an email that two users
// share up to case is refused (InvalidArgument at appeal creation,
// FailedPrecondition at grant and revoke) rather than one of them picked.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_GRAFANA_GRAFANA_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_GRAFANA_GRAFANA_PROVIDER_H_

#include <memory>

#include "common/http_client.h"
#include "server/access/core/provider_client.h"
#include "server/access/providers/rest/rest.h"

namespace sluice::access {

// A grafana plugin calling through `http` (not owned; outlives the plugin).
std::unique_ptr<ProviderClient> NewGrafanaProvider(HttpClient* http, rest::CallLimits limits = {});

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_GRAFANA_GRAFANA_PROVIDER_H_
