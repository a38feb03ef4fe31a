#include "common/auth/jwt_verifier.h"

#include <jwt.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/auth/tls.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace sluice::auth {
namespace {

using Json = nlohmann::json;

absl::Status Unauth(absl::string_view why) {
  return absl::UnauthenticatedError(absl::StrCat("bearer token rejected: ", why));
}

// "RS" for RS256 etc.; "" for anything libjwt 1.10 cannot verify.
std::string AlgFamily(absl::string_view alg) {
  for (const char* fam : {"RS", "ES", "HS"}) {
    for (const char* bits : {"256", "384", "512"}) {
      if (alg == absl::StrCat(fam, bits)) return fam;
    }
  }
  return "";
}

std::string B64UrlDecode(absl::string_view in) {
  std::string out;
  if (!absl::WebSafeBase64Unescape(in, &out)) return "";
  return out;
}

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct BldFree {
  void operator()(OSSL_PARAM_BLD* p) const { OSSL_PARAM_BLD_free(p); }
};
struct ParamFree {
  void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
};
struct BnFree {
  void operator()(BIGNUM* p) const { BN_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};

absl::StatusOr<std::string> PkeyToPem(EVP_PKEY* pkey) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), pkey) != 1) {
    return absl::InternalError("cannot encode the public key as PEM");
  }
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

absl::StatusOr<std::string> FromParams(const char* type, OSSL_PARAM_BLD* bld) {
  std::unique_ptr<OSSL_PARAM, ParamFree> params(OSSL_PARAM_BLD_to_param(bld));
  std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("JWK: invalid ", type, " public key"));
  }
  std::unique_ptr<EVP_PKEY, PkeyFree> pkey(raw);
  return PkeyToPem(pkey.get());
}

// The signing keys decide who anyone is: they come over https, or over plain
// http only from this host (a test IdP, a local sidecar). The host is what
// follows "http://" up to the first '/', '?' or '#', after any userinfo.
absl::Status CheckJwksUrl(absl::string_view url) {
  if (absl::StartsWith(url, "https://")) return absl::OkStatus();
  if (!absl::StartsWith(url, "http://")) {
    return absl::InvalidArgumentError("auth.jwt.jwks_url: must be an https URL");
  }
  absl::string_view authority = url.substr(7);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (size_t at = authority.rfind('@'); at != absl::string_view::npos) {
    authority = authority.substr(at + 1);
  }
  absl::string_view host = authority;
  if (absl::StartsWith(host, "[")) {
    host = host.substr(0, host.find(']') + 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (!IsLoopbackHost(host)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "auth.jwt.jwks_url: \"", url,
        "\" must be https:// (plain http:// is accepted only for 127.0.0.1, localhost or [::1])"));
  }
  return absl::OkStatus();
}

// Whether an `email_verified` claim (OIDC Core §5.1) allows the email claim
// as the identity: absent, true, or "true" (some IdPs send a string).
bool EmailVerifiedOrAbsent(const Json& claims) {
  auto it = claims.find("email_verified");
  if (it == claims.end()) return true;
  if (it->is_boolean()) return it->get<bool>();
  return it->is_string() && it->get<std::string>() == "true";
}

}  // namespace

