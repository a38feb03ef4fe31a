#include "common/google_auth.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/outbound.h"
#include "nlohmann/json.hpp"

namespace sluice {
namespace {

using Json = nlohmann::json;

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

// Reads an RSA private key from PEM; nullptr when it is not one.
Pkey ReadRsaKey(absl::string_view pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return nullptr;
  Pkey key(PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  if (key && EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) key.reset();
  return key;
}

std::string B64Url(absl::string_view data) { return absl::WebSafeBase64Escape(data); }

std::string StringField(const Json& doc, const char* name) {
  auto it = doc.find(name);
  if (it == doc.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// Google's short OAuth2 error code ("invalid_grant"), when the body has one
// made of safe characters; never the free-text error_description.
std::string OAuthErrorCode(const std::string& body) {
  Json doc = Json::parse(body, nullptr, false);
  if (!doc.is_object()) return "";
  std::string code = StringField(doc, "error");
  if (code.empty() || code.size() > 64) return "";
  for (char c : code) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_')) return "";
  }
  return code;
}

}  // namespace

absl::StatusOr<ServiceAccountKey> ParseServiceAccountKey(absl::string_view json) {
  Json doc = Json::parse(json.begin(), json.end(), nullptr, false);
  if (!doc.is_object()) {
    return absl::InvalidArgumentError("service account key: not a JSON object");
  }
  std::string type = StringField(doc, "type");
  if (!type.empty() && type != "service_account") {
    return absl::InvalidArgumentError(absl::StrCat(
        "service account key: type is \"", type.substr(0, 40), "\", want \"service_account\""));
  }
  ServiceAccountKey key;
  key.client_email = StringField(doc, "client_email");
  key.private_key = StringField(doc, "private_key");
  key.private_key_id = StringField(doc, "private_key_id");
  key.token_uri = StringField(doc, "token_uri");
  key.project_id = StringField(doc, "project_id");
  if (key.client_email.empty()) {
    return absl::InvalidArgumentError("service account key: client_email is required");
  }
  if (key.private_key.empty()) {
    return absl::InvalidArgumentError("service account key: private_key is required");
  }
  if (!ReadRsaKey(key.private_key)) {
    return absl::InvalidArgumentError(
        "service account key: private_key is not an RSA private key in PEM form");
  }
  if (key.token_uri.empty()) key.token_uri = kGoogleTokenUri;
  if (auto st = ValidateHttpUrl("service account key: token_uri", key.token_uri); !st.ok()) {
    return st;
  }
  return key;
}

absl::StatusOr<std::string> SignServiceAccountAssertion(const ServiceAccountKey& key,
                                                        absl::string_view scope, absl::Time now) {
  Pkey pkey = ReadRsaKey(key.private_key);
  if (!pkey) {
    return absl::InvalidArgumentError(
        "service account key: private_key is not an RSA private key in PEM form");
  }
  Json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  if (!key.private_key_id.empty()) header["kid"] = key.private_key_id;
  int64_t iat = absl::ToUnixSeconds(now);
  Json claims = {{"iss", key.client_email},
                 {"scope", std::string(scope)},
                 {"aud", key.token_uri},
                 {"iat", iat},
                 {"exp", iat + 3600}};
  std::string signing_input = absl::StrCat(B64Url(header.dump()), ".", B64Url(claims.dump()));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t len = 0;
  std::string sig;
  bool ok = ctx != nullptr &&
            EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, pkey.get()) == 1 &&
            EVP_DigestSign(ctx, nullptr, &len,
                           reinterpret_cast<const unsigned char*>(signing_input.data()),
                           signing_input.size()) == 1;
  if (ok) {
    sig.resize(len);
    ok = EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                        reinterpret_cast<const unsigned char*>(signing_input.data()),
                        signing_input.size()) == 1;
    sig.resize(len);
  }
  EVP_MD_CTX_free(ctx);
  if (!ok) return absl::InvalidArgumentError("service account key: cannot sign with private_key");
  return absl::StrCat(signing_input, ".", B64Url(sig));
}

std::string GoogleAuth::CacheKey(const ServiceAccountKey& key, absl::string_view scope) {
  // The private key goes in as a digest only.
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.private_key.data()), key.private_key.size(),
         digest);
  return absl::StrCat(key.client_email, "\n", key.token_uri, "\n", scope, "\n",
                      absl::BytesToHexString(absl::string_view(
                          reinterpret_cast<const char*>(digest), sizeof(digest))));
}

