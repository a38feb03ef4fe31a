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
// checks the user's site role and raises it to the role's when lower (never
// lowers it), then adds the missing capabilities (PUT .../permissions; an
// opposite mode of the same capability is deleted first). A revoke deletes
// the capabilities (a 404 is already revoked) and leaves the site role.
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
