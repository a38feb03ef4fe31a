// Receiver type "slack": chat.postMessage through Slack's Web API
// (https://api.slack.com/methods/chat.postMessage), with a bot token.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_RECEIVER_H_

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/receivers/context.h"
#include "server/notification/receivers/slack/slack_web_api.h"

namespace sluice::notification::receivers {

// Config: token (secret, required), channel_name (a channel name, or the
// user's email for channel_type "user"; required unless `workspace` is set,
// i.e. a receiver made from Siren's OAuth configuration, whose channel comes
// from the subscription's receiver configuration), channel_type ("channel" |
// "user", default "channel"), workspace (Slack's team name, set by
// PrepareConfig), api_url (an http(s) URL, default the server's
// notification.slack_api_url; changing it needs the token again).
// For "user" the ID comes from users.lookupByEmail. The payload's fields
// (text, blocks, attachments…) go into the chat.postMessage body; a payload
// without text/blocks/attachments is sent as text. `{"ok":false}` is an
// error (retryable for "ratelimited") whose message is
// "slack <method>: <error>", with <error> Slack's code when it is 1-64
// characters of [a-z_] and "unrecognised_error" otherwise; a reply without
// a boolean "ok" (or, for users.lookupByEmail, a string user.id) fails.
class SlackReceiver : public ReceiverPlugin {
 public:
  // `api`: the Web API base URL used when a configuration has no api_url.
  explicit SlackReceiver(HttpClient* http, std::string api = "https://slack.com/api")
      : http_(http), api_(std::move(api)) {}
  // The registry row's factory (see context.h).
  static std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
    return std::make_unique<SlackReceiver>(ctx.http, ctx.options.slack_api_url);
  }
  // Siren's OAuth configuration {client_id, client_secret, auth_code} (all
  // three required once one is given): POSTs them form-encoded to
  // <api>/oauth.v2.access (https://api.slack.com/methods/oauth.v2.access) and
  // returns {token: access_token, workspace: team.name} plus the other keys
  // given (channel_name, api_url…), as Siren's plugins/receivers/slack
  // PreHookDBTransformConfigs. Any other configuration is returned unchanged.
  absl::StatusOr<nlohmann::json> PrepareConfig(nlohmann::json config) const override;
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  std::vector<std::string> SecretKeys() const override { return {"token"}; }
  std::vector<std::string> DestinationKeys() const override { return {"api_url"}; }
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;

 private:
  // CallSlackMethod with this receiver's HTTP client.
  absl::StatusOr<nlohmann::json> Call(const HttpRequest& req, absl::string_view method) const;
  // The base URL for `config`: its api_url, else the server's, no trailing '/'.
  std::string Api(const nlohmann::json& config) const;
  HttpClient* http_;
  std::string api_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_RECEIVER_H_
