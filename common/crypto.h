// Encryption of secrets at rest (provider credentials, receiver tokens):
// AES-256-GCM through OpenSSL's EVP interface, with a random 96-bit nonce per
// value (NIST SP 800-38D). Ciphertexts are text: "v1:" + base64(nonce ‖
// ciphertext ‖ 16-byte tag), so they fit TEXT/JSONB columns.
#ifndef SLUICE_COMMON_CRYPTO_H_
#define SLUICE_COMMON_CRYPTO_H_

#include <array>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice {

// What responses show instead of a secret.
inline constexpr char kMaskedSecret[] = "*****";

// A 256-bit key and the operations that use it. Thread-safe (immutable).
class Crypter {
 public:
  // `key` is 64 hex characters or standard base64 of 32 bytes.
  // InvalidArgument otherwise (the message never contains the key).
  static absl::StatusOr<std::unique_ptr<Crypter>> Create(absl::string_view key);

  // A Crypter with a fixed, publicly known key: for development only (the
  // server logs a warning when it falls back to it).
  static std::unique_ptr<Crypter> Development();

  // Encrypts `plaintext` into "v1:<base64>". Internal only on an OpenSSL failure.
  absl::StatusOr<std::string> Encrypt(absl::string_view plaintext) const;

  // Inverts Encrypt. InvalidArgument for malformed input, FailedPrecondition
  // when authentication fails (wrong key or tampered data).
  absl::StatusOr<std::string> Decrypt(absl::string_view ciphertext) const;

  // True when `s` looks like Encrypt's output ("v1:" prefix).
  static bool IsEncrypted(absl::string_view s);

 private:
  explicit Crypter(const std::array<unsigned char, 32>& key) : key_(key) {}
  std::array<unsigned char, 32> key_;
};

}  // namespace sluice

#endif  // SLUICE_COMMON_CRYPTO_H_
