// The bigquery provider's activity import (Guardian's
// plugins/providers/bigquery GetActivities and activity.go): BigQuery's
// Cloud Audit Logs entries read with Cloud Logging's entries.list.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_BIGQUERY_BIGQUERY_ACTIVITY_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_BIGQUERY_BIGQUERY_ACTIVITY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/access/core/provider_client.h"
#include "server/access/providers/gcp/gcp_api.h"

namespace sluice::access::bigquery {

// BigQuery's audit methods Guardian imports (BigQueryAuditMetadataMethods).
const std::vector<std::string>& AuditMethods();

// Guardian's entries.list filter for `query`: BigQuery's service and the
// bigquery_dataset resource type, principalEmail=("a" OR "b"),
// resourceName:("projects/p/datasets/d" OR ...) (':' so that a dataset
// also matches its tables), methodName=(AuditMethods()) and
// timestamp>="..." / timestamp<="...", joined with " AND ".
std::string EntriesFilter(const ActivityQuery& query);

// "projects/<p>/datasets/<d>[/tables/<t>]" of a dataset or table resource
// (Guardian's bqResource.fullURN); "" for a malformed urn.
std::string FullResourceName(const v1beta1::Resource& resource);

// One LogEntry (Cloud Logging REST LogEntry with an AuditLog protoPayload)
// as an activity, as Guardian's Activity.ToDomainActivity:
// provider_activity_id = insertId, type = methodName, account_id =
// authenticationInfo.principalEmail, account_type serviceAccount when
// serviceAccountKeyName is set else user, authorizations =
// authorizationInfo[].permission, resource (type, urn, name) from
// resourceName, metadata.logging_entry = the entry's fields.
// InvalidArgument for a timestamp that is not RFC 3339 or a missing
// protoPayload.
absl::StatusOr<v1beta1::ProviderActivity> EntryToActivity(const gcp::Json& entry);

// resource type -> IAM permission -> the config's roles (as written, e.g.
// "READER" or "roles/bigquery.dataViewer") that include it, from `role
// permissions` (role -> includedPermissions).
using RolesByPermission = std::map<std::string, std::map<std::string, std::vector<std::string>>>;
RolesByPermission RolesOfPermissions(
    const v1beta1::ProviderConfig& config,
    const std::map<std::string, std::vector<std::string>>& role_permissions);

// The IAM role a configured dataset permission names: READER, WRITER and
// OWNER as roles/bigquery.dataViewer, dataEditor, dataOwner (Guardian's
// translateDatasetRoleToBigQueryRole); any other value unchanged.
std::string IamRole(const std::string& permission);

// The activities of `query`: entries.list on the credentials' project,
// every page (nextPageToken), then each role's includedPermissions (IAM
// roles.get) for related_permissions, sorted and unique (Guardian's
// getGcloudRoles). Errors as GoogleApi::Call.
absl::StatusOr<std::vector<v1beta1::ProviderActivity>> ReadActivities(
    gcp::GoogleApi& api, const gcp::Credentials& creds, const v1beta1::ProviderConfig& config,
    const ActivityQuery& query);

}  // namespace sluice::access::bigquery

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_BIGQUERY_BIGQUERY_ACTIVITY_H_
