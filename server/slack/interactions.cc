#include "server/slack/interactions.h"

#include <curl/curl.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "server/notification/receivers/config_util.h"
#include "server/slack/request_signature.h"
#include "spdlog/spdlog.h"

namespace sluice::slack {
namespace {

// The modal's input.
constexpr char kReasonBlockId[] = "reason";
constexpr char kReasonActionId[] = "reason";

using notification::receivers::Utf8Prefix;

// j[key] as a string, "" when absent or not a string.
std::string Str(const nlohmann::json& j, const char* key) {
  return notification::receivers::StringOr(j, key, "");
}

// j[a][b] as a string, "" when absent.
std::string Str2(const nlohmann::json& j, const char* a, const char* b) {
  if (!j.is_object() || !j.contains(a)) return "";
  return Str(j[a], b);
}

// What a button (or the modal's private_metadata) names.
struct Target {
  std::string appeal_id;
  std::string approval_name;
  uint64_t receiver_id = 0;
  std::string channel;  // the message's, for chat.update
  std::string ts;
  std::string text;  // the message's text (modal metadata only)
};

absl::StatusOr<Target> ParseTarget(const std::string& text, const char* what) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  Target t;
  t.appeal_id = Str(j, "appeal_id");
  t.approval_name = Str(j, "approval_name");
  if (j.is_object() && j.contains("receiver_id") && j["receiver_id"].is_number_unsigned()) {
    t.receiver_id = j["receiver_id"].get<uint64_t>();
  }
  t.channel = Str(j, "channel");
  t.ts = Str(j, "ts");
  t.text = Str(j, "text");
  if (t.appeal_id.empty() || t.approval_name.empty() || t.receiver_id == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": not one of Sluice's approval buttons (want appeal_id, approval_name, receiver_id)"));
  }
  return t;
}

// The message with its buttons replaced by `outcome` (a context line).
nlohmann::json Settled(const nlohmann::json& message, const std::string& outcome) {
  nlohmann::json blocks = nlohmann::json::array();
  if (message.is_object() && message.contains("blocks") && message["blocks"].is_array()) {
    for (const auto& b : message["blocks"]) {
      if (Str(b, "block_id") != kApprovalButtonsBlockId) blocks.push_back(b);
    }
  }
  blocks.push_back({{"type", "context"},
                    {"elements", {{{"type", "mrkdwn"}, {"text", outcome}}}}});
  std::string text = Str(message, "text");
  return {{"text", text.empty() ? outcome : absl::StrCat(text, "\n", outcome)},
          {"blocks", std::move(blocks)}};
}

// The message's text for a refusal: the step, the appeal and why.
std::string Refusal(const char* verb, const Target& t, const absl::Status& why) {
  return absl::StrCat("Sluice did not ", verb, " step \"", EscapeMrkdwn(t.approval_name),
                      "\" of appeal ", EscapeMrkdwn(t.appeal_id), ": ",
                      EscapeMrkdwn(std::string(why.message())));
}

// Whether `s` is Act refusing the action (answered in Slack) rather than a
// failure of the server.
bool IsRefusal(const absl::Status& s) {
  return absl::IsPermissionDenied(s) || absl::IsFailedPrecondition(s) || absl::IsNotFound(s) ||
         absl::IsInvalidArgument(s);
}

std::string Outcome(const char* done, const std::string& email, const access::v1beta1::Appeal& a) {
  std::string out = absl::StrCat(done, " by ", EscapeMrkdwn(email), " via Slack");
  if (a.status() == "approved") absl::StrAppend(&out, "; the appeal is approved");
  if (a.status() == "rejected") absl::StrAppend(&out, "; the appeal is rejected");
  return out;
}

nlohmann::json RejectModal(const Target& t, const nlohmann::json& message) {
  // private_metadata holds at most 3,000 characters: the message's text is
  // cut to leave room for the rest, and comes back to update the message.
  std::string context = Utf8Prefix(Str(message, "text"), 1500);
  nlohmann::json meta = {{"appeal_id", t.appeal_id}, {"approval_name", t.approval_name},
                         {"receiver_id", t.receiver_id}, {"channel", t.channel}, {"ts", t.ts},
                         {"text", context}};
  nlohmann::json blocks = nlohmann::json::array();
  if (!context.empty()) {
    blocks.push_back({{"type", "section"}, {"text", {{"type", "mrkdwn"}, {"text", context}}}});
  }
  blocks.push_back(
      {{"type", "input"},
       {"block_id", kReasonBlockId},
       {"label", {{"type", "plain_text"}, {"text", "Why do you reject this appeal?"}}},
       {"element",
        {{"type", "plain_text_input"},
         {"action_id", kReasonActionId},
         {"multiline", true},
         {"max_length", kMaxReasonLength}}}});
  return {{"type", "modal"},
          {"callback_id", kRejectCallbackId},
          {"private_metadata", meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)},
          {"title", {{"type", "plain_text"}, {"text", "Reject appeal"}}},
          {"submit", {{"type", "plain_text"}, {"text", "Reject"}}},
          {"close", {{"type", "plain_text"}, {"text", "Cancel"}}},
          {"blocks", std::move(blocks)}};
}

}  // namespace

