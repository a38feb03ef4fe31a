// Receiver type "http": POSTs the rendered JSON payload to `url`.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_HTTP_HTTP_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_HTTP_HTTP_RECEIVER_H_

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"

namespace sluice::notification::receivers {

// Config: url (required, http:// or https://). 2xx = accepted.
class HttpReceiver : public ReceiverPlugin {
 public:
  explicit HttpReceiver(HttpClient* http) : http_(http) {}
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;

 private:
  HttpClient* http_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_HTTP_HTTP_RECEIVER_H_
