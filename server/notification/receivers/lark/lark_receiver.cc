#include "server/notification/receivers/lark/lark_receiver.h"

#include "absl/strings/str_cat.h"
#include "server/notification/receivers/config_util.h"

namespace sluice::notification::receivers {
namespace {

// Lark's "request frequency limit" code.
constexpr long long kLarkRateLimited = 99991400;

}  // namespace

absl::Status LarkReceiver::ValidateChannel(const nlohmann::json& config, bool required) {
  if (required || (config.is_object() && config.contains("channel_name"))) {
    if (auto st = RequireString(config, "channel_name"); !st.ok()) return st;
  }
  if (config.is_object() && config.contains("channel_type")) {
    const nlohmann::json& type = config["channel_type"];
    if (!type.is_string() || (type != "channel" && type != "user")) {
      return absl::InvalidArgumentError(
          "configurations.channel_type: must be \"channel\" or \"user\"");
    }
  }
  return absl::OkStatus();
}

absl::Status LarkReceiver::ValidateConfig(const nlohmann::json& config) const {
  if (auto st = RequireString(config, "client_id"); !st.ok()) return st;
  if (auto st = RequireString(config, "client_secret"); !st.ok()) return st;
  if (auto st = ValidateChannel(config, false); !st.ok()) return st;
  return OptionalHttpUrl(config, "api_url");
}

absl::StatusOr<nlohmann::json> LarkReceiver::Call(const HttpRequest& req,
                                                  absl::string_view op) const {
  auto res = http_->Do(req);
  if (!res.ok()) return res.status();
  if (res->status / 100 != 2) return HttpStatusToError(absl::StrCat("lark ", op), *res);
  auto reply = nlohmann::json::parse(res->body, nullptr, false);
  if (!reply.is_object() || !reply.contains("code") || !reply["code"].is_number_integer()) {
    return absl::FailedPreconditionError(absl::StrCat("lark ", op, ": reply has no integer code"));
  }
  long long code = reply["code"].get<long long>();
  if (code == 0) return reply;
  std::string msg = absl::StrCat("lark ", op, ": code ", code);
  if (code == kLarkRateLimited) return absl::ResourceExhaustedError(msg);
  return absl::FailedPreconditionError(msg);
}

absl::Status LarkReceiver::Send(const nlohmann::json& config, const nlohmann::json& payload) {
  if (auto st = LarkReceiver::ValidateConfig(config); !st.ok()) return st;
  if (!RequireString(config, "channel_name").ok()) {
    return absl::FailedPreconditionError(
        "configurations.channel_name: is required to send (set it on the receiver, the "
        "subscription's receiver configuration or a lark_channel)");
  }
  std::string api = StringOr(config, "api_url", api_);
  while (!api.empty() && api.back() == '/') api.pop_back();

  HttpRequest auth;
  auth.url = absl::StrCat(api, "/open-apis/auth/v3/tenant_access_token/internal");
  auth.headers = {"Content-Type: application/json; charset=utf-8"};
  auth.body = nlohmann::json{{"app_id", config["client_id"]},
                             {"app_secret", config["client_secret"]}}
                  .dump();
  auto token_reply = Call(auth, "tenant_access_token");
  if (!token_reply.ok()) return token_reply.status();
  std::string token = StringOr(*token_reply, "tenant_access_token", "");
  if (token.empty()) {
    return absl::FailedPreconditionError("lark tenant_access_token: reply has no token");
  }
  std::string bearer = absl::StrCat("Authorization: Bearer ", token);

  std::string name = config["channel_name"].get<std::string>();
  std::string id_type = "email", receive_id = name;
  if (StringOr(config, "channel_type", "channel") == "channel") {
    id_type = "chat_id";
    receive_id.clear();
    std::string page;
    for (int pages = 0; pages < 100 && receive_id.empty(); ++pages) {
      HttpRequest list;
      list.method = "GET";
      list.url = absl::StrCat(api, "/open-apis/im/v1/chats?page_size=100",
                              page.empty() ? "" : "&page_token=", UrlEscape(page));
      list.headers = {bearer};
      auto chats = Call(list, "im.chat.list");
      if (!chats.ok()) return chats.status();
      const nlohmann::json& data = (*chats).contains("data") ? (*chats)["data"] : nlohmann::json();
      if (data.is_object() && data.contains("items") && data["items"].is_array()) {
        for (const auto& c : data["items"]) {
          if (c.is_object() && StringOr(c, "name", "") == name) {
            receive_id = StringOr(c, "chat_id", "");
            break;
          }
        }
      }
      bool more = data.is_object() && data.contains("has_more") && data["has_more"].is_boolean() &&
                  data["has_more"].get<bool>();
      page = data.is_object() ? StringOr(data, "page_token", "") : "";
      if (!more || page.empty()) break;
    }
    if (receive_id.empty()) {
      return absl::FailedPreconditionError(
          "lark im.chat.list: the app is not a member of a chat with channel_name");
    }
  }

  nlohmann::json body = {{"receive_id", receive_id}};
  if (payload.is_object() && payload.contains("msg_type") && payload["msg_type"].is_string() &&
      payload.contains("content")) {
    body["msg_type"] = payload["msg_type"];
    body["content"] = payload["content"].is_string() ? payload["content"].get<std::string>()
                                                     : payload["content"].dump();
  } else if (payload.is_object() && payload.size() == 1 && payload.contains("text") &&
             payload["text"].is_string()) {
    body["msg_type"] = "text";
    body["content"] = nlohmann::json{{"text", payload["text"]}}.dump();
  } else {
    body["msg_type"] = "interactive";
    body["content"] = payload.dump();
  }
  HttpRequest post;
  post.url = absl::StrCat(api, "/open-apis/im/v1/messages?receive_id_type=", id_type);
  post.headers = {bearer, "Content-Type: application/json; charset=utf-8"};
  post.body = body.dump();
  auto sent = Call(post, "im.message.create");
  return sent.ok() ? absl::OkStatus() : sent.status();
}

}  // namespace sluice::notification::receivers
