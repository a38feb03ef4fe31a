#include "server/slack/request_signature.h"

#include <gtest/gtest.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace sluice::slack {
namespace {

// Slack's worked example (https://api.slack.com/authentication/
// verifying-requests-from-slack); integration/gcp_fake:slack_signing_test
// checks the same example against @slack/bolt's verifySlackRequest.
constexpr char kSecret[] = "8f742231b10e8888abcd99yyyzzz85a5";
constexpr char kTimestamp[] = "1531420618";
constexpr char kBody[] =
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&"
    "channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&"
    "command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F"
    "T1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&"
    "trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
constexpr char kSignature[] = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
const absl::Time kNow = absl::FromUnixSeconds(1531420618);

absl::Status Verify(absl::string_view secret, absl::string_view ts, absl::string_view sig,
                    absl::string_view body, absl::Time now = kNow) {
  return VerifySlackSignature(secret, ts, sig, body, now);
}

TEST(SlackSignature, SignsSlacksExampleToItsDocumentedSignature) {
  EXPECT_EQ(SlackSignature(kSecret, kTimestamp, kBody), kSignature);
}

TEST(VerifySlackSignature, AcceptsSlacksExampleWithinFiveMinutesEitherWay) {
  EXPECT_TRUE(Verify(kSecret, kTimestamp, kSignature, kBody).ok());
  EXPECT_TRUE(Verify(kSecret, kTimestamp, kSignature, kBody, kNow + absl::Minutes(5)).ok());
  EXPECT_TRUE(Verify(kSecret, kTimestamp, kSignature, kBody, kNow - absl::Minutes(5)).ok());
}

TEST(VerifySlackSignature, RefusesATamperedBodyOrAnotherSecret) {
  std::string tampered = kBody;
  tampered.replace(tampered.find("roadrunner"), 10, "coyote0000");
  absl::Status s = Verify(kSecret, kTimestamp, kSignature, tampered);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(absl::StrContains(s.message(), "X-Slack-Signature does not match")) << s;
  EXPECT_FALSE(absl::StrContains(s.message(), SlackSignature(kSecret, kTimestamp, tampered)));
  EXPECT_EQ(Verify("another-secret-of-32-characters!", kTimestamp, kSignature, kBody).code(),
            absl::StatusCode::kUnauthenticated);
  // The timestamp is signed too: a fresh timestamp on an old signature fails.
  EXPECT_EQ(Verify(kSecret, "1531420619", kSignature, kBody, kNow).code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(VerifySlackSignature, RefusesTimestampsMoreThanFiveMinutesOldOrAhead) {
  absl::Status old = Verify(kSecret, kTimestamp, kSignature, kBody, kNow + absl::Seconds(301));
  EXPECT_EQ(old.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(absl::StrContains(old.message(), "X-Slack-Request-Timestamp is 5m1s old")) << old;
  absl::Status ahead = Verify(kSecret, kTimestamp, kSignature, kBody, kNow - absl::Minutes(6));
  EXPECT_EQ(ahead.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(absl::StrContains(ahead.message(), "6m in the future")) << ahead;
}

TEST(VerifySlackSignature, RefusesMissingOrMalformedHeaders) {
  for (absl::string_view ts : {"", "+1531420618", " 1531420618", "1531420618.5", "abc",
                               "99999999999999999999"}) {
    absl::Status s = Verify(kSecret, ts, kSignature, kBody);
    EXPECT_EQ(s.code(), absl::StatusCode::kUnauthenticated) << ts;
    EXPECT_TRUE(absl::StrContains(s.message(), "X-Slack-Request-Timestamp")) << s;
  }
  std::string upper = kSignature;
  absl::AsciiStrToUpper(&upper);
  std::string v1 = kSignature;
  v1[1] = '1';
  for (absl::string_view sig : {absl::string_view(""), absl::string_view("v0="),
                                absl::string_view(upper), absl::string_view(v1),
                                absl::string_view(kSignature).substr(0, 66)}) {
    absl::Status s = Verify(kSecret, kTimestamp, sig, kBody);
    EXPECT_EQ(s.code(), absl::StatusCode::kUnauthenticated) << sig;
    EXPECT_TRUE(absl::StrContains(s.message(), "X-Slack-Signature")) << s;
  }
}

TEST(VerifySlackSignature, AnEmptySecretVerifiesNothing) {
  EXPECT_EQ(Verify("", kTimestamp, SlackSignature("", kTimestamp, kBody), kBody).code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace sluice::slack
