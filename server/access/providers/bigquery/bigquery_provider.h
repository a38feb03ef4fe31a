// The `bigquery` provider (Guardian's plugins/providers/bigquery): access to
// BigQuery datasets and tables of one project.
//
// credentials: see server/access/providers/gcp/gcp_api.h (resource_name must
// be "projects/<id>").
//
// Resources (Guardian's shapes):
//   dataset  urn "<project>:<dataset>", name "<dataset>"
//   table    urn "<project>:<dataset>.<table>", name "<table>"
// with details {"__metadata": {"labels": {...}}} when the dataset or table
// has labels. Lists are paged (datasets.list, tables.list pageToken). When
// both types are configured and the dataset config has a filter, tables are
// listed only for the datasets it keeps (as Guardian does).
//
// Permissions: for a dataset, the legacy roles READER, WRITER, OWNER or an
// IAM role name, applied as dataset access entries (PATCH datasets/<id>
// with If-Match: <etag>; BigQuery REST reference, Dataset.access); for a
// table, IAM role names applied as table IAM bindings
// (tables.getIamPolicy / setIamPolicy with the policy's etag). At
// registration IAM role names are checked with roles:queryGrantableRoles on
// a sample dataset or table, as Guardian does, when the project has one.
//
// Accounts: user, serviceAccount (userByEmail entries, "user:" /
// "serviceAccount:" members) and group (groupByEmail, "group:"); ids are
// emails.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_BIGQUERY_BIGQUERY_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_BIGQUERY_BIGQUERY_PROVIDER_H_

#include <memory>

#include "common/http_client.h"
#include "server/access/core/provider_client.h"

namespace sluice::access {

// A bigquery plugin calling Google through `http` (tests inject their own).
std::unique_ptr<ProviderClient> NewBigQueryProvider(std::shared_ptr<HttpClient> http);
// The registry's instance: libcurl (common/http_client.h).
std::unique_ptr<ProviderClient> NewBigQueryProvider();

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_BIGQUERY_BIGQUERY_PROVIDER_H_