absl::StatusOr<std::string> GoogleAuth::AccessToken(const ServiceAccountKey& key,
                                                    absl::string_view scope) {
  std::string cache_key = CacheKey(key, scope);
  {
    absl::MutexLock lock(&mu_);
    auto it = cache_.find(cache_key);
    if (it != cache_.end() && absl::Now() < it->second.expires_at) return it->second.token;
  }
  // Two callers may both exchange on a miss; both tokens are valid, so the
  // exchange runs outside the lock rather than stalling every caller on a
  // slow token endpoint.
  auto fresh = Exchange(key, scope);
  if (!fresh.ok()) return fresh.status();
  absl::MutexLock lock(&mu_);
  ++exchanges_;
  cache_[cache_key] = *fresh;
  return fresh->token;
}

void GoogleAuth::Forget(const ServiceAccountKey& key, absl::string_view scope) {
  absl::MutexLock lock(&mu_);
  cache_.erase(CacheKey(key, scope));
}

absl::StatusOr<HttpResult> GoogleAuth::Do(const ServiceAccountKey& key, absl::string_view scope,
                                          HttpRequest request) {
  request.headers.push_back("");
  for (int attempt = 0;; ++attempt) {
    auto token = AccessToken(key, scope);
    if (!token.ok()) return token.status();
    request.headers.back() = "Authorization: Bearer " + *token;
    auto res = http_->Do(request);
    if (!res.ok() || res->status != 401 || attempt > 0) return res;
    Forget(key, scope);
  }
}

int GoogleAuth::exchanges() const {
  absl::MutexLock lock(&mu_);
  return exchanges_;
}

absl::StatusOr<ServiceAccountKey> ReadServiceAccountKeyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) return absl::InvalidArgumentError(absl::StrCat("cannot open the key file ", path));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat("cannot read the key file ", path));
  return ParseServiceAccountKey(text.str());
}

absl::StatusOr<GoogleAccessToken> GoogleAuth::Exchange(const ServiceAccountKey& key,
                                                       absl::string_view scope) {
  absl::Time now = absl::Now();
  auto assertion = SignServiceAccountAssertion(key, scope, now);
  if (!assertion.ok()) return assertion.status();
  HttpRequest req;
  req.method = "POST";
  req.url = key.token_uri;
  req.headers = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json"};
  req.body = absl::StrCat("grant_type=", UrlEscape("urn:ietf:params:oauth:grant-type:jwt-bearer"),
                          "&assertion=", UrlEscape(*assertion));
  req.timeout = timeout_;
  req.max_response_bytes = 64 * 1024;
  auto res = http_->Do(req);
  if (!res.ok()) {
    return absl::Status(res.status().code(),
                        absl::StrCat("token endpoint: ", res.status().message()));
  }
  std::string where = absl::StrCat("token endpoint ", RedactUrl(key.token_uri));
  if (res->status == 400 || res->status == 401) {
    std::string code = OAuthErrorCode(res->body);
    return absl::UnauthenticatedError(absl::StrCat(where, " refused the key: HTTP ", res->status,
                                                   code.empty() ? "" : " ", code));
  }
  if (res->status < 200 || res->status > 299) return HttpStatusToError(where, *res);
  Json doc = Json::parse(res->body, nullptr, false);
  std::string token = doc.is_object() ? StringField(doc, "access_token") : "";
  if (token.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(where, ": answer has no access_token"));
  }
  int64_t expires_in = 3600;
  if (doc.contains("expires_in") && doc["expires_in"].is_number()) {
    expires_in = doc["expires_in"].get<int64_t>();
  }
  absl::Duration lifetime = absl::Seconds(std::max<int64_t>(expires_in, 0));
  absl::Duration margin = std::min(kRefreshMargin, lifetime / 2);
  return GoogleAccessToken{token, now + lifetime - margin};
}

}  // namespace sluice
