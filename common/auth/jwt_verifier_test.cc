#include "common/auth/jwt_verifier.h"

#include <cstdio>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/auth/testing.h"
#include "gtest/gtest.h"

namespace sluice::auth {
namespace {

using testing::NewEcKey;
using testing::NewRsaKey;
using testing::TestKey;

// Serves a JWKS document and counts fetches. With `gate` set, a fetch
// announces itself on `entered` and then blocks until `gate` is notified
// (a slow IdP, without timing).
class FakeJwksHttp : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& req) override {
    absl::Notification* gate = nullptr;
    {
      absl::MutexLock lock(&mu);
      ++fetches;
      last_url = req.url;
      gate = this->gate;
      if (gate != nullptr && !entered.HasBeenNotified()) entered.Notify();
    }
    if (gate != nullptr) gate->WaitForNotification();
    absl::MutexLock lock(&mu);
    if (!up) return absl::UnavailableError("connection refused");
    return HttpResult{200, body};
  }
  absl::Mutex mu;
  std::string body;
  bool up = true;
  int fetches = 0;
  std::string last_url;
  absl::Notification* gate = nullptr;
  absl::Notification entered;
};

constexpr int64_t kNow = 1'800'000'000;

nlohmann::json Claims(int64_t exp = kNow + 300) {
  return {{"email", "alice@example.com"}, {"iss", "https://idp.example.com"},
          {"aud", "sluice"}, {"exp", exp}, {"groups", {"sre", "data"}}};
}

class JwtVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rsa_ = NewRsaKey("k1");
    http_.body = testing::JwksJson({rsa_});
  }
  JwtOptions Options() {
    JwtOptions o;
    o.jwks_url = "https://idp.example.com/jwks";
    o.issuer = "https://idp.example.com";
    o.audiences = {"sluice"};
    o.algorithms = {"RS256", "ES256"};
    o.groups_claim = "groups";
    return o;
  }
  std::unique_ptr<JwtVerifier> Make(JwtOptions o) {
    auto v = JwtVerifier::Create(std::move(o), &http_, [this] { return now_; });
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? std::move(*v) : nullptr;
  }
  TestKey rsa_;
  FakeJwksHttp http_;
  absl::Time now_ = absl::FromUnixSeconds(kNow);
};

TEST_F(JwtVerifierTest, AcceptsAValidTokenAndReadsIdentityAndGroups) {
  auto v = Make(Options());
  auto id = v->Verify(testing::SignJwt(rsa_, Claims()));
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(id->identity, "alice@example.com");
  EXPECT_EQ(id->groups, (std::vector<std::string>{"sre", "data"}));
  EXPECT_EQ(http_.last_url, "https://idp.example.com/jwks");
}

TEST_F(JwtVerifierTest, RejectsExpiredWrongIssuerWrongAudienceAndMissingClaims) {
  auto v = Make(Options());
  auto reject = [&](nlohmann::json c, const std::string& why) {
    auto id = v->Verify(testing::SignJwt(rsa_, c));
    EXPECT_TRUE(absl::IsUnauthenticated(id.status())) << why;
    EXPECT_NE(id.status().message().find(why), std::string::npos) << id.status();
  };
  reject(Claims(kNow - 61), "expired");  // past exp + 60 s leeway
  auto c = Claims();
  c["iss"] = "https://evil.example.com";
  reject(c, "issuer");
  c = Claims();
  c["aud"] = {"other", "another"};
  reject(c, "audience");
  c = Claims();
  c.erase("exp");
  reject(c, "exp");
  c = Claims();
  c["nbf"] = kNow + 3600;
  reject(c, "nbf");
  c = Claims();
  c.erase("email");
  reject(c, "email");
  // Within the leeway, and an audience list containing ours: accepted.
  c = Claims(kNow - 30);
  c["aud"] = {"other", "sluice"};
  EXPECT_TRUE(v->Verify(testing::SignJwt(rsa_, c)).ok());
}

TEST_F(JwtVerifierTest, RejectsForgedTamperedAndUnsignedTokens) {
  auto v = Make(Options());
  // Signed by a key the IdP never published, under the published kid.
  TestKey other = NewRsaKey("k1");
  EXPECT_TRUE(absl::IsUnauthenticated(v->Verify(testing::SignJwt(other, Claims())).status()));
  // A valid token whose payload was swapped.
  std::string good = testing::SignJwt(rsa_, Claims());
  auto c = Claims();
  c["email"] = "root@example.com";
  std::string forged_payload = testing::UnsignedJwt(c);
  std::string payload = forged_payload.substr(forged_payload.find('.') + 1);
  payload = payload.substr(0, payload.find('.'));
  std::string tampered = good.substr(0, good.find('.') + 1) + payload +
                         good.substr(good.rfind('.'));
  EXPECT_TRUE(absl::IsUnauthenticated(v->Verify(tampered).status()));
  // alg none, and HS256 signed with the public key as the HMAC secret (the
  // classic algorithm-confusion forgery).
  EXPECT_TRUE(absl::IsUnauthenticated(v->Verify(testing::UnsignedJwt(Claims())).status()));
  EXPECT_TRUE(absl::IsUnauthenticated(
      v->Verify(testing::SignJwtHmac(rsa_.public_pem, "HS256", Claims())).status()));
  EXPECT_TRUE(absl::IsUnauthenticated(v->Verify("not.a-token").status()));
  EXPECT_TRUE(absl::IsUnauthenticated(v->Verify("").status()));
}

