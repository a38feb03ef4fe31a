// Receiver type "slack_channel": one channel of a `slack` parent receiver
// (Siren's plugins/receivers/slackchannel), sending with the parent's token.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_CHANNEL_SLACK_CHANNEL_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_CHANNEL_SLACK_CHANNEL_RECEIVER_H_

#include <memory>
#include <string>
#include <vector>

#include "server/notification/receivers/context.h"
#include "server/notification/receivers/slack/slack_receiver.h"

namespace sluice::notification::receivers {

// Config: channel_name (required, as Siren's slackchannel config.go),
// channel_type ("channel" | "user", default "channel"). The receiver's
// parent_id must name a `slack` receiver; at delivery the parent's token,
// workspace and api_url are used (the core merges them, the parent's
// winning). The child holds no secrets: a token, workspace, api_url or
// OAuth key given on it is InvalidArgument naming the key. Sending is
// SlackReceiver's (chat.postMessage; users.lookupByEmail for "user").
class SlackChannelReceiver : public SlackReceiver {
 public:
  using SlackReceiver::SlackReceiver;
  // The registry row's factory (see context.h).
  static std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
    return std::make_unique<SlackChannelReceiver>(ctx.http, ctx.options.slack_api_url);
  }
  absl::StatusOr<nlohmann::json> PrepareConfig(nlohmann::json config) const override;
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  std::string ParentType() const override { return "slack"; }
  std::vector<std::string> SecretKeys() const override { return {}; }
  std::vector<std::string> DestinationKeys() const override { return {}; }
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_CHANNEL_SLACK_CHANNEL_RECEIVER_H_
