// Receiver type "http": POSTs the rendered JSON payload to `url`.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_HTTP_HTTP_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_HTTP_HTTP_RECEIVER_H_

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/receivers/context.h"

namespace sluice::notification::receivers {

// Config: url (required, an http:// or https:// URL). The url is a secret
// (Slack and Teams webhook URLs carry their token in the path): encrypted at
// rest, masked on output, and errors name only "POST <scheme>://<host>".
// 2xx = accepted.
class HttpReceiver : public ReceiverPlugin {
 public:
  explicit HttpReceiver(HttpClient* http) : http_(http) {}
  // The registry row's factory (see context.h).
  static std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
    return std::make_unique<HttpReceiver>(ctx.http);
  }
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  std::vector<std::string> SecretKeys() const override { return {"url"}; }
  std::vector<std::string> DestinationKeys() const override { return {"url"}; }
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;

 private:
  HttpClient* http_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_HTTP_HTTP_RECEIVER_H_