TEST_F(JwtVerifierTest, AlgorithmAllowListIsEnforced) {
  JwtOptions o = Options();
  o.algorithms = {"ES256"};
  auto v = Make(o);
  auto id = v->Verify(testing::SignJwt(rsa_, Claims()));
  EXPECT_TRUE(absl::IsUnauthenticated(id.status()));
  EXPECT_NE(id.status().message().find("RS256"), std::string::npos);
}

TEST_F(JwtVerifierTest, UnknownKidRefetchesTheJwksButNotMoreThanEvery30Seconds) {
  auto v = Make(Options());
  EXPECT_EQ(http_.fetches, 1);
  TestKey ec = NewEcKey("k2");  // the IdP rotates in a new key
  http_.body = testing::JwksJson({rsa_, ec});
  EXPECT_FALSE(v->Verify(testing::SignJwt(ec, Claims())).ok());  // within 30 s of the first fetch
  EXPECT_EQ(http_.fetches, 1);
  now_ += absl::Seconds(31);
  auto id = v->Verify(testing::SignJwt(ec, Claims(kNow + 600)));
  EXPECT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(http_.fetches, 2);
  // Cached now: no further fetches.
  EXPECT_TRUE(v->Verify(testing::SignJwt(ec, Claims(kNow + 600))).ok());
  EXPECT_EQ(http_.fetches, 2);
}

TEST_F(JwtVerifierTest, KeysPastTheirTtlAreDroppedWhenTheIdpIsUnreachable) {
  JwtOptions o = Options();
  o.jwks_cache_ttl = absl::Minutes(5);
  auto v = Make(o);
  now_ += absl::Minutes(6);
  http_.up = false;
  auto id = v->Verify(testing::SignJwt(rsa_, Claims(kNow + 3600)));
  EXPECT_TRUE(absl::IsUnauthenticated(id.status())) << id.status();
  http_.up = true;
  now_ += absl::Seconds(31);
  EXPECT_TRUE(v->Verify(testing::SignJwt(rsa_, Claims(kNow + 3600))).ok());
}

TEST_F(JwtVerifierTest, StaticKeys) {
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  std::string pem = absl::StrCat(dir, "/pub.pem"), secret = absl::StrCat(dir, "/hs.key");
  std::ofstream(pem) << rsa_.public_pem;
  std::ofstream(secret) << std::string(40, 'k');
  JwtOptions o = Options();
  o.jwks_url.clear();
  o.static_key_file = pem;
  auto v = Make(o);
  EXPECT_TRUE(v->Verify(testing::SignJwt(rsa_, Claims())).ok());
  EXPECT_EQ(http_.fetches, 0);

  o.static_key_file = secret;
  o.algorithms = {"HS256"};
  auto hs = Make(o);
  EXPECT_TRUE(hs->Verify(testing::SignJwtHmac(std::string(40, 'k'), "HS256", Claims())).ok());
  EXPECT_FALSE(hs->Verify(testing::SignJwtHmac(std::string(40, 'x'), "HS256", Claims())).ok());

  // A PEM key may never be used as an HMAC secret, nor HS* with a JWKS.
  o.static_key_file = pem;
  EXPECT_TRUE(absl::IsInvalidArgument(JwtVerifier::Create(o, &http_).status()));
  o = Options();
  o.algorithms = {"HS256"};
  EXPECT_TRUE(absl::IsInvalidArgument(JwtVerifier::Create(o, &http_).status()));
  o.algorithms = {"none"};
  EXPECT_TRUE(absl::IsInvalidArgument(JwtVerifier::Create(o, &http_).status()));
  o = Options();
  o.static_key_file = pem;  // both sources
  EXPECT_TRUE(absl::IsInvalidArgument(JwtVerifier::Create(o, &http_).status()));
}

