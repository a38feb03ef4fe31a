// The `metabase` provider (Guardian's plugins/providers/metabase): access
// to a Metabase instance through its REST API.
//
// credentials: {host, username, password} (Guardian's; `user` is accepted
// for `username`, as Guardian's docs' examples write it). The password is
// sealed and masked by the provider service. Validated by a real sign-in
// (POST /api/session).
//
// Resources: database (urn "database:<id>"), table ("table:<db id>.<table
// id>", details database_id/database_name/schema), collection
// ("collection:<id>", name = its path "parent/child", details location and
// parent_id; personal and archived collections are left out) and group
// ("group:<id>", details: the databases and collections it has permissions
// on). Database, table and collection details list the groups with access.
//
// Permissions, as Guardian: database "schemas:all" (read all tables) and
// "native:write" (SQL, with schemas:all); table "all"; collection "read" and
// "write"; group "member" (or none). A grant works as Guardian's: the user
// joins a group named "_guardian_<type>_<id>_<permission>" (tables:
// "_guardian_table_<db id>_<table id>_all"), created on first use and given
// exactly that permission in the data or collection permission graph. Graph
// writes carry the graph's `revision`; a 409 (another writer) re-reads and
// retries. A revoke removes the membership; an absent user, group or
// membership is already revoked. An account is a Metabase user's email.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_METABASE_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_METABASE_PROVIDER_H_

#include <memory>

#include "common/http_client.h"
#include "server/access/core/provider_client.h"
#include "server/access/providers/rest/rest.h"

namespace sluice::access {

// A metabase plugin calling through `http` (not owned; outlives the plugin).
std::unique_ptr<ProviderClient> NewMetabaseProvider(HttpClient* http, rest::CallLimits limits = {});

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_METABASE_METABASE_PROVIDER_H_
