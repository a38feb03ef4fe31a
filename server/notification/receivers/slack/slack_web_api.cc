#include "server/notification/receivers/slack/slack_web_api.h"

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {
namespace {

// Slack's `error` field is an enum-like token ("channel_not_found"). Only
// such a token is repeated in messages: anything else may be text the far
// side chose (e.g. a file's content) and is replaced.
std::string ErrorCode(const nlohmann::json& reply) {
  if (!reply.contains("error") || !reply["error"].is_string()) return "unknown_error";
  const std::string& e = reply["error"].get_ref<const std::string&>();
  if (e.empty() || e.size() > kMaxSlackErrorLength) return "unrecognised_error";
  for (char c : e) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return "unrecognised_error";
  }
  return e;
}

}  // namespace

absl::StatusOr<nlohmann::json> CallSlackMethod(HttpClient* http, const HttpRequest& req,
                                               absl::string_view method) {
  auto res = http->Do(req);
  if (!res.ok()) return res.status();
  if (res->status / 100 != 2) return HttpStatusToError(absl::StrCat("slack ", method), *res);
  auto reply = nlohmann::json::parse(res->body, nullptr, false);
  if (!reply.is_object()) {
    return absl::UnavailableError(absl::StrCat("slack ", method, ": reply is not JSON"));
  }
  if (!reply.contains("ok") || !reply["ok"].is_boolean()) {
    return absl::FailedPreconditionError(
        absl::StrCat("slack ", method, ": reply has no boolean \"ok\""));
  }
  if (!reply["ok"].get<bool>()) {
    std::string error = ErrorCode(reply);
    std::string msg = absl::StrCat("slack ", method, ": ", error);
    if (error == "ratelimited") return absl::ResourceExhaustedError(msg);
    return absl::FailedPreconditionError(msg);
  }
  return reply;
}

absl::StatusOr<nlohmann::json> SlackWebApi::Post(absl::string_view method,
                                                 const nlohmann::json& args, bool form) const {
  HttpRequest req;
  req.url = absl::StrCat(api_, "/", method);
  req.headers = {absl::StrCat("Authorization: Bearer ", token_)};
  if (form) {
    req.headers.push_back("Content-Type: application/x-www-form-urlencoded");
    for (auto it = args.begin(); it != args.end(); ++it) {
      absl::StrAppend(&req.body, req.body.empty() ? "" : "&", UrlEscape(it.key()), "=",
                      UrlEscape(it.value().is_string() ? it.value().get<std::string>()
                                                       : it.value().dump(-1, ' ', false,
                                                                         nlohmann::json::error_handler_t::replace)));
    }
  } else {
    req.headers.push_back("Content-Type: application/json; charset=utf-8");
    // Text from Slack or users may hold invalid UTF-8: replaced, not thrown.
    req.body = args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return CallSlackMethod(http_, req, method);
}

absl::StatusOr<std::string> SlackWebApi::TeamId() const {
  auto reply = Post("auth.test", nlohmann::json::object(), /*form=*/true);
  if (!reply.ok()) return reply.status();
  std::string team = StringOr(*reply, "team_id", "");
  if (team.empty()) return absl::FailedPreconditionError("slack auth.test: reply has no team_id");
  return team;
}

absl::StatusOr<std::string> SlackWebApi::UserEmail(const std::string& user_id) const {
  auto reply = Post("users.info", {{"user", user_id}}, /*form=*/true);
  if (!reply.ok()) return reply.status();
  std::string email;
  if (reply->contains("user") && (*reply)["user"].is_object() &&
      (*reply)["user"].contains("profile") && (*reply)["user"]["profile"].is_object()) {
    email = StringOr((*reply)["user"]["profile"], "email", "");
  }
  if (email.empty()) {
    return absl::FailedPreconditionError(
        "slack users.info: no email (the Slack app needs the users:read.email scope)");
  }
  return email;
}

absl::Status SlackWebApi::UpdateMessage(const std::string& channel, const std::string& ts,
                                        nlohmann::json message) const {
  message["channel"] = channel;
  message["ts"] = ts;
  return Post("chat.update", message).status();
}

absl::Status SlackWebApi::PostEphemeral(const std::string& channel, const std::string& user,
                                        const std::string& text) const {
  return Post("chat.postEphemeral", {{"channel", channel}, {"user", user}, {"text", text}})
      .status();
}

absl::Status SlackWebApi::OpenView(const std::string& trigger_id, const nlohmann::json& view) const {
  return Post("views.open", {{"trigger_id", trigger_id}, {"view", view}}).status();
}

}  // namespace sluice::notification::receivers
