#include "server/notification/receivers/lark_channel/lark_channel_receiver.h"

#include "absl/strings/str_cat.h"

namespace sluice::notification::receivers {

absl::StatusOr<nlohmann::json> LarkChannelReceiver::PrepareConfig(nlohmann::json config) const {
  if (!config.is_object()) return config;
  for (const char* k : {"client_id", "client_secret", "api_url"}) {
    if (config.contains(k)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "configurations.", k, ": a lark_channel uses its parent lark receiver's (set it there)"));
    }
  }
  return config;
}

absl::Status LarkChannelReceiver::Send(const nlohmann::json& config,
                                       const nlohmann::json& payload) {
  // The merged parent configuration carries the credentials.
  if (auto st = LarkReceiver::ValidateConfig(config); !st.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(st.message(), " (from the parent lark receiver)"));
  }
  return LarkReceiver::Send(config, payload);
}

}  // namespace sluice::notification::receivers
