// The alert hook's per-namespace tokens (security review R3-M2). Each
// namespace's hook URL /v1beta1/alerts/{type}/{provider_id}/{namespace_id}
// has its own bearer token, derived from the provider's hook secret
// (notification.alert_hook_secrets), so the Alertmanager config Sluice
// writes for one tenant opens that tenant's hook only. The provider route
// /alerts/{type}/{provider_id} keeps notification.alert_hook_tokens, which
// are never written into a generated config.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_HOOK_TOKEN_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_HOOK_TOKEN_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice::notification {

// Hook secrets by "<provider_type>/<provider_id>"; "*" serves every
// provider without its own entry (each provider's and namespace's token is
// still its own: both are in the derivation).
using AlertHookSecrets = std::map<std::string, std::string>;

// The namespace's hook token: lowercase hex HMAC-SHA256(secret,
// "<type>/<provider_id>/<namespace_id>"), 64 characters. The same as
//   printf %s cortex/1/2 | openssl dgst -sha256 -hmac "$SECRET"
std::string NamespaceHookToken(absl::string_view secret, absl::string_view type,
                               uint64_t provider_id, uint64_t namespace_id);

// The secret of provider `type`/`provider_id` (its entry, else "*"), or
// null when none is configured.
const std::string* HookSecretOf(const AlertHookSecrets& secrets, absl::string_view type,
                                uint64_t provider_id);

// NamespaceHookToken with the provider's secret; FailedPrecondition saying
// what to configure when it has none (Sluice then writes no route for it).
absl::StatusOr<std::string> NamespaceHookTokenFor(const AlertHookSecrets& secrets,
                                                  absl::string_view type, uint64_t provider_id,
                                                  uint64_t namespace_id);

// OK when `presented` (the request's bearer token) is the namespace's own
// token. PermissionDenied when the provider has no secret (its namespace
// hooks are closed); Unauthenticated for a missing or wrong token, the
// provider route's token (notification.alert_hook_tokens) included.
absl::Status CheckNamespaceHookToken(const AlertHookSecrets& secrets, absl::string_view type,
                                     uint64_t provider_id, uint64_t namespace_id,
                                     absl::string_view presented);

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_HOOK_TOKEN_H_
