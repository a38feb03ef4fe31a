#include "server/notification/receivers/http/http_receiver.h"

#include "absl/strings/match.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {

absl::Status HttpReceiver::ValidateConfig(const nlohmann::json& config) const {
  if (auto st = RequireString(config, "url"); !st.ok()) return st;
  std::string url = config["url"].get<std::string>();
  if (!absl::StartsWith(url, "http://") && !absl::StartsWith(url, "https://")) {
    return absl::InvalidArgumentError("configurations.url: must start with http:// or https://");
  }
  return absl::OkStatus();
}

absl::Status HttpReceiver::Send(const nlohmann::json& config, const nlohmann::json& payload) {
  HttpRequest req;
  req.url = config.value("url", "");
  req.headers = {"Content-Type: application/json"};
  req.body = payload.dump();
  auto res = http_->Do(req);
  if (!res.ok()) return res.status();
  if (res->status / 100 == 2) return absl::OkStatus();
  return HttpStatusToError(absl::StrCat("POST ", req.url), *res);
}

}  // namespace sluice::notification::receivers