absl::StatusOr<std::string> JwkToPem(const std::string& jwk_json) {
  Json jwk = Json::parse(jwk_json, nullptr, false);
  if (!jwk.is_object()) return absl::InvalidArgumentError("JWK: not a JSON object");
  auto str = [&](const char* k) -> std::string {
    auto it = jwk.find(k);
    return it != jwk.end() && it->is_string() ? it->get<std::string>() : "";
  };
  std::string kty = str("kty");
  std::unique_ptr<OSSL_PARAM_BLD, BldFree> bld(OSSL_PARAM_BLD_new());
  if (!bld) return absl::InternalError("OSSL_PARAM_BLD_new failed");
  if (kty == "RSA") {
    std::string n = B64UrlDecode(str("n")), e = B64UrlDecode(str("e"));
    if (n.empty() || e.empty()) return absl::InvalidArgumentError("JWK: RSA key needs n and e");
    std::unique_ptr<BIGNUM, BnFree> bn_n(
        BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()), nullptr));
    std::unique_ptr<BIGNUM, BnFree> bn_e(
        BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()), nullptr));
    if (!bn_n || !bn_e || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
        OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
      return absl::InvalidArgumentError("JWK: invalid RSA parameters");
    }
    return FromParams("RSA", bld.get());
  }
  if (kty == "EC") {
    std::string crv = str("crv");
    const char* group = crv == "P-256"   ? "prime256v1"
                        : crv == "P-384" ? "secp384r1"
                        : crv == "P-521" ? "secp521r1"
                                         : nullptr;
    size_t len = crv == "P-256" ? 32 : crv == "P-384" ? 48 : 66;
    if (group == nullptr) return absl::InvalidArgumentError(absl::StrCat("JWK: unsupported crv \"", crv, "\""));
    std::string x = B64UrlDecode(str("x")), y = B64UrlDecode(str("y"));
    if (x.size() != len || y.size() != len) {
      return absl::InvalidArgumentError("JWK: EC key needs x and y of the curve's size");
    }
    std::string point = absl::StrCat(std::string(1, '\x04'), x, y);  // SEC 1 uncompressed
    if (OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                         point.size()) != 1) {
      return absl::InvalidArgumentError("JWK: invalid EC parameters");
    }
    return FromParams("EC", bld.get());
  }
  return absl::InvalidArgumentError(absl::StrCat("JWK: unsupported kty \"", kty, "\""));
}

absl::StatusOr<std::unique_ptr<JwtVerifier>> JwtVerifier::Create(
    JwtOptions options, HttpClient* http, std::function<absl::Time()> clock) {
  if (options.jwks_url.empty() == options.static_key_file.empty()) {
    return absl::InvalidArgumentError("auth.jwt: set exactly one of jwks_url and static_key_file");
  }
  if (!options.jwks_url.empty()) {
    if (auto st = CheckJwksUrl(options.jwks_url); !st.ok()) return st;
  }
  if (!options.jwks_url.empty() && http == nullptr) {
    return absl::InvalidArgumentError("auth.jwt: jwks_url needs an HTTP client");
  }
  if (options.algorithms.empty()) {
    return absl::InvalidArgumentError("auth.jwt.algorithms: at least one algorithm");
  }
  if (options.identity_claim.empty()) {
    return absl::InvalidArgumentError("auth.jwt.identity_claim: must not be empty");
  }
  bool hs = false;
  for (const auto& a : options.algorithms) {
    std::string fam = AlgFamily(a);
    if (fam.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "auth.jwt.algorithms: \"", a, "\" is not one of RS256/384/512, ES256/384/512, HS256/384/512"));
    }
    hs = hs || fam == "HS";
  }
  std::unique_ptr<JwtVerifier> v(new JwtVerifier(options, http, std::move(clock)));
  if (!options.static_key_file.empty()) {
    auto material = ReadFileToString(options.static_key_file, "auth.jwt.static_key_file");
    if (!material.ok()) return material.status();
    bool pem = absl::StrContains(*material, "-----BEGIN");
    if (pem && hs) {
      return absl::InvalidArgumentError(
          "auth.jwt: HS* algorithms need a shared secret, not a PEM public key");
    }
    if (!pem && !hs) {
      return absl::InvalidArgumentError(
          "auth.jwt.static_key_file: not a PEM public key (a shared secret needs HS* algorithms)");
    }
    if (!pem && material->size() < 32) {
      return absl::InvalidArgumentError("auth.jwt.static_key_file: an HMAC secret needs 32 bytes or more");
    }
    v->static_key_ = Key{pem ? "" : "HS", *material};
  } else {
    if (hs) return absl::InvalidArgumentError("auth.jwt: HS* algorithms need a static_key_file secret");
    absl::Time attempt = v->clock_();
    auto keys = v->FetchJwks();
    absl::MutexLock lock(&v->mu_);
    v->last_attempt_ = attempt;
    if (keys.ok()) {
      v->jwks_ = *std::move(keys);
      v->fetched_at_ = v->clock_();
    } else {
      spdlog::warn("msg=\"JWKS not fetched at start; will retry on the first token\" error=\"{}\"",
                   std::string(keys.status().message()));
    }
  }
  return v;
}

