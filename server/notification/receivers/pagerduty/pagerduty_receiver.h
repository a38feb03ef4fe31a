// Receiver type "pagerduty": Events API v2 `enqueue`
// (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/).
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_PAGERDUTY_PAGERDUTY_RECEIVER_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_PAGERDUTY_PAGERDUTY_RECEIVER_H_

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/receivers/context.h"

namespace sluice::notification::receivers {

// Config: routing_key or service_key (secret; one is required), api_url
// (an http(s) URL, default https://events.pagerduty.com; changing it needs
// the key again). POSTs <api_url>/v2/enqueue with the
// payload plus routing_key. A payload without event_action becomes a trigger
// event whose custom_details is the payload. 202 = accepted; 400 is permanent,
// 429/5xx are retried. Errors carry the HTTP status only, never the body.
class PagerDutyReceiver : public ReceiverPlugin {
 public:
  explicit PagerDutyReceiver(HttpClient* http) : http_(http) {}
  // The registry row's factory (see context.h).
  static std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
    return std::make_unique<PagerDutyReceiver>(ctx.http);
  }
  absl::Status ValidateConfig(const nlohmann::json& config) const override;
  std::vector<std::string> SecretKeys() const override { return {"service_key", "routing_key"}; }
  std::vector<std::string> DestinationKeys() const override { return {"api_url"}; }
  absl::Status Send(const nlohmann::json& config, const nlohmann::json& payload) override;

 private:
  HttpClient* http_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_PAGERDUTY_PAGERDUTY_RECEIVER_H_
