// Slack's Web API (https://api.slack.com/web) as one slack receiver is
// configured: its bot token and API base URL. The receiver type sends with
// it (chat.postMessage, users.lookupByEmail); interactive approvals (issue
// 44) call users.info, auth.test, chat.update, chat.postEphemeral and
// views.open with the token of the receiver that sent the message.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_WEB_API_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_WEB_API_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/http_client.h"
#include "nlohmann/json.hpp"

namespace sluice::notification::receivers {

// The longest Slack `error` code repeated in messages.
inline constexpr size_t kMaxSlackErrorLength = 64;

// Sends `req` for Web API `method`: the parsed reply when it says
// {"ok": true}. {"ok": false} is FailedPrecondition (ResourceExhausted for
// "ratelimited") with the message "slack <method>: <error>", <error> being
// Slack's code when it is 1-64 characters of [a-z_] and
// "unrecognised_error" otherwise; a non-2xx status, a reply that is not a
// JSON object or has no boolean "ok" fails too.
absl::StatusOr<nlohmann::json> CallSlackMethod(HttpClient* http, const HttpRequest& req,
                                               absl::string_view method);

class SlackWebApi {
 public:
  // `http` is borrowed; `api` is the base URL without a trailing slash
  // (e.g. https://slack.com/api); `token` the bot token (xoxb-…).
  SlackWebApi(HttpClient* http, std::string api, std::string token)
      : http_(http), api_(std::move(api)), token_(std::move(token)) {}

  // auth.test: the token's workspace (team) id, e.g. "T0123".
  absl::StatusOr<std::string> TeamId() const;
  // users.info: the user's email. FailedPrecondition "slack users.info: no
  // email" when Slack gives none (the app lacks the users:read.email scope).
  absl::StatusOr<std::string> UserEmail(const std::string& user_id) const;
  // chat.update of message `ts` in `channel` with `message` (text, blocks).
  absl::Status UpdateMessage(const std::string& channel, const std::string& ts,
                             nlohmann::json message) const;
  // chat.postEphemeral: `text` in `channel`, shown to `user` only.
  absl::Status PostEphemeral(const std::string& channel, const std::string& user,
                             const std::string& text) const;
  // views.open of modal `view` with the interaction's `trigger_id` (good
  // once, for 3 s).
  absl::Status OpenView(const std::string& trigger_id, const nlohmann::json& view) const;

 private:
  // POSTs `args` as JSON (the write methods) or, with `form`, form-encoded
  // (users.info and auth.test take no JSON body).
  absl::StatusOr<nlohmann::json> Post(absl::string_view method, const nlohmann::json& args,
                                      bool form = false) const;
  HttpClient* http_;
  std::string api_;
  std::string token_;
};

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_SLACK_SLACK_WEB_API_H_