absl::StatusOr<std::map<std::string, JwtVerifier::Key>> JwtVerifier::FetchJwks() const {
  HttpRequest req;
  req.method = "GET";
  req.url = options_.jwks_url;
  req.timeout = absl::Seconds(5);
  auto res = http_->Do(req);
  if (!res.ok()) return res.status();
  if (res->status != 200) {
    return absl::UnavailableError(absl::StrCat("JWKS ", options_.jwks_url, ": HTTP ", res->status));
  }
  Json doc = Json::parse(res->body, nullptr, false);
  if (!doc.is_object() || !doc.contains("keys") || !doc["keys"].is_array()) {
    return absl::UnavailableError(absl::StrCat("JWKS ", options_.jwks_url, ": no \"keys\" array"));
  }
  std::map<std::string, Key> keys;
  for (const Json& k : doc["keys"]) {
    if (!k.is_object()) continue;
    std::string use = k.contains("use") && k["use"].is_string() ? k["use"].get<std::string>() : "sig";
    if (use != "sig") continue;
    std::string kty = k.contains("kty") && k["kty"].is_string() ? k["kty"].get<std::string>() : "";
    auto pem = JwkToPem(k.dump());
    if (!pem.ok()) {
      spdlog::warn("msg=\"JWKS key skipped\" error=\"{}\"", std::string(pem.status().message()));
      continue;
    }
    std::string kid = k.contains("kid") && k["kid"].is_string() ? k["kid"].get<std::string>() : "";
    keys[kid] = Key{kty == "RSA" ? "RS" : "ES", *pem};
  }
  return keys;
}

absl::StatusOr<JwtVerifier::Key> JwtVerifier::FindKey(const std::string& kid,
                                                      const std::string& alg) {
  std::string fam = AlgFamily(alg);
  if (static_key_) {
    if (static_key_->alg_family == "HS" ? fam != "HS" : fam == "HS") {
      return Unauth(absl::StrCat("algorithm ", alg, " does not match the configured key"));
    }
    return *static_key_;
  }
  if (fam == "HS") return Unauth("HMAC algorithms are not accepted with a JWKS");
  absl::MutexLock lock(&mu_);
  auto lookup = [&]() -> const Key* {
    auto it = jwks_.find(kid);
    if (it == jwks_.end() && kid.empty() && jwks_.size() == 1) it = jwks_.begin();
    return it == jwks_.end() ? nullptr : &it->second;
  };
  absl::Time now = clock_();
  const Key* key = lookup();
  bool stale = now - fetched_at_ > options_.jwks_cache_ttl;
  if ((key == nullptr || stale) && !fetching_ && now - last_attempt_ >= absl::Seconds(30)) {
    // Single flight, fetched without mu_: verifications whose key is cached
    // go on while the IdP answers (up to the 5 s timeout).
    fetching_ = true;
    last_attempt_ = now;
    absl::StatusOr<std::map<std::string, Key>> keys;
    {
      mu_.Unlock();
      keys = FetchJwks();
      mu_.Lock();
    }
    fetching_ = false;
    if (keys.ok()) {
      jwks_ = *std::move(keys);
      fetched_at_ = clock_();
    } else {
      spdlog::warn("msg=\"JWKS fetch failed\" error=\"{}\"", std::string(keys.status().message()));
      // Never trust keys past their TTL plus a failed refresh.
      if (clock_() - fetched_at_ > options_.jwks_cache_ttl) jwks_.clear();
    }
    key = lookup();
  } else if (key == nullptr && fetching_) {
    // Another call is fetching: its result may hold this kid.
    mu_.Await(absl::Condition(
        +[](bool* fetching) { return !*fetching; }, &fetching_));
    key = lookup();
  }
  if (key == nullptr) return Unauth(absl::StrCat("no signing key with kid \"", kid, "\""));
  if (key->alg_family != fam) {
    return Unauth(absl::StrCat("algorithm ", alg, " does not match key \"", kid, "\""));
  }
  return *key;
}

