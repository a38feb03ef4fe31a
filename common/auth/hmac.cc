#include "common/auth/hmac.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "absl/strings/escaping.h"

namespace sluice::auth {

std::string HexHmacSha256(absl::string_view key, absl::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &size);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(mac), static_cast<size_t>(size)));
}

}  // namespace sluice::auth
