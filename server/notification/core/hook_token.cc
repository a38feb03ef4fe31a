#include "server/notification/core/hook_token.h"

#include "absl/strings/str_cat.h"
#include "common/auth/hmac.h"
#include "common/auth/secret.h"

namespace sluice::notification {

std::string NamespaceHookToken(absl::string_view secret, absl::string_view type,
                               uint64_t provider_id, uint64_t namespace_id) {
  return auth::HexHmacSha256(secret, absl::StrCat(type, "/", provider_id, "/", namespace_id));
}

const std::string* HookSecretOf(const AlertHookSecrets& secrets, absl::string_view type,
                                uint64_t provider_id) {
  auto it = secrets.find(absl::StrCat(type, "/", provider_id));
  if (it == secrets.end()) it = secrets.find("*");
  return it == secrets.end() ? nullptr : &it->second;
}

absl::StatusOr<std::string> NamespaceHookTokenFor(const AlertHookSecrets& secrets,
                                                  absl::string_view type, uint64_t provider_id,
                                                  uint64_t namespace_id) {
  const std::string* secret = HookSecretOf(secrets, type, provider_id);
  if (secret == nullptr) {
    // The provider route's token (or "*") is never written into a tenant's
    // config: it would open every namespace's hook (review R3-M2).
    return absl::FailedPreconditionError(absl::StrCat(
        "alert provider ", type, "/", provider_id,
        " has no hook secret to derive its namespaces' hook tokens from: configure "
        "notification.alert_hook_secrets: [{provider: \"",
        type, "/", provider_id, "\", secret_file: <path> | secret_env: <NAME>}]"));
  }
  return NamespaceHookToken(*secret, type, provider_id, namespace_id);
}

absl::Status CheckNamespaceHookToken(const AlertHookSecrets& secrets, absl::string_view type,
                                     uint64_t provider_id, uint64_t namespace_id,
                                     absl::string_view presented) {
  std::string url = absl::StrCat(type, "/", provider_id, "/", namespace_id);
  const std::string* secret = HookSecretOf(secrets, type, provider_id);
  if (secret == nullptr) {
    return absl::PermissionDeniedError(absl::StrCat(
        "no hook secret is configured for alert provider ", type, "/", provider_id,
        " (notification.alert_hook_secrets); its namespace hooks are closed"));
  }
  if (presented.empty()) {
    return absl::UnauthenticatedError(
        "alert hook: missing Authorization: Bearer <token> (Alertmanager http_config.authorization)");
  }
  if (!auth::ConstantTimeEquals(presented,
                                NamespaceHookToken(*secret, type, provider_id, namespace_id))) {
    return absl::UnauthenticatedError(absl::StrCat(
        "alert hook ", url, ": wrong token (each namespace has its own, derived from "
        "notification.alert_hook_secrets)"));
  }
  return absl::OkStatus();
}

}  // namespace sluice::notification
