// Approve and Reject buttons on the Slack messages that ask approvers for a
// decision (issue 44). A click makes Slack POST a block_actions payload to
// the app's interactivity URL (the gateway's /slack/interactions), carrying
// the clicked button's action_id and value.
//
// Shapes and limits are Slack's Block Kit reference:
//   https://api.slack.com/reference/block-kit/blocks#actions   (actions block)
//   https://api.slack.com/reference/block-kit/blocks#section   (section block)
//   https://api.slack.com/reference/block-kit/block-elements#button
//   https://api.slack.com/reference/messaging/payload  (at most 50 blocks)
#ifndef SLUICE_SERVER_SLACK_APPROVAL_BUTTONS_H_
#define SLUICE_SERVER_SLACK_APPROVAL_BUTTONS_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace sluice::slack {

// The ids Slack sends back with a click (payload.actions[0].block_id and
// action_id). server/slack/interactions.h, on the server side, reads the
// action ids under the names kApproveActionId / kRejectActionId; these
// names differ so that both headers can be included together.
//
// block_id of the actions block holding the two buttons.
inline constexpr char kApprovalButtonsBlockId[] = "sluice_approval";
// action_id of the Approve button (style "primary").
inline constexpr char kApproveButtonActionId[] = "sluice_approve";
// action_id of the Reject button (style "danger").
inline constexpr char kRejectButtonActionId[] = "sluice_reject";

// Slack's limits (Block Kit reference): a button's `value` is at most 2000
// characters, a section's `text` at most 3000, a message at most 50 blocks.
inline constexpr size_t kMaxButtonValueChars = 2000;
inline constexpr size_t kMaxSectionTextChars = 3000;
inline constexpr size_t kMaxMessageBlocks = 50;

// Appends the approval buttons to a Slack chat.postMessage payload when
// `data` (the notification's template data) is an approver notification:
// data["event"] is "appeal.created", "appeal.step_approved" or
// "appeal.pending_reminder" (access::kEventAppealCreated, kEventStepApproved,
// kEventPendingReminder) and data has "appeal_id" (a non-empty string or an
// integer) and "step" (the pending step's name, a non-empty string).
//
// What is appended to payload["blocks"]:
//   {"type": "actions", "block_id": "sluice_approval", "elements": [
//     {"type": "button", "action_id": "sluice_approve", "style": "primary",
//      "text": {"type": "plain_text", "text": "Approve"}, "value": V},
//     {"type": "button", "action_id": "sluice_reject", "style": "danger",
//      "text": {"type": "plain_text", "text": "Reject"}, "value": V}]}
// where V is the compact JSON {"appeal_id": "<data's, as a string>",
// "approval_name": "<step>", "receiver_id": <receiver_id, an unsigned
// integer>} (nothing secret: the server decides
// who may act when the click arrives). When the payload has no "blocks",
// a section block with the payload's "text" as mrkdwn comes first (Slack
// shows the blocks instead of "text" when both are set; "text" stays, as
// the notification's fallback). A string payload is taken as {"text": it},
// as the Slack receiver sends it.
//
// Returns true when the buttons were added; false, payload unchanged, when
// `data` is no approver notification with those fields. An error, payload
// unchanged, when the buttons cannot be added within Slack's limits or the
// payload's shape (InvalidArgument naming the limit or the field:
// a value over kMaxButtonValueChars, a text over kMaxSectionTextChars, no
// room under kMaxMessageBlocks, "blocks" not an array, a payload that is not
// an object or a string) or already holds a block "sluice_approval"
// (AlreadyExists): the caller logs it and sends the message without buttons.
absl::StatusOr<bool> AddApprovalButtons(const nlohmann::json& data, uint64_t receiver_id,
                                        nlohmann::json* payload);

}  // namespace sluice::slack

#endif  // SLUICE_SERVER_SLACK_APPROVAL_BUTTONS_H_
