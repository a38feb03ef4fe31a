#include "server/access/providers/registry.h"

#include "server/access/providers/bigquery/bigquery_provider.h"
#include "server/access/providers/gcloud_iam/gcloud_iam_provider.h"
#include "server/access/providers/gcs/gcs_provider.h"
#include "server/access/providers/grafana/grafana_provider.h"
#include "server/access/providers/metabase/metabase_provider.h"
#include "server/access/providers/noop/noop_provider.h"
#include "server/access/providers/postgres/postgres_provider.h"
#include "server/access/providers/tableau/tableau_provider.h"

namespace sluice::access {

namespace {

// The shared client, lent to the plugins that hold a shared_ptr (the
// access module owns it and outlives them).
std::shared_ptr<HttpClient> Borrowed(HttpClient* http) {
  return std::shared_ptr<HttpClient>(http, [](HttpClient*) {});
}

// Add a row per provider folder.
constexpr std::unique_ptr<ProviderClient> (*kProviders[])(HttpClient*) = {
    [](HttpClient*) { return NewNoopProvider(); },
    [](HttpClient*) { return NewPostgresProvider(); },
    [](HttpClient* http) { return NewBigQueryProvider(Borrowed(http)); },
    [](HttpClient* http) { return NewGcsProvider(Borrowed(http)); },
    [](HttpClient* http) { return NewGcloudIamProvider(Borrowed(http)); },
    [](HttpClient* http) { return NewMetabaseProvider(http); },
    [](HttpClient* http) { return NewGrafanaProvider(http); },
    [](HttpClient* http) { return NewTableauProvider(http); },
};
}  // namespace

std::vector<std::unique_ptr<ProviderClient>> BuiltinProviders(HttpClient* http) {
  std::vector<std::unique_ptr<ProviderClient>> out;
  for (auto make : kProviders) out.push_back(make(http));
  return out;
}

}  // namespace sluice::access
