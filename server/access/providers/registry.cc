#include "server/access/providers/registry.h"

#include "server/access/providers/bigquery/bigquery_provider.h"
#include "server/access/providers/gcloud_iam/gcloud_iam_provider.h"
#include "server/access/providers/gcs/gcs_provider.h"
#include "server/access/providers/noop/noop_provider.h"
#include "server/access/providers/postgres/postgres_provider.h"

namespace sluice::access {

namespace {
// Add a row per provider folder.
constexpr std::unique_ptr<ProviderClient> (*kProviders[])() = {
    &NewNoopProvider,
    &NewPostgresProvider,
    &NewBigQueryProvider,
    &NewGcsProvider,
    &NewGcloudIamProvider,
};
}  // namespace

std::vector<std::unique_ptr<ProviderClient>> BuiltinProviders() {
  std::vector<std::unique_ptr<ProviderClient>> out;
  for (auto make : kProviders) out.push_back(make());
  return out;
}

}  // namespace sluice::access
