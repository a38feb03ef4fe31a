// Receiver type "slack": chat.postMessage through Slack's Web API
// (https://api.slack.com/methods/chat.postMessage), with a bot token.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_RECEIVER_H_

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/receivers/context.h"

namespace sluice::notification::receivers {

// The longest Slack `error` code repeated in messages.
inline constexpr size_t kMaxSlackErrorLength = 64;

// Config: token (secret, required), channel_name (required: a channel name,
// or the user's email for channel_type "user"), channel_type ("channel" |
// "user", default "channel"), api_url (an http(s) URL, default
// https://slack.com/api; changing it needs the token again).
// For "user" the ID comes from users.lookupByEmail. The payload's fields
// (text, blocks, attachments…) go into the chat.postMessage body; a payload
// without text/blocks/attachments is sent as text. `{"ok":false}` is an
// error (retryable for "ratelimited") whose message is
// "slack <method>: <error>", with <error> Slack's code when it is 1-64
// characters of [a-z_] and "unrecognised_error" otherwise; a reply without
// a boolean "ok" (or, for users.lookupByEmail, a string user.id) fails.
class SlackReceiver : public ReceiverPlugin {
 public:
  explicit SlackReceiver(HttpClient* http) : http_(http) {}
  // The registry row's factory (see context.h).
  static std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
    return std::make_unique<SlackReceiver>(ctx.http);
  }
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  std::vector<std::string> SecretKeys() const override { return {"token"}; }
  std::vector<std::string> DestinationKeys() const override { return {"api_url"}; }
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;

 private:
  // Calls a Web API method; the parsed reply when ok is true.
  absl::StatusOr<nlohmann::json> Call(const HttpRequest& req, absl::string_view method);
  HttpClient* http_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_RECEIVER_H_
