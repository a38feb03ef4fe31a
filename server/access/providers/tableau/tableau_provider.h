// The `tableau` provider (Guardian's plugins/providers/tableau): per-user
// capabilities on Tableau content and users' site roles, through the Tableau
// REST API (JSON, https://help.tableau.com/current/api/rest_api/en-us/).
//
// credentials: {host, username, password, content_url} (Guardian's; the
// site's content url, "" for the default site) and an optional api_version
// (default "3.12", Guardian's). Validated by a real sign-in (POST
// /api/<v>/auth/signin); its credentials token is cached per provider
// (X-Tableau-Auth) and renewed when Tableau answers 401.
//
// Resources, listed page by page (pageSize/pageNumber): workbook, view,
// metric, datasource and flow, urn = the item's id (Guardian's). Details
// carry project_id, project_name, project_path ("Parent/Child"), owner_id
// and owner_name, webpage/content urls and tags; views workbook_id, metrics
// the underlying view.
//
// Permissions, as Guardian's config: {"name": "<Capability>:<Allow|Deny>"}
// (e.g. Read:Allow) and {"name": "<SiteRole>", "type": "site_role"}; an
// appeal carries them as "Read:Allow" and "Viewer@site_role". A grant first
// checks the user's site role and raises it to the role's highest site role
// when lower, then adds the missing capabilities (PUT .../permissions; an
// opposite mode of the same capability is deleted first). A grant with a
// site role returns the provider state {"site_role_before": R}
// (GrantAccessWithState; kept as Grant.provider_state): R is the role the
// user had before Sluice raised it, taken from another active grant's state
// (AccessRequest::other_grants; UsesOtherGrants is true) or else the
// current role. A revoke deletes the capabilities (a 404 is already
// revoked), then, given that state, lowers the site role to the higher of R
// and the highest site role the account's other active grants on the site
// still need (review F-M3). It only lowers, and only a role no higher than
// what these grants need (a role raised further by hand stays). Without a
// recorded R (grants made before it was recorded) the site role stays.
// Limitation: two revokes of one account's grants in concurrent
// transactions can each see the other grant still active and both keep the
// role.
// Accounts are Tableau user names (users?filter=name:eq:<name>).
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TABLEAU_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TABLEAU_PROVIDER_H_

#include <memory>

#include "common/http_client.h"
#include "server/access/core/provider_client.h"
#include "server/access/providers/rest/rest.h"

namespace sluice::access {

// A tableau plugin calling through `http` (not owned; outlives the plugin).
std::unique_ptr<ProviderClient> NewTableauProvider(HttpClient* http, rest::CallLimits limits = {});

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_TABLEAU_TABLEAU_PROVIDER_H_
