#include "server/notification/receivers/http/http_receiver.h"

#include "absl/strings/str_cat.h"
#include "common/outbound.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {

absl::Status HttpReceiver::ValidateConfig(const nlohmann::json& config) const {
  if (auto st = RequireString(config, "url"); !st.ok()) return st;
  return ValidateHttpUrl("configurations.url", config["url"].get<std::string>());
}

absl::Status HttpReceiver::Send(const nlohmann::json& config, const nlohmann::json& payload) {
  if (auto st = ValidateConfig(config); !st.ok()) {
    // The message would quote the url, a secret.
    return absl::InvalidArgumentError("configurations.url: is not a valid http(s) URL");
  }
  HttpRequest req;
  req.url = config["url"].get<std::string>();
  req.headers = {"Content-Type: application/json"};
  req.body = payload.dump();
  auto res = http_->Do(req);
  if (!res.ok()) return res.status();
  if (res->status / 100 == 2) return absl::OkStatus();
  return HttpStatusToError(absl::StrCat("POST ", RedactUrl(req.url)), *res);
}

}  // namespace sluice::notification::receivers
