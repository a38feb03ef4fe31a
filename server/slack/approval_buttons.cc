#include "server/slack/approval_buttons.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "server/access/core/access_events.h"

namespace sluice::slack {
namespace {

using nlohmann::json;

// Slack counts characters, not bytes: the UTF-8 code points of s (bytes
// that are not continuation bytes).
size_t Chars(absl::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool IsApproverEvent(const json& event) {
  if (!event.is_string()) return false;
  const std::string& e = event.get_ref<const std::string&>();
  return e == access::kEventAppealCreated || e == access::kEventStepApproved ||
         e == access::kEventPendingReminder;
}

json Button(const char* label, const char* action_id, const char* style, const std::string& value) {
  return {{"type", "button"},
          {"action_id", action_id},
          {"style", style},
          {"text", {{"type", "plain_text"}, {"text", label}}},
          {"value", value}};
}

}  // namespace

absl::StatusOr<bool> AddApprovalButtons(const json& data, uint64_t receiver_id, json* payload) {
  if (!data.is_object() || !IsApproverEvent(data.value("event", json()))) return false;
  const json appeal_id = data.value("appeal_id", json());
  const json step = data.value("step", json());
  bool id_ok = (appeal_id.is_string() && !appeal_id.get_ref<const std::string&>().empty()) ||
               appeal_id.is_number_integer();
  if (!id_ok || !step.is_string() || step.get_ref<const std::string&>().empty()) return false;

  // Work on a copy: the payload changes only when everything fits.
  json out = payload->is_string() ? json{{"text", *payload}} : *payload;
  if (!out.is_object()) {
    return absl::InvalidArgumentError("Slack payload is not a JSON object: no approval buttons");
  }
  if (out.contains("blocks") && !out["blocks"].is_array()) {
    return absl::InvalidArgumentError("Slack payload's \"blocks\" is not an array: no approval buttons");
  }
  json blocks = out.value("blocks", json::array());
  for (const json& b : blocks) {
    if (b.is_object() && b.value("block_id", json()) == kApprovalButtonsBlockId) {
      return absl::AlreadyExistsError(
          absl::StrCat("Slack payload already has a block \"", kApprovalButtonsBlockId, "\""));
    }
  }
  if (!out.contains("blocks") && out.contains("text") && out["text"].is_string() &&
      !out["text"].get_ref<const std::string&>().empty()) {
    const std::string& text = out["text"].get_ref<const std::string&>();
    if (Chars(text) > kMaxSectionTextChars) {
      return absl::InvalidArgumentError(
          absl::StrCat("Slack message text of ", Chars(text), " characters exceeds a section's ",
                       kMaxSectionTextChars, " (Block Kit): no approval buttons"));
    }
    blocks.push_back({{"type", "section"}, {"text", {{"type", "mrkdwn"}, {"text", text}}}});
  }
  if (blocks.size() + 1 > kMaxMessageBlocks) {
    return absl::InvalidArgumentError(
        absl::StrCat("Slack message has ", blocks.size(), " blocks, Slack allows ", kMaxMessageBlocks,
                     ": no room for the approval buttons"));
  }
  // Invalid UTF-8 in a name becomes U+FFFD rather than an exception.
  // appeal_id always as a string (appeal ids are strings; the interaction
  // handler reads a string), receiver_id as an unsigned JSON number.
  const std::string id = appeal_id.is_string() ? appeal_id.get<std::string>() : appeal_id.dump();
  std::string value = json{{"appeal_id", id}, {"approval_name", step}, {"receiver_id", receiver_id}}
                          .dump(-1, ' ', false, json::error_handler_t::replace);
  if (Chars(value) > kMaxButtonValueChars) {
    return absl::InvalidArgumentError(
        absl::StrCat("approval button value of ", Chars(value), " characters exceeds Slack's ",
                     kMaxButtonValueChars, " (Block Kit button): no approval buttons"));
  }
  blocks.push_back({{"type", "actions"},
                    {"block_id", kApprovalButtonsBlockId},
                    {"elements", {Button("Approve", kApproveButtonActionId, "primary", value),
                                  Button("Reject", kRejectButtonActionId, "danger", value)}}});
  out["blocks"] = std::move(blocks);
  *payload = std::move(out);
  return true;
}

}  // namespace sluice::slack