std::string EscapeMrkdwn(const std::string& s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}});
}

absl::StatusOr<std::string> FormPayload(const std::string& body) {
  for (absl::string_view pair : absl::StrSplit(body, '&')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    if (kv.first != "payload") continue;
    std::string plus = absl::StrReplaceAll(kv.second, {{"+", " "}});
    int n = 0;
    char* raw = curl_easy_unescape(nullptr, plus.data(), static_cast<int>(plus.size()), &n);
    if (raw == nullptr) return absl::ResourceExhaustedError("decoding the payload: out of memory");
    std::string out(raw, static_cast<size_t>(n));
    curl_free(raw);
    return out;
  }
  return absl::InvalidArgumentError(
      "body: no `payload` field (Slack posts interactions as payload=<JSON>, form-encoded)");
}

absl::StatusOr<std::string> SlackInteractions::Handle(const std::string& body,
                                                      const std::string& timestamp,
                                                      const std::string& signature) {
  if (body.size() > kMaxInteractionBody) {
    return absl::InvalidArgumentError(
        absl::StrCat("body: more than ", kMaxInteractionBody, " bytes"));
  }
  if (deps_.signing_secrets.empty()) {
    return absl::FailedPreconditionError(
        "Slack interactions are not configured: list the workspaces and their Slack apps' "
        "signing secrets in access.slack_interactions");
  }
  auto text = FormPayload(body);
  if (!text.ok()) return text.status();
  auto payload = nlohmann::json::parse(*text, nullptr, false);
  if (!payload.is_object()) return absl::InvalidArgumentError("payload: not a JSON object");
  // The workspace picks the secret; the signature then proves the payload,
  // team id included, came from Slack with that secret.
  const std::string team = Str2(payload, "team", "id");
  auto secret = deps_.signing_secrets.find(team);
  if (team.empty() || secret == deps_.signing_secrets.end()) {
    return absl::UnauthenticatedError(absl::StrCat(
        "payload.team.id: no Slack signing secret is configured for workspace \"", team.substr(0, 32),
        "\" (access.slack_interactions.workspaces)"));
  }
  const absl::Time now = deps_.now();
  if (auto st = VerifySlackSignature(secret->second, timestamp, signature, body, now); !st.ok()) {
    return st;
  }
  int64_t seconds = 0;
  (void)absl::SimpleAtoi(timestamp, &seconds);
  // Kept until the timestamp leaves the window: after that the timestamp
  // check refuses the request anyway.
  if (auto st = deps_.remember(signature, absl::FromUnixSeconds(seconds) + kSignatureMaxSkew);
      !st.ok()) {
    if (absl::IsAlreadyExists(st)) {
      return absl::UnauthenticatedError(
          "X-Slack-Signature: this request was received before (a replay); Slack signs each "
          "delivery anew");
    }
    return st;
  }
  const std::string type = Str(payload, "type");
  if (type == "block_actions") return OnButton(payload, team);
  if (type == "view_submission" && Str2(payload, "view", "callback_id") == kRejectCallbackId) {
    return OnRejectSubmitted(payload, team);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "payload.type: \"", type.substr(0, 32),
      "\" is not handled (Sluice answers block_actions of its Approve and Reject buttons and the "
      "reject-reason modal's view_submission)"));
}

namespace {

// The receiver's Web API after checking that its token belongs to `team`.
absl::StatusOr<std::unique_ptr<notification::receivers::SlackWebApi>> BoundApi(
    const InteractionDeps& deps, uint64_t receiver_id, const std::string& team) {
  auto api = deps.slack(receiver_id);
  if (!api.ok()) return api.status();
  auto token_team = (*api)->TeamId();
  if (!token_team.ok()) return token_team.status();
  if (*token_team != team) {
    return absl::PermissionDeniedError(absl::StrCat(
        "receiver ", receiver_id, "'s Slack token belongs to another workspace than the request's"));
  }
  return api;
}

}  // namespace