// Finding F-L4: with the identity in the email claim, an IdP's
// "email_verified": false (an address the user typed but never proved) is
// refused; true, or no such claim, is accepted.
TEST_F(JwtVerifierTest, UnverifiedEmailIsRejected) {
  auto v = Make(Options());
  auto c = Claims();
  c["email_verified"] = false;
  auto id = v->Verify(testing::SignJwt(rsa_, c));
  EXPECT_TRUE(absl::IsUnauthenticated(id.status())) << id.status();
  EXPECT_NE(id.status().message().find("email_verified"), std::string::npos) << id.status();
  c["email_verified"] = "false";
  EXPECT_TRUE(absl::IsUnauthenticated(v->Verify(testing::SignJwt(rsa_, c)).status()));
  c["email_verified"] = true;
  EXPECT_TRUE(v->Verify(testing::SignJwt(rsa_, c)).ok());
  c["email_verified"] = "true";  // Cognito sends it as a string
  EXPECT_TRUE(v->Verify(testing::SignJwt(rsa_, c)).ok());
  // Another identity claim: email_verified says nothing about it.
  JwtOptions o = Options();
  o.identity_claim = "sub";
  auto by_sub = Make(o);
  c = Claims();
  c["sub"] = "user-42";
  c["email_verified"] = false;
  auto sub = by_sub->Verify(testing::SignJwt(rsa_, c));
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_EQ(sub->identity, "user-42");
}

// Finding F-L4: the signing keys come over https, or plain http only from
// this host (tests, a local sidecar); anything else fails at start naming
// the key.
TEST_F(JwtVerifierTest, PlainHttpJwksOnlyOnLoopback) {
  for (const char* url : {"http://idp.example.com/jwks", "http://10.0.0.5:8080/jwks",
                          "http://127.0.0.1.evil.example/jwks", "http://localhost@evil.example/jwks",
                          "HTTP://idp.example.com/jwks"}) {
    JwtOptions o = Options();
    o.jwks_url = url;
    auto v = JwtVerifier::Create(o, &http_);
    EXPECT_TRUE(absl::IsInvalidArgument(v.status())) << url;
    EXPECT_NE(v.status().message().find("auth.jwt.jwks_url"), std::string::npos) << v.status();
  }
  for (const char* url : {"http://127.0.0.1:8080/jwks", "http://localhost:9/jwks", "http://[::1]:80/k",
                          "http://127.0.0.1", "https://idp.example.com/jwks"}) {
    JwtOptions o = Options();
    o.jwks_url = url;
    EXPECT_TRUE(JwtVerifier::Create(o, &http_).ok()) << url;
  }
}

// Finding F-L4: a JWKS refetch (an unknown kid at a slow IdP) does not hold
// up verifications of tokens whose key is known, and concurrent refetches
// of the same unknown kid are one fetch.
TEST_F(JwtVerifierTest, SlowRefetchDoesNotBlockKnownKeys) {
  auto v = Make(Options());
  ASSERT_EQ(http_.fetches, 1);
  TestKey ec = NewEcKey("k2");
  absl::Notification gate;
  {
    absl::MutexLock lock(&http_.mu);
    http_.body = testing::JwksJson({rsa_, ec});
    http_.gate = &gate;
  }
  now_ += absl::Seconds(31);
  std::string unknown = testing::SignJwt(ec, Claims(kNow + 600));
  absl::Status first, second;
  std::thread refetch([&] { first = v->Verify(unknown).status(); });
  ASSERT_TRUE(http_.entered.WaitForNotificationWithTimeout(absl::Seconds(30)));
  std::thread again([&] { second = v->Verify(unknown).status(); });

  // The IdP is still answering: a token with the known kid verifies anyway.
  absl::Notification known_done;
  absl::Status known;
  std::thread other([&] {
    known = v->Verify(testing::SignJwt(rsa_, Claims(kNow + 600))).status();
    known_done.Notify();
  });
  // Generous bound: this only fails when the verification waits for the fetch.
  EXPECT_TRUE(known_done.WaitForNotificationWithTimeout(absl::Seconds(10)))
      << "Verify of a known kid waited for the JWKS refetch";
  gate.Notify();
  refetch.join();
  again.join();
  other.join();
  EXPECT_TRUE(known.ok()) << known;
  EXPECT_TRUE(first.ok()) << first;
  EXPECT_TRUE(second.ok()) << second;
  absl::MutexLock lock(&http_.mu);
  EXPECT_EQ(http_.fetches, 2);
}

TEST(JwkToPemTest, RejectsUnsupportedAndMalformedKeys) {
  EXPECT_FALSE(JwkToPem(R"({"kty":"oct","k":"c2VjcmV0"})").ok());
  EXPECT_FALSE(JwkToPem(R"({"kty":"RSA","n":"","e":"AQAB"})").ok());
  EXPECT_FALSE(JwkToPem(R"({"kty":"EC","crv":"P-256","x":"AA","y":"AA"})").ok());
  EXPECT_FALSE(JwkToPem("[1,2]").ok());
  auto pem = JwkToPem(NewEcKey("e").jwk.dump());
  ASSERT_TRUE(pem.ok()) << pem.status();
  EXPECT_NE(pem->find("BEGIN PUBLIC KEY"), std::string::npos);
}

}  // namespace
}  // namespace sluice::auth
