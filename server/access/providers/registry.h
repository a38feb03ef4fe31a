// The one table of provider plugins (docs/architecture.md: plugins are folders listed in
// one registry, no static self-registration).
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_REGISTRY_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_REGISTRY_H_

#include <memory>
#include <vector>

#include "common/http_client.h"
#include "server/access/core/provider_client.h"

namespace sluice::access {

// A new instance of every built-in provider plugin (noop, postgres, bigquery,
// gcs, gcloud_iam, metabase, grafana, tableau); the HTTP ones call through
// `http` (not owned; outlives the plugins).
std::vector<std::unique_ptr<ProviderClient>> BuiltinProviders(HttpClient* http);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_REGISTRY_H_
