#include "common/google_auth.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <deque>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "common/auth/testing.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace sluice {
namespace {

using Json = nlohmann::json;

// Answers from a queue and records requests.
class QueueHttpClient : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest& request) override {
    requests.push_back(request);
    if (answers.empty()) return absl::UnavailableError("no answer scripted");
    auto a = answers.front();
    answers.pop_front();
    return a;
  }
  std::deque<absl::StatusOr<HttpResult>> answers;
  std::vector<HttpRequest> requests;
};

std::string KeyJson(const auth::testing::TestKey& k, const std::string& token_uri) {
  return Json{{"type", "service_account"},
              {"project_id", "p1"},
              {"private_key_id", "kid-1"},
              {"private_key", k.private_pem},
              {"client_email", "sa@p1.iam.gserviceaccount.com"},
              {"token_uri", token_uri}}
      .dump();
}

bool VerifyRs256(const std::string& public_pem, const std::string& jwt) {
  std::vector<std::string> parts = absl::StrSplit(jwt, '.');
  if (parts.size() != 3) return false;
  std::string sig;
  if (!absl::WebSafeBase64Unescape(parts[2], &sig)) return false;
  std::string input = parts[0] + "." + parts[1];
  BIO* bio = BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size()));
  EVP_PKEY* pkey = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, pkey) == 1 &&
            EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                             reinterpret_cast<const unsigned char*>(input.data()),
                             input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(pkey);
  return ok;
}

Json Part(const std::string& jwt, int i) {
  std::vector<std::string> parts = absl::StrSplit(jwt, '.');
  std::string raw;
  absl::WebSafeBase64Unescape(parts[i], &raw);
  return Json::parse(raw);
}

TEST(ParseServiceAccountKey, ReadsFieldsAndDefaultsTokenUri) {
  auto k = auth::testing::NewRsaKey("k");
  Json doc = Json::parse(KeyJson(k, "http://127.0.0.1:1/token"));
  doc.erase("token_uri");
  auto key = ParseServiceAccountKey(doc.dump());
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(key->client_email, "sa@p1.iam.gserviceaccount.com");
  EXPECT_EQ(key->token_uri, kGoogleTokenUri);
  EXPECT_EQ(key->project_id, "p1");
}

