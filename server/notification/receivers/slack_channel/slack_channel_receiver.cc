#include "server/notification/receivers/slack_channel/slack_channel_receiver.h"

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {

absl::StatusOr<nlohmann::json> SlackChannelReceiver::PrepareConfig(nlohmann::json config) const {
  if (!config.is_object()) return config;
  for (const char* k :
       {"token", "workspace", "api_url", "client_id", "client_secret", "auth_code"}) {
    if (config.contains(k)) {
      return absl::InvalidArgumentError(
          absl::StrCat("configurations.", k,
                       ": a slack_channel uses its parent slack receiver's (set it there)"));
    }
  }
  return config;
}

absl::Status SlackChannelReceiver::ValidateConfig(const nlohmann::json& config) const {
  if (auto st = RequireString(config, "channel_name"); !st.ok()) return st;
  if (config.contains("channel_type")) {
    const nlohmann::json& type = config["channel_type"];
    if (!type.is_string() || (type != "channel" && type != "user")) {
      return absl::InvalidArgumentError(
          "configurations.channel_type: must be \"channel\" or \"user\"");
    }
  }
  return OptionalHttpUrl(config, "api_url");
}

}  // namespace sluice::notification::receivers
