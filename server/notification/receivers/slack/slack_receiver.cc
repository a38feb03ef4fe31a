#include "server/notification/receivers/slack/slack_receiver.h"

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {
namespace {

constexpr const char* kOAuthKeys[] = {"client_id", "client_secret", "auth_code"};

}  // namespace

std::string SlackReceiver::Api(const nlohmann::json& config) const {
  std::string api = StringOr(config, "api_url", api_);
  while (!api.empty() && api.back() == '/') api.pop_back();
  return api;
}

absl::StatusOr<nlohmann::json> SlackReceiver::PrepareConfig(nlohmann::json config) const {
  if (!config.is_object()) return config;
  bool oauth = false;
  for (const char* k : kOAuthKeys) oauth = oauth || config.contains(k);
  if (!oauth) return config;
  for (const char* k : kOAuthKeys) {
    if (auto st = RequireString(config, k); !st.ok()) return st;
  }
  if (config.contains("token")) {
    return absl::InvalidArgumentError(
        "configurations.token: give either token or client_id/client_secret/auth_code");
  }
  if (auto st = OptionalHttpUrl(config, "api_url"); !st.ok()) return st;
  HttpRequest req;
  req.url = absl::StrCat(Api(config), "/oauth.v2.access");
  req.headers = {"Content-Type: application/x-www-form-urlencoded"};
  req.body = absl::StrCat("code=", UrlEscape(config["auth_code"].get<std::string>()),
                          "&client_id=", UrlEscape(config["client_id"].get<std::string>()),
                          "&client_secret=", UrlEscape(config["client_secret"].get<std::string>()));
  auto reply = Call(req, "oauth.v2.access");
  if (!reply.ok()) return reply.status();
  std::string token = StringOr(*reply, "access_token", "");
  std::string team;
  if (reply->contains("team") && (*reply)["team"].is_object()) {
    team = StringOr((*reply)["team"], "name", "");
  }
  if (token.empty() || team.empty()) {
    return absl::FailedPreconditionError(
        "slack oauth.v2.access: reply has no access_token or team.name");
  }
  for (const char* k : kOAuthKeys) config.erase(k);
  config["token"] = token;
  config["workspace"] = team;
  return config;
}

absl::Status SlackReceiver::ValidateConfig(const nlohmann::json& config) const {
  if (auto st = RequireString(config, "token"); !st.ok()) return st;
  if (config.is_object() && config.contains("workspace")) {
    if (auto st = RequireString(config, "workspace"); !st.ok()) return st;
    if (config.contains("channel_name")) {
      if (auto st = RequireString(config, "channel_name"); !st.ok()) return st;
    }
  } else if (auto st = RequireString(config, "channel_name"); !st.ok()) {
    return st;
  }
  if (config.contains("channel_type")) {
    const nlohmann::json& type = config["channel_type"];
    if (!type.is_string() || (type != "channel" && type != "user")) {
      return absl::InvalidArgumentError(
          "configurations.channel_type: must be \"channel\" or \"user\"");
    }
  }
  return OptionalHttpUrl(config, "api_url");
}

absl::StatusOr<nlohmann::json> SlackReceiver::Call(const HttpRequest& req,
                                                   absl::string_view method) const {
  return CallSlackMethod(http_, req, method);
}

absl::Status SlackReceiver::Send(const nlohmann::json& config, const nlohmann::json& payload) {
  if (auto st = ValidateConfig(config); !st.ok()) return st;
  std::string api = Api(config);
  if (!RequireString(config, "token").ok()) {
    return absl::FailedPreconditionError("configurations.token: is required to send");
  }
  if (!RequireString(config, "channel_name").ok()) {
    return absl::FailedPreconditionError(
        "configurations.channel_name: is required to send (set it on the receiver or on the "
        "subscription's receiver configuration)");
  }
  std::string auth = absl::StrCat("Authorization: Bearer ", StringOr(config, "token", ""));
  std::string channel = StringOr(config, "channel_name", "");
  if (StringOr(config, "channel_type", "channel") == "user") {
    HttpRequest lookup;
    lookup.method = "GET";
    lookup.url = absl::StrCat(api, "/users.lookupByEmail?email=", UrlEscape(channel));
    lookup.headers = {auth};
    auto user = Call(lookup, "users.lookupByEmail");
    if (!user.ok()) return user.status();
    const nlohmann::json& reply = *user;
    channel.clear();
    if (reply.contains("user") && reply["user"].is_object() && reply["user"].contains("id") &&
        reply["user"]["id"].is_string()) {
      channel = reply["user"]["id"].get<std::string>();
    }
    if (channel.empty()) {
      return absl::FailedPreconditionError("slack users.lookupByEmail: reply has no user.id");
    }
  }
  nlohmann::json body = nlohmann::json::object();
  if (payload.is_object()) body = payload;
  if (!body.contains("text") && !body.contains("blocks") && !body.contains("attachments")) {
    body = {{"text", payload.is_string() ? payload.get<std::string>() : payload.dump()}};
  }
  body["channel"] = channel;
  HttpRequest post;
  post.url = absl::StrCat(api, "/chat.postMessage");
  post.headers = {auth, "Content-Type: application/json; charset=utf-8"};
  post.body = body.dump();
  auto reply = Call(post, "chat.postMessage");
  return reply.ok() ? absl::OkStatus() : reply.status();
}

}  // namespace sluice::notification::receivers
