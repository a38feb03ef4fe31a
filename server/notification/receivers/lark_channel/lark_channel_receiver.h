// Receiver type "lark_channel": one chat of a `lark` parent receiver
// (Siren's plugins/receivers/larkchannel), sending with the parent's app
// credentials.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_LARK_CHANNEL_LARK_CHANNEL_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_LARK_CHANNEL_LARK_CHANNEL_RECEIVER_H_

#include <memory>
#include <string>
#include <vector>

#include "server/notification/receivers/context.h"
#include "server/notification/receivers/lark/lark_receiver.h"

namespace sluice::notification::receivers {

// Config: channel_name (required), channel_type ("channel" | "user"). The
// receiver's parent_id must name a `lark` receiver, whose client_id,
// client_secret and api_url are used (merged by the core, the parent's
// winning); credentials given on the child are InvalidArgument naming them.
class LarkChannelReceiver : public LarkReceiver {
 public:
  using LarkReceiver::LarkReceiver;
  // The registry row's factory (see context.h).
  static std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
    return std::make_unique<LarkChannelReceiver>(ctx.http, ctx.options.lark_api_url);
  }
  absl::StatusOr<nlohmann::json> PrepareConfig(nlohmann::json config) const override;
  absl::Status ValidateConfig(const nlohmann::json& config) const override {
    return ValidateChannel(config, true);
  }
  std::string ParentType() const override { return "lark"; }
  std::vector<std::string> SecretKeys() const override { return {}; }
  std::vector<std::string> DestinationKeys() const override { return {}; }
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_LARK_CHANNEL_LARK_CHANNEL_RECEIVER_H_
