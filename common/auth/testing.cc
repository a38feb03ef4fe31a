#include "common/auth/testing.h"

#include <jwt.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "absl/strings/escaping.h"

namespace sluice::auth::testing {
namespace {

std::string B64Url(const std::string& raw) {
  std::string out;
  absl::WebSafeBase64Escape(raw, &out);
  return out;
}

std::string BnParam(EVP_PKEY* pkey, const char* name) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) throw std::runtime_error("get bn param");
  std::string raw(BN_num_bytes(bn), '\0');
  BN_bn2bin(bn, reinterpret_cast<unsigned char*>(raw.data()));
  BN_free(bn);
  return raw;
}

std::string Pem(EVP_PKEY* pkey, bool priv) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (priv) {
    PEM_write_bio_PrivateKey(bio, pkey, nullptr, nullptr, 0, nullptr, nullptr);
  } else {
    PEM_write_bio_PUBKEY(bio, pkey);
  }
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

std::string Sign(jwt_alg_t alg, const std::string& key, const nlohmann::json& claims,
                 const std::string& kid) {
  jwt_t* jwt = nullptr;
  jwt_new(&jwt);
  jwt_add_grants_json(jwt, claims.dump().c_str());
  if (!kid.empty()) jwt_add_header(jwt, "kid", kid.c_str());
  if (jwt_set_alg(jwt, alg, reinterpret_cast<const unsigned char*>(key.data()),
                  static_cast<int>(key.size())) != 0) {
    jwt_free(jwt);
    throw std::runtime_error("jwt_set_alg");
  }
  char* s = jwt_encode_str(jwt);
  std::string out = s ? s : "";
  free(s);
  jwt_free(jwt);
  return out;
}

}  // namespace

TestKey NewRsaKey(const std::string& kid) {
  EVP_PKEY* pkey = EVP_RSA_gen(2048);
  TestKey k{kid, "RS256", Pem(pkey, true), Pem(pkey, false), {}};
  k.jwk = {{"kty", "RSA"}, {"kid", kid}, {"use", "sig"}, {"alg", "RS256"},
           {"n", B64Url(BnParam(pkey, OSSL_PKEY_PARAM_RSA_N))},
           {"e", B64Url(BnParam(pkey, OSSL_PKEY_PARAM_RSA_E))}};
  EVP_PKEY_free(pkey);
  return k;
}

TestKey NewEcKey(const std::string& kid) {
  EVP_PKEY* pkey = EVP_EC_gen("P-256");
  TestKey k{kid, "ES256", Pem(pkey, true), Pem(pkey, false), {}};
  unsigned char buf[133];
  size_t len = 0;
  EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, buf, sizeof(buf),
                                  &len);
  if (len != 65 || buf[0] != 4) throw std::runtime_error("unexpected EC point encoding");
  std::string x(reinterpret_cast<char*>(buf + 1), 32), y(reinterpret_cast<char*>(buf + 33), 32);
  k.jwk = {{"kty", "EC"}, {"kid", kid},      {"use", "sig"},
           {"alg", "ES256"}, {"crv", "P-256"}, {"x", B64Url(x)}, {"y", B64Url(y)}};
  EVP_PKEY_free(pkey);
  return k;
}

std::string JwksJson(const std::vector<TestKey>& keys) {
  nlohmann::json doc = {{"keys", nlohmann::json::array()}};
  for (const auto& k : keys) doc["keys"].push_back(k.jwk);
  return doc.dump();
}

std::string SignJwt(const TestKey& key, const nlohmann::json& claims,
                    const std::string& kid_override) {
  return Sign(jwt_str_alg(key.alg.c_str()), key.private_pem, claims,
              kid_override.empty() ? key.kid : kid_override);
}

std::string SignJwtHmac(const std::string& secret, const std::string& alg,
                        const nlohmann::json& claims) {
  return Sign(jwt_str_alg(alg.c_str()), secret, claims, "");
}

std::string UnsignedJwt(const nlohmann::json& claims) {
  return B64Url(R"({"alg":"none","typ":"JWT"})") + "." + B64Url(claims.dump()) + ".";
}

}  // namespace sluice::auth::testing
