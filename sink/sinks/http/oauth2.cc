#include "sink/sinks/http/oauth2.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace sluice::sink {

OAuth2TokenSource::OAuth2TokenSource(OAuth2Config config, std::unique_ptr<HttpClient> http,
                                     std::function<absl::Time()> clock)
    : config_(std::move(config)), http_(std::move(http)), clock_(std::move(clock)) {}

absl::StatusOr<std::string> OAuth2TokenSource::Token() {
  absl::Time now = clock_();
  if (!token_.empty() && now + kRefreshMargin < expires_at_) return token_;
  HttpRequest req;
  req.method = "POST";
  req.url = config_.token_url;
  req.headers = {
      "Content-Type: application/x-www-form-urlencoded",
      "Accept: application/json",
      absl::StrCat("Authorization: Basic ",
                   absl::Base64Escape(absl::StrCat(UrlEscape(config_.client_name), ":",
                                                   UrlEscape(config_.client_secret))))};
  req.body = "grant_type=client_credentials";
  if (!config_.scope.empty()) absl::StrAppend(&req.body, "&scope=", UrlEscape(config_.scope));
  auto resp = http_->Do(req);
  const std::string what = absl::StrCat("oauth2 token endpoint ", config_.token_url);
  if (!resp.ok()) {
    return absl::UnavailableError(absl::StrCat(what, ": ", resp.status().message()));
  }
  nlohmann::json body = nlohmann::json::parse(resp->body, nullptr, /*allow_exceptions=*/false);
  if (resp->status < 200 || resp->status >= 300) {
    // RFC 6749 §5.2: {"error": "...", "error_description": "..."}.
    if (body.is_object() && body.contains("error") && body["error"].is_string()) {
      std::string err = body["error"].get<std::string>();
      if (body.contains("error_description") && body["error_description"].is_string()) {
        absl::StrAppend(&err, ": ", body["error_description"].get<std::string>());
      }
      absl::Status st = HttpStatusToError(what, *resp);
      return absl::Status(st.code(), absl::StrCat(what, " -> ", resp->status, ": ", err));
    }
    return HttpStatusToError(what, *resp);
  }
  if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string() ||
      body["access_token"].get<std::string>().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(what, ": the answer has no access_token"));
  }
  if (body.contains("token_type") && body["token_type"].is_string() &&
      !absl::EqualsIgnoreCase(body["token_type"].get<std::string>(), "bearer")) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": token_type \"", body["token_type"].get<std::string>(),
                     "\" is not Bearer"));
  }
  std::string token = body["access_token"].get<std::string>();
  for (char ch : token) {
    // RFC 6750 §2.1 b64token; above all no CR/LF, which libcurl would send
    // as is, splitting the Authorization header of every request.
    unsigned char c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f) {
      return absl::FailedPreconditionError(
          absl::StrCat(what, ": the access_token holds spaces or control characters"));
    }
  }
  token_ = std::move(token);
  expires_at_ = absl::InfiniteFuture();
  if (body.contains("expires_in") && body["expires_in"].is_number()) {
    expires_at_ = now + absl::Seconds(body["expires_in"].get<double>());
  }
  return token_;
}

}  // namespace sluice::sink
