#include "sink/sinks/httpv2/oauth2_client.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {

Httpv2TokenSource::Httpv2TokenSource(Httpv2OAuth2Config config, std::unique_ptr<HttpClient> http,
                                     std::function<absl::Time()> clock)
    : config_(std::move(config)), http_(std::move(http)), clock_(std::move(clock)) {}

absl::StatusOr<std::string> Httpv2TokenSource::Token() {
  // depot's OAuth2AccessToken.isExpired: at most 60 s left.
  if (!token_.empty() && expires_at_ - clock_() > absl::Seconds(60)) return token_;
  token_.clear();
  HttpRequest req;
  req.method = "POST";
  req.url = config_.token_url;
  req.timeout = absl::Milliseconds(5000);
  req.headers = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json"};
  req.body = absl::StrCat("client_id=", UrlEscape(config_.client_name),
                          "&client_secret=", UrlEscape(config_.client_secret),
                          "&scope=", UrlEscape(config_.scope), "&grant_type=client_credentials");
  ++fetches_;
  auto res = http_->Do(req);
  if (!res.ok()) {
    return absl::UnavailableError(absl::StrCat("OAuth2 token request failed: ", res.status().message()));
  }
  auto json = nlohmann::json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  if (res->status < 200 || res->status > 299) {
    std::string error = json.is_object() && json.contains("error") && json["error"].is_string()
                            ? json["error"].get<std::string>()
                            : "";
    return absl::FailedPreconditionError(
        absl::StrCat("OAuth2 token endpoint answered HTTP ", res->status, error.empty() ? "" : ": ", error));
  }
  if (!json.is_object() || !json.contains("access_token") || !json["access_token"].is_string()) {
    return absl::FailedPreconditionError("OAuth2 token answer has no access_token");
  }
  std::string token = json["access_token"].get<std::string>();
  for (unsigned char ch : token) {
    if (ch <= 0x20 || ch == 0x7f) {
      return absl::FailedPreconditionError("OAuth2 access_token holds spaces or control characters");
    }
  }
  if (token.empty()) return absl::FailedPreconditionError("OAuth2 access_token is empty");
  // depot reads expires_in as a string-valued map entry; accept a number too.
  int64_t expires_in = 3600;
  if (json.contains("expires_in")) {
    const auto& e = json["expires_in"];
    if (e.is_number_integer()) {
      expires_in = e.get<int64_t>();
    } else if (e.is_string() && !absl::SimpleAtoi(e.get<std::string>(), &expires_in)) {
      expires_in = 3600;
    }
  }
  token_ = std::move(token);
  expires_at_ = clock_() + absl::Seconds(expires_in);
  return token_;
}

}  // namespace sluice::sink
