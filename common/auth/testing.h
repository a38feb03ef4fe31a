// Test helpers for JWT auth: fresh signing keys, their JWK form, and tokens
// signed with libjwt, so tests play an identity provider.
#ifndef SLUICE_COMMON_AUTH_TESTING_H_
#define SLUICE_COMMON_AUTH_TESTING_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace sluice::auth::testing {

// A signing key pair.
struct TestKey {
  std::string kid;          // the JWK "kid" and the tokens' header kid
  std::string alg;          // "RS256" or "ES256"
  std::string private_pem;  // PKCS#8 PEM
  std::string public_pem;   // SubjectPublicKeyInfo PEM
  nlohmann::json jwk;       // the public key as a JWK (kty, kid, use, alg, n/e or crv/x/y)
};

// A new 2048-bit RSA key (RS256) or P-256 key (ES256).
TestKey NewRsaKey(const std::string& kid);
TestKey NewEcKey(const std::string& kid);

// {"keys": [jwk...]}
std::string JwksJson(const std::vector<TestKey>& keys);

// A compact JWS over `claims` signed with `key` (header alg = key.alg, kid =
// key.kid). `kid_override` non-empty replaces the kid.
std::string SignJwt(const TestKey& key, const nlohmann::json& claims,
                    const std::string& kid_override = "");

// A token signed with HMAC `secret` under `alg` ("HS256"...).
std::string SignJwtHmac(const std::string& secret, const std::string& alg,
                        const nlohmann::json& claims);

// An unsigned token (alg "none").
std::string UnsignedJwt(const nlohmann::json& claims);

}  // namespace sluice::auth::testing

#endif  // SLUICE_COMMON_AUTH_TESTING_H_