TEST(ParseServiceAccountKey, RefusesBadKeysWithoutEchoingThem) {
  auto k = auth::testing::NewRsaKey("k");
  EXPECT_FALSE(ParseServiceAccountKey("not json").ok());
  Json doc = Json::parse(KeyJson(k, "http://x/token"));
  doc["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
  auto st = ParseServiceAccountKey(doc.dump()).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message().find("AAAA"), std::string::npos);
  doc = Json::parse(KeyJson(k, "file:///etc/passwd"));
  EXPECT_EQ(ParseServiceAccountKey(doc.dump()).status().code(),
            absl::StatusCode::kInvalidArgument);
  doc = Json::parse(KeyJson(k, "http://x/token"));
  doc["type"] = "authorized_user";
  EXPECT_EQ(ParseServiceAccountKey(doc.dump()).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto ec = auth::testing::NewEcKey("e");
  EXPECT_FALSE(ParseServiceAccountKey(KeyJson(ec, "http://x/token")).ok());
}

TEST(SignServiceAccountAssertion, SignsGoogleClaimSetWithRs256) {
  auto k = auth::testing::NewRsaKey("k");
  auto key = ParseServiceAccountKey(KeyJson(k, "http://127.0.0.1:9/token"));
  ASSERT_TRUE(key.ok());
  auto jwt = SignServiceAccountAssertion(*key, kCloudPlatformScope, absl::FromUnixSeconds(1000));
  ASSERT_TRUE(jwt.ok());
  EXPECT_TRUE(VerifyRs256(k.public_pem, *jwt));
  Json header = Part(*jwt, 0), claims = Part(*jwt, 1);
  EXPECT_EQ(header["alg"], "RS256");
  EXPECT_EQ(header["kid"], "kid-1");
  EXPECT_EQ(claims["iss"], "sa@p1.iam.gserviceaccount.com");
  EXPECT_EQ(claims["aud"], "http://127.0.0.1:9/token");
  EXPECT_EQ(claims["scope"], kCloudPlatformScope);
  EXPECT_EQ(claims["iat"], 1000);
  EXPECT_EQ(claims["exp"], 4600);
}

TEST(GoogleAuth, ExchangesOnceThenServesFromCache) {
  auto k = auth::testing::NewRsaKey("k");
  auto key = ParseServiceAccountKey(KeyJson(k, "http://127.0.0.1:9/token"));
  ASSERT_TRUE(key.ok());
  QueueHttpClient http;
  http.answers.push_back(HttpResult{200, R"({"access_token":"t1","expires_in":3600})"});
  GoogleAuth auth(&http);
  EXPECT_EQ(*auth.AccessToken(*key, kCloudPlatformScope), "t1");
  EXPECT_EQ(*auth.AccessToken(*key, kCloudPlatformScope), "t1");
  ASSERT_EQ(http.requests.size(), 1u);
  EXPECT_EQ(auth.exchanges(), 1);
  const auto& req = http.requests[0];
  EXPECT_EQ(req.url, "http://127.0.0.1:9/token");
  EXPECT_NE(req.body.find("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"),
            std::string::npos);
  // Forget (after a 401) forces a new exchange.
  http.answers.push_back(HttpResult{200, R"({"access_token":"t2","expires_in":3600})"});
  auth.Forget(*key, kCloudPlatformScope);
  EXPECT_EQ(*auth.AccessToken(*key, kCloudPlatformScope), "t2");
}

TEST(GoogleAuth, RefreshesATokenNearItsExpiry) {
  auto k = auth::testing::NewRsaKey("k");
  auto key = ParseServiceAccountKey(KeyJson(k, "http://127.0.0.1:9/token"));
  QueueHttpClient http;
  // 0 s lifetime: expired at once, so every call exchanges.
  http.answers.push_back(HttpResult{200, R"({"access_token":"a","expires_in":0})"});
  http.answers.push_back(HttpResult{200, R"({"access_token":"b","expires_in":3600})"});
  GoogleAuth auth(&http);
  EXPECT_EQ(*auth.AccessToken(*key, kCloudPlatformScope), "a");
  EXPECT_EQ(*auth.AccessToken(*key, kCloudPlatformScope), "b");
  EXPECT_EQ(auth.exchanges(), 2);
}

TEST(GoogleAuth, DoSendsTheBearerTokenAndRenewsItOnceAfterA401) {
  auto k = auth::testing::NewRsaKey("k");
  auto key = ParseServiceAccountKey(KeyJson(k, "http://127.0.0.1:9/token"));
  QueueHttpClient http;
  http.answers.push_back(HttpResult{200, R"({"access_token":"old","expires_in":3600})"});
  http.answers.push_back(HttpResult{401, "revoked"});
  http.answers.push_back(HttpResult{200, R"({"access_token":"new","expires_in":3600})"});
  http.answers.push_back(HttpResult{200, "stored"});
  GoogleAuth auth(&http);
  HttpRequest req;
  req.url = "http://127.0.0.1:9/api";
  req.headers = {"Content-Type: text/plain"};
  auto res = auth.Do(*key, kCloudPlatformScope, req);
  ASSERT_TRUE(res.ok()) << res.status();
  EXPECT_EQ(res->body, "stored");
  ASSERT_EQ(http.requests.size(), 4u);
  EXPECT_EQ(http.requests[1].headers,
            (std::vector<std::string>{"Content-Type: text/plain", "Authorization: Bearer old"}));
  EXPECT_EQ(http.requests[3].headers.back(), "Authorization: Bearer new");
  // A second 401 in a row is the caller's to handle: no loop of exchanges.
  http.answers.push_back(HttpResult{401, "still"});
  http.answers.push_back(HttpResult{200, R"({"access_token":"n2","expires_in":3600})"});
  http.answers.push_back(HttpResult{401, "still"});
  res = auth.Do(*key, kCloudPlatformScope, req);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(auth.exchanges(), 3);
  // A token endpoint that is down is returned as AccessToken returns it.
  auth.Forget(*key, kCloudPlatformScope);
  http.answers.push_back(HttpResult{503, "down"});
  EXPECT_EQ(auth.Do(*key, kCloudPlatformScope, req).status().code(), absl::StatusCode::kUnavailable);
}

TEST(GoogleAuth, MapsTokenEndpointErrors) {
  auto k = auth::testing::NewRsaKey("k");
  auto key = ParseServiceAccountKey(KeyJson(k, "http://127.0.0.1:9/token"));
  QueueHttpClient http;
  http.answers.push_back(HttpResult{
      400, R"({"error":"invalid_grant","error_description":"Invalid JWT Signature. SECRET"})"});
  http.answers.push_back(HttpResult{503, "down"});
  http.answers.push_back(HttpResult{200, R"({"nope":1})"});
  http.answers.push_back(absl::DeadlineExceededError("POST http://127.0.0.1:9: timed out"));
  GoogleAuth auth(&http);
  auto st = auth.AccessToken(*key, kCloudPlatformScope).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(st.message().find("invalid_grant"), std::string::npos);
  EXPECT_EQ(st.message().find("SECRET"), std::string::npos);
  EXPECT_EQ(auth.AccessToken(*key, kCloudPlatformScope).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(auth.AccessToken(*key, kCloudPlatformScope).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(auth.AccessToken(*key, kCloudPlatformScope).status().code(),
            absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace sluice
