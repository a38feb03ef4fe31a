// The receiver type plugin interface. Each type lives in its own folder
// under server/notification/receivers/ and is listed in receivers/registry.cc.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_RECEIVER_PLUGIN_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_RECEIVER_PLUGIN_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace sluice::notification {

class ReceiverPlugin {
 public:
  virtual ~ReceiverPlugin() = default;
  // Checks a configuration (secrets in plain text; an encrypted "v1:" value
  // is only checked for being a string where the type allows it).
  // InvalidArgument naming the missing or malformed key
  // ("configurations.<key>: ..."); FailedPrecondition when this server's
  // configuration disables the type (naming the setting).
  virtual absl::Status ValidateConfig(const nlohmann::json& config) const = 0;
  // Turns the configuration a client sent (create or update, secrets in
  // plain text, before ValidateConfig) into the one stored: Siren's
  // PreHookDBTransformConfigs, e.g. slack exchanges an OAuth code for a
  // token. Default: unchanged. InvalidArgument naming the field;
  // FailedPrecondition when the vendor refuses; Unavailable or
  // ResourceExhausted when it cannot answer now.
  virtual absl::StatusOr<nlohmann::json> PrepareConfig(nlohmann::json config) const {
    return config;
  }
  // The type a receiver of this type must have as its parent (Siren's
  // parent_id: "slack" for slack_channel); "" (default): no parent allowed.
  // A child is sent with its parent's configuration under its own, the
  // parent's secrets and DestinationKeys always winning (see delivery.cc).
  virtual std::string ParentType() const { return ""; }
  // Configuration keys holding secrets: encrypted at rest, masked on output.
  virtual std::vector<std::string> SecretKeys() const { return {}; }
  // Configuration keys naming where messages (and so the secrets) go, e.g.
  // "url" or "api_url". For a type with secrets, changing one requires the
  // secrets to be supplied again, and a subscription override may not
  // change it (see catalog.h).
  virtual std::vector<std::string> DestinationKeys() const { return {}; }
  // Delivers a rendered `payload` with the decrypted `config`. OK only once
  // the far side accepted it. Retryable failures (connect errors, timeouts,
  // HTTP 429/5xx) are Unavailable, DeadlineExceeded or ResourceExhausted;
  // anything else is permanent.
  virtual absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) = 0;
};

// The receiver types available to the core, by type name.
using ReceiverPlugins = std::map<std::string, std::unique_ptr<ReceiverPlugin>>;

// True for the failures a sender retries (see ReceiverPlugin::Send).
inline bool IsRetryable(const absl::Status& s) {
  return s.code() == absl::StatusCode::kUnavailable ||
         s.code() == absl::StatusCode::kDeadlineExceeded ||
         s.code() == absl::StatusCode::kResourceExhausted;
}

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_RECEIVER_PLUGIN_H_