absl::StatusOr<std::string> SlackInteractions::OnButton(const nlohmann::json& payload,
                                                        const std::string& team) {
  if (!payload.contains("actions") || !payload["actions"].is_array() ||
      payload["actions"].empty()) {
    return absl::InvalidArgumentError("payload.actions: want one action");
  }
  const nlohmann::json& action = payload["actions"][0];
  const std::string action_id = Str(action, "action_id");
  if (action_id != kApproveButtonActionId && action_id != kRejectButtonActionId) {
    return absl::InvalidArgumentError(absl::StrCat(
        "payload.actions[0].action_id: \"", action_id.substr(0, 32), "\" is not Sluice's (",
        kApproveButtonActionId, " or ", kRejectButtonActionId, ")"));
  }
  auto target = ParseTarget(Str(action, "value"), "payload.actions[0].value");
  if (!target.ok()) return target.status();
  target->channel = Str2(payload, "container", "channel_id");
  if (target->channel.empty()) target->channel = Str2(payload, "channel", "id");
  target->ts = Str2(payload, "container", "message_ts");
  const std::string user = Str2(payload, "user", "id");
  if (user.empty()) return absl::InvalidArgumentError("payload.user.id: missing");
  auto api = BoundApi(deps_, target->receiver_id, team);
  if (!api.ok()) return api.status();
  const nlohmann::json message = payload.contains("message") ? payload["message"] : nlohmann::json();
  if (action_id == kRejectButtonActionId) {
    // The reason first; the modal's submission rejects (OnRejectSubmitted).
    if (auto st = (*api)->OpenView(Str(payload, "trigger_id"), RejectModal(*target, message));
        !st.ok()) {
      return st;
    }
    return std::string();
  }
  auto email = (*api)->UserEmail(user);
  if (!email.ok()) return email.status();
  auto acted = deps_.act(target->appeal_id, target->approval_name, "approve", *email, "",
                         {{"via", "slack"}, {"slack_user_id", user}, {"slack_team_id", team}});
  if (!acted.ok()) {
    if (!IsRefusal(acted.status())) return acted.status();
    if (auto st = (*api)->PostEphemeral(target->channel, user,
                                        Refusal("approve", *target, acted.status()));
        !st.ok()) {
      spdlog::warn("slack interaction: telling {} why was refused: {}", user, st.ToString());
    }
    return std::string();
  }
  if (!target->ts.empty()) {
    if (auto st = (*api)->UpdateMessage(target->channel, target->ts,
                                        Settled(message, Outcome("Approved", *email, *acted)));
        !st.ok()) {
      // The approval stands: only the message is stale.
      spdlog::warn("slack interaction: chat.update after approving appeal {}: {}",
                   target->appeal_id, st.ToString());
    }
  }
  return std::string();
}

absl::StatusOr<std::string> SlackInteractions::OnRejectSubmitted(const nlohmann::json& payload,
                                                                 const std::string& team) {
  const nlohmann::json& view = payload["view"];
  auto target = ParseTarget(Str(view, "private_metadata"), "payload.view.private_metadata");
  if (!target.ok()) return target.status();
  std::string reason;
  if (view.contains("state") && view["state"].is_object() && view["state"].contains("values") &&
      view["state"]["values"].is_object() && view["state"]["values"].contains(kReasonBlockId)) {
    reason = Str2(view["state"]["values"][kReasonBlockId], kReasonActionId, "value");
  }
  auto field_error = [](const std::string& text) {
    return nlohmann::json{{"response_action", "errors"},
                          {"errors", {{kReasonBlockId, Utf8Prefix(text, 2000)}}}}
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (reason.empty()) return field_error("Give a reason.");
  if (reason.size() > static_cast<size_t>(kMaxReasonLength) * 4) {
    return field_error("The reason is too long.");
  }
  const std::string user = Str2(payload, "user", "id");
  if (user.empty()) return absl::InvalidArgumentError("payload.user.id: missing");
  auto api = BoundApi(deps_, target->receiver_id, team);
  if (!api.ok()) return api.status();
  auto email = (*api)->UserEmail(user);
  if (!email.ok()) return email.status();
  auto acted = deps_.act(target->appeal_id, target->approval_name, "reject", *email, reason,
                         {{"via", "slack"}, {"slack_user_id", user}, {"slack_team_id", team}});
  if (!acted.ok()) {
    if (!IsRefusal(acted.status())) return acted.status();
    // Shown under the reason field, to this user only.
    return field_error(std::string(acted.status().message()));
  }
  if (!target->channel.empty() && !target->ts.empty()) {
    // The message as Slack showed it is not in a view_submission: the
    // outcome replaces the buttons' block and keeps the text.
    nlohmann::json message = {
        {"text", target->text.empty() ? absl::StrCat("Appeal ", target->appeal_id) : target->text}};
    std::string outcome =
        absl::StrCat(Outcome("Rejected", *email, *acted), ": ", EscapeMrkdwn(reason));
    if (auto st = (*api)->UpdateMessage(target->channel, target->ts, Settled(message, outcome));
        !st.ok()) {
      spdlog::warn("slack interaction: chat.update after rejecting appeal {}: {}",
                   target->appeal_id, st.ToString());
    }
  }
  return std::string();
}

}  // namespace sluice::slack
