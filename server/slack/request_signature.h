// Slack's request signing, v0 (https://api.slack.com/authentication/
// verifying-requests-from-slack): every request Slack sends an app
// (interaction payloads, slash commands, events) carries
//   X-Slack-Request-Timestamp: <Unix seconds>
//   X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:<timestamp>:<body>")>
// over the body exactly as sent. Issue 44 (interactive approvals) checks it
// before anything in the body is trusted.
#ifndef SLUICE_SERVER_SLACK_REQUEST_SIGNATURE_H_
#define SLUICE_SERVER_SLACK_REQUEST_SIGNATURE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace sluice::slack {

// Requests whose timestamp is further than this from the server's clock,
// either way, are refused: Slack's documented window against replays.
inline constexpr absl::Duration kSignatureMaxSkew = absl::Minutes(5);

// "v0=" + the lowercase hex signature Slack sends for `body` signed with
// `signing_secret` at `timestamp` (the header's text).
std::string SlackSignature(absl::string_view signing_secret, absl::string_view timestamp,
                           absl::string_view body);

// OK when `signature` (X-Slack-Signature) is SlackSignature(signing_secret,
// timestamp, body), compared in constant time, and `timestamp`
// (X-Slack-Request-Timestamp, decimal Unix seconds) is within
// kSignatureMaxSkew of `now`. Unauthenticated otherwise, naming the header
// and the reason (missing, malformed, too old or in the future, mismatch);
// the message never includes the expected signature. An empty secret is
// FailedPrecondition (nothing can be verified).
absl::Status VerifySlackSignature(absl::string_view signing_secret, absl::string_view timestamp,
                                  absl::string_view signature, absl::string_view body,
                                  absl::Time now);

}  // namespace sluice::slack

#endif  // SLUICE_SERVER_SLACK_REQUEST_SIGNATURE_H_
