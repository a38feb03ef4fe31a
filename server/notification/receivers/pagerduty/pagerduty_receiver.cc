#include "server/notification/receivers/pagerduty/pagerduty_receiver.h"

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {
absl::Status PagerDutyReceiver::ValidateConfig(const nlohmann::json& config) const {
  if (!RequireString(config, "routing_key").ok() && !RequireString(config, "service_key").ok()) {
    return absl::InvalidArgumentError(
        "configurations.service_key: is required (or configurations.routing_key)");
  }
  return OptionalHttpUrl(config, "api_url");
}

absl::Status PagerDutyReceiver::Send(const nlohmann::json& config, const nlohmann::json& payload) {
  if (auto st = ValidateConfig(config); !st.ok()) return st;
  std::string api = StringOr(config, "api_url", "https://events.pagerduty.com");
  while (!api.empty() && api.back() == '/') api.pop_back();
  nlohmann::json event;
  if (payload.is_object() && payload.contains("event_action")) {
    event = payload;
  } else {
    std::string summary = payload.is_object() && payload.contains("summary") &&
                                  payload["summary"].is_string()
                              ? payload["summary"].get<std::string>()
                              : Utf8Prefix(payload.dump(), 1024);
    event = {{"event_action", "trigger"},
             {"payload",
              {{"summary", summary}, {"source", "sluice"}, {"severity", "info"},
               {"custom_details", payload}}}};
  }
  event["routing_key"] = StringOr(config, "routing_key", StringOr(config, "service_key", ""));
  HttpRequest req;
  req.url = absl::StrCat(api, "/v2/enqueue");
  req.headers = {"Content-Type: application/json"};
  req.body = event.dump();
  auto res = http_->Do(req);
  if (!res.ok()) return res.status();
  if (res->status / 100 == 2) return absl::OkStatus();
  return HttpStatusToError("pagerduty enqueue", *res);
}

}  // namespace sluice::notification::receivers
