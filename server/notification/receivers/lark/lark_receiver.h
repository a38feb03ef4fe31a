// Receiver type "lark": Lark (Feishu) IM messages with app credentials, as
// Siren's plugins/receivers/lark (open platform API:
// https://open.larksuite.com/document/server-docs/im-v1/message/create).
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_LARK_LARK_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_LARK_LARK_RECEIVER_H_

#include <memory>
#include <string>
#include <vector>

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/receivers/context.h"

namespace sluice::notification::receivers {

// Config: client_id and client_secret (the app's ID and secret; both
// secrets, required, as Siren's lark config.go), channel_name (a chat's name,
// or a user's email for channel_type "user"; optional on the receiver,
// given by the subscription's receiver configuration or a lark_channel
// child), channel_type ("channel" | "user", default "channel"), api_url (an
// http(s) URL, default the server's notification.lark_api_url; changing it
// needs the secrets again).
// Send: POST <api>/open-apis/auth/v3/tenant_access_token/internal
// {app_id, app_secret} for a tenant_access_token; for "channel", GET
// <api>/open-apis/im/v1/chats (paged) to find the chat_id by name; then POST
// <api>/open-apis/im/v1/messages?receive_id_type=chat_id|email with
// {receive_id, msg_type, content}. The payload's msg_type/content are used
// when given; a payload that is only {"text": ...} is a text message;
// anything else an interactive card whose content is the payload.
// Errors: "lark <operation>: code <n>" (Lark's numeric code only, never its
// msg), retryable for HTTP 429/5xx and Lark's rate-limit code 99991400.
class LarkReceiver : public ReceiverPlugin {
 public:
  // `api`: the base URL used when a configuration has no api_url.
  explicit LarkReceiver(HttpClient* http, std::string api = "https://open.larksuite.com")
      : http_(http), api_(std::move(api)) {}
  // The registry row's factory (see context.h).
  static std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
    return std::make_unique<LarkReceiver>(ctx.http, ctx.options.lark_api_url);
  }
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  std::vector<std::string> SecretKeys() const override { return {"client_id", "client_secret"}; }
  std::vector<std::string> DestinationKeys() const override { return {"api_url"}; }
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;

 protected:
  // The channel_name / channel_type rules shared with lark_channel.
  static absl::Status ValidateChannel(const nlohmann::json& config, bool required);

 private:
  // Calls an open API; the parsed reply when its code is 0.
  absl::StatusOr<nlohmann::json> Call(const HttpRequest& req, absl::string_view op) const;
  HttpClient* http_;
  std::string api_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_LARK_LARK_RECEIVER_H_
