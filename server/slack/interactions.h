// Approve or reject from Slack (issue 44): the requests Slack sends the
// interactivity URL when an approver clicks Approve or Reject on an approver
// notification (server/slack/approval_buttons.h), or submits the reject
// reason modal. Each request is checked before anything in it is trusted:
//  1. the payload's workspace (team.id) must have a signing secret
//     (access.slack_interactions.workspaces), and Slack's v0 signature with
//     that secret must hold (request_signature.h), within 5 minutes;
//  2. a signature seen before is a replay and is refused;
//  3. the button names the receiver that sent the message; that receiver's
//     bot token must belong to the same workspace (auth.test), so a secret
//     and a token of different workspaces never combine;
//  4. the clicking user's email comes from users.info with that token,
//     never from the request; Sluice acts as that email through the same
//     ApprovalService::Act as REST (approver list, self-approval, current
//     step), with an audit row marked {"via": "slack", "slack_user_id"}.
// A refused action is answered in Slack to that user only
// (chat.postEphemeral, or the modal's field error); a done one updates the
// message (chat.update) with the outcome and who acted.
#ifndef SLUICE_SERVER_SLACK_INTERACTIONS_H_
#define SLUICE_SERVER_SLACK_INTERACTIONS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "proto/sluice/access/v1beta1/appeal.pb.h"
#include "server/slack/approval_buttons.h"
#include "server/notification/receivers/slack/slack_web_api.h"

namespace sluice::slack {

// The largest request body accepted (the gateway's limit too).
inline constexpr size_t kMaxInteractionBody = 1 << 20;
// The longest reject reason the modal accepts (its input's max_length).
inline constexpr int kMaxReasonLength = 1000;
// The reject-reason modal's callback id (the buttons' ids are in
// approval_buttons.h).
inline constexpr char kRejectCallbackId[] = "sluice_reject";

// What the handler needs from the rest of the server; everything but Act
// may be called before the signature is checked only as documented.
struct InteractionDeps {
  // Signing secrets by Slack team id.
  std::map<std::string, std::string> signing_secrets;
  // Slack's Web API as receiver `id` is configured (its token and API URL).
  std::function<absl::StatusOr<std::unique_ptr<notification::receivers::SlackWebApi>>(uint64_t id)>
      slack;
  // ApprovalService::Act(appeal_id, approval_name, action, actor, reason,
  // audit_extra).
  std::function<absl::StatusOr<access::v1beta1::Appeal>(
      const std::string&, const std::string&, const std::string&, const std::string&,
      const std::string&, const nlohmann::json&)>
      act;
  // Remembers a verified request's signature until `expires`; AlreadyExists
  // when it was seen before (a replay).
  std::function<absl::Status(const std::string& signature, absl::Time expires)> remember;
  std::function<absl::Time()> now = &absl::Now;
};

class SlackInteractions {
 public:
  explicit SlackInteractions(InteractionDeps deps) : deps_(std::move(deps)) {}

  // One request as Slack sent it: its raw body and the
  // X-Slack-Request-Timestamp / X-Slack-Signature headers. Returns the JSON
  // body to answer with ("" for an empty HTTP 200). Unauthenticated: no
  // secret for the workspace, a bad signature or timestamp, a replay.
  // InvalidArgument: not a form body with a JSON `payload`, or not one of
  // Sluice's buttons or modals. Errors of the Slack calls before acting
  // (auth.test, users.info, views.open) are returned as they are.
  absl::StatusOr<std::string> Handle(const std::string& body, const std::string& timestamp,
                                     const std::string& signature);

 private:
  absl::StatusOr<std::string> OnButton(const nlohmann::json& payload, const std::string& team);
  absl::StatusOr<std::string> OnRejectSubmitted(const nlohmann::json& payload,
                                                const std::string& team);
  InteractionDeps deps_;
};

// The `payload` field of a form-encoded body, percent- and '+'-decoded;
// InvalidArgument when absent.
absl::StatusOr<std::string> FormPayload(const std::string& body);

// `s` with Slack's three control characters escaped (&amp; &lt; &gt;), for
// mrkdwn text built from user data (https://api.slack.com/reference/surfaces/formatting#escaping).
std::string EscapeMrkdwn(const std::string& s);

}  // namespace sluice::slack

#endif  // SLUICE_SERVER_SLACK_INTERACTIONS_H_
