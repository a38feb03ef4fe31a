// The `gcs` provider (Guardian's plugins/providers/gcs): access to the Cloud
// Storage buckets of one project.
//
// credentials: see server/access/providers/gcp/gcp_api.h (resource_name
// "projects/<id>": buckets.list takes a project).
//
// Resources: type "bucket", urn and name the bucket name (Guardian's shape),
// details {"__metadata": {"labels": {...}}} when the bucket has labels;
// buckets.list is paged (pageToken).
//
// Permissions: the Cloud Storage IAM roles Guardian allows on a bucket
// (roles/storage.admin, legacyBucketOwner, legacyBucketReader,
// legacyBucketWriter, legacyObjectOwner, legacyObjectReader, objectAdmin,
// objectCreator, objectViewer), applied as bucket IAM bindings: GET
// b/<bucket>/iam, then PUT it back with its etag (Cloud Storage JSON API,
// buckets.getIamPolicy / setIamPolicy; a stale etag is 412).
//
// Accounts (Guardian's): user, serviceAccount, group (emails) and domain (a
// domain name), as "<type>:<id>" members.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_GCS_GCS_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_GCS_GCS_PROVIDER_H_

#include <memory>

#include "common/http_client.h"
#include "server/access/core/provider_client.h"

namespace sluice::access {

// A gcs plugin calling Google through `http` (tests inject their own).
std::unique_ptr<ProviderClient> NewGcsProvider(std::shared_ptr<HttpClient> http);
// The registry's instance: libcurl (common/http_client.h).
std::unique_ptr<ProviderClient> NewGcsProvider();

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_GCS_GCS_PROVIDER_H_
