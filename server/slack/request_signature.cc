#include "server/slack/request_signature.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/auth/hmac.h"
#include "common/auth/secret.h"

namespace sluice::slack {
namespace {

constexpr char kTimestampHeader[] = "X-Slack-Request-Timestamp";
constexpr char kSignatureHeader[] = "X-Slack-Signature";
// "v0=" and 64 hex digits.
constexpr size_t kSignatureLength = 3 + 64;

bool IsLowerHex(absl::string_view s) {
  for (char c : s) {
    if (!absl::ascii_isdigit(c) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

}  // namespace

std::string SlackSignature(absl::string_view signing_secret, absl::string_view timestamp,
                           absl::string_view body) {
  return absl::StrCat("v0=",
                      auth::HexHmacSha256(signing_secret, absl::StrCat("v0:", timestamp, ":", body)));
}

absl::Status VerifySlackSignature(absl::string_view signing_secret, absl::string_view timestamp,
                                  absl::string_view signature, absl::string_view body,
                                  absl::Time now) {
  if (signing_secret.empty()) {
    return absl::FailedPreconditionError(
        "no Slack signing secret is configured for this workspace: requests cannot be verified");
  }
  if (timestamp.empty()) {
    return absl::UnauthenticatedError(absl::StrCat(kTimestampHeader, " is missing"));
  }
  int64_t seconds = 0;
  // Decimal digits only: absl::SimpleAtoi would also take a sign or spaces.
  if (timestamp.size() > 12 || !std::all_of(timestamp.begin(), timestamp.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(timestamp, &seconds)) {
    return absl::UnauthenticatedError(
        absl::StrCat(kTimestampHeader, " is not a Unix time in seconds"));
  }
  const absl::Duration skew = absl::FromUnixSeconds(seconds) - now;
  if (absl::AbsDuration(skew) > kSignatureMaxSkew) {
    return absl::UnauthenticatedError(absl::StrCat(
        kTimestampHeader, " is ", absl::FormatDuration(absl::AbsDuration(skew)),
        skew < absl::ZeroDuration() ? " old" : " in the future",
        ", more than the 5 minutes Slack's signing allows (a replayed request, or a clock "
        "out of step: check the server's NTP)"));
  }
  if (signature.empty()) {
    return absl::UnauthenticatedError(absl::StrCat(kSignatureHeader, " is missing"));
  }
  if (signature.size() != kSignatureLength || !absl::StartsWith(signature, "v0=") ||
      !IsLowerHex(signature.substr(3))) {
    return absl::UnauthenticatedError(
        absl::StrCat(kSignatureHeader, " is not a v0 signature (v0=<64 hex digits>)"));
  }
  if (!auth::ConstantTimeEquals(signature, SlackSignature(signing_secret, timestamp, body))) {
    return absl::UnauthenticatedError(absl::StrCat(
        kSignatureHeader,
        " does not match the body signed with the workspace's signing secret (a tampered "
        "request, or the Slack app's signing secret differs from Sluice's)"));
  }
  return absl::OkStatus();
}

}  // namespace sluice::slack
