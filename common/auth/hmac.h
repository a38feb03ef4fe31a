// HMAC-SHA256 (RFC 2104) through OpenSSL, as lowercase hex: the signatures
// Sluice derives (alert hook tokens) and checks (Slack's signed requests).
#ifndef SLUICE_COMMON_AUTH_HMAC_H_
#define SLUICE_COMMON_AUTH_HMAC_H_

#include <string>

#include "absl/strings/string_view.h"

namespace sluice::auth {

// Lowercase hex HMAC-SHA256 of `message` under `key`: 64 characters. The
// same as `printf %s "$MESSAGE" | openssl dgst -sha256 -hmac "$KEY"`.
std::string HexHmacSha256(absl::string_view key, absl::string_view message);

}  // namespace sluice::auth

#endif  // SLUICE_COMMON_AUTH_HMAC_H_
