// The `noop` provider: one resource (the provider's urn), grants and revokes
// that do nothing. For policies and flows that need no external system.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_NOOP_NOOP_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_NOOP_NOOP_PROVIDER_H_

#include <memory>

#include "server/access/core/provider_client.h"

namespace sluice::access {

// Rules (Guardian's noop provider): allowed_account_types == ["user"], no
// credentials, exactly one resource config of type "noop" whose roles have no
// permissions.
std::unique_ptr<ProviderClient> NewNoopProvider();

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_NOOP_NOOP_PROVIDER_H_