absl::StatusOr<JwtIdentity> JwtVerifier::Verify(absl::string_view token) {
  std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty()) {
    return Unauth("not a signed JWT (want header.payload.signature)");
  }
  Json header = Json::parse(B64UrlDecode(parts[0]), nullptr, false);
  if (!header.is_object() || !header.contains("alg") || !header["alg"].is_string()) {
    return Unauth("malformed header");
  }
  std::string alg = header["alg"].get<std::string>();
  if (std::find(options_.algorithms.begin(), options_.algorithms.end(), alg) ==
      options_.algorithms.end()) {
    return Unauth(absl::StrCat("algorithm \"", alg, "\" is not allowed"));
  }
  std::string kid = header.contains("kid") && header["kid"].is_string()
                        ? header["kid"].get<std::string>()
                        : "";
  auto key = FindKey(kid, alg);
  if (!key.ok()) return key.status();

  jwt_t* raw = nullptr;
  std::string tok(token);
  int rc = jwt_decode(&raw, tok.c_str(), reinterpret_cast<const unsigned char*>(key->material.data()),
                      static_cast<int>(key->material.size()));
  std::unique_ptr<jwt_t, void (*)(jwt_t*)> jwt(raw, &jwt_free);
  if (rc != 0 || !jwt) return Unauth("signature does not verify");
  if (std::string(jwt_alg_str(jwt_get_alg(jwt.get()))) != alg) return Unauth("algorithm mismatch");

  Json claims = Json::parse(B64UrlDecode(parts[1]), nullptr, false);
  if (!claims.is_object()) return Unauth("malformed claims");
  int64_t now = absl::ToUnixSeconds(clock_());
  int64_t leeway = absl::ToInt64Seconds(options_.leeway);
  auto it = claims.find("exp");
  if (it == claims.end() || !it->is_number()) return Unauth("no exp claim");
  if (now > it->get<int64_t>() + leeway) return Unauth("expired");
  it = claims.find("nbf");
  if (it != claims.end() && it->is_number() && now + leeway < it->get<int64_t>()) {
    return Unauth("not valid yet (nbf)");
  }
  if (!options_.issuer.empty()) {
    it = claims.find("iss");
    if (it == claims.end() || !it->is_string() || it->get<std::string>() != options_.issuer) {
      return Unauth("wrong issuer");
    }
  }
  if (!options_.audiences.empty()) {
    std::vector<std::string> aud;
    it = claims.find("aud");
    if (it != claims.end() && it->is_string()) aud.push_back(it->get<std::string>());
    if (it != claims.end() && it->is_array()) {
      for (const Json& a : *it) {
        if (a.is_string()) aud.push_back(a.get<std::string>());
      }
    }
    bool match = false;
    for (const auto& a : aud) {
      match = match || std::find(options_.audiences.begin(), options_.audiences.end(), a) !=
                           options_.audiences.end();
    }
    if (!match) return Unauth("wrong audience");
  }
  JwtIdentity out;
  it = claims.find(options_.identity_claim);
  if (it == claims.end() || !it->is_string() || it->get<std::string>().empty()) {
    return Unauth(absl::StrCat("no \"", options_.identity_claim, "\" claim"));
  }
  out.identity = it->get<std::string>();
  if (options_.identity_claim == "email" && !EmailVerifiedOrAbsent(claims)) {
    return Unauth("the IdP says the email is not verified (email_verified is not true)");
  }
  if (!options_.groups_claim.empty()) {
    it = claims.find(options_.groups_claim);
    if (it != claims.end() && it->is_string()) out.groups.push_back(it->get<std::string>());
    if (it != claims.end() && it->is_array()) {
      for (const Json& g : *it) {
        if (g.is_string()) out.groups.push_back(g.get<std::string>());
      }
    }
  }
  return out;
}

}  // namespace sluice::auth
