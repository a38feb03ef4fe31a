// The `gcloud_iam` provider (Guardian's plugins/providers/gcloudiam): IAM
// roles on the one project or organization named by
// credentials.resource_name.
//
// credentials: see server/access/providers/gcp/gcp_api.h.
//
// Resources: exactly one, the provider's resource: type "project" (for
// "projects/<id>") or "organization" (for "organizations/<id>"), urn the
// resource_name, name "<resource_name> - GCP IAM" (Guardian's shape).
//
// Permissions: IAM role names (predefined "roles/...", custom
// "projects/<p>/roles/..." or "organizations/<o>/roles/..."), checked at
// registration with roles:queryGrantableRoles on the resource (as Guardian
// does), applied as IAM bindings through Cloud Resource Manager v1
// (projects|organizations getIamPolicy, then setIamPolicy with the policy's
// etag; a concurrent change is 409 ABORTED and retried).
//
// Accounts: user, serviceAccount (Guardian's) and group, as "<type>:<id>"
// members; ids are emails.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_GCLOUD_IAM_GCLOUD_IAM_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_GCLOUD_IAM_GCLOUD_IAM_PROVIDER_H_

#include <memory>

#include "common/http_client.h"
#include "server/access/core/provider_client.h"

namespace sluice::access {

// A gcloud_iam plugin calling Google through `http` (tests inject their own).
std::unique_ptr<ProviderClient> NewGcloudIamProvider(std::shared_ptr<HttpClient> http);
// The registry's instance: libcurl (common/http_client.h).
std::unique_ptr<ProviderClient> NewGcloudIamProvider();

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_GCLOUD_IAM_GCLOUD_IAM_PROVIDER_H_
