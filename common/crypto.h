// Encryption of secrets at rest (provider credentials, receiver tokens):
// AES-256-GCM through OpenSSL's EVP interface, with a random 96-bit nonce per
// value and the value's place (table, row, field) as additional authenticated
// data (NIST SP 800-38D §5.2.1.1), so a ciphertext copied to another row or
// field no longer decrypts. Ciphertexts are text: "v2:" + base64(nonce ‖
// ciphertext ‖ 16-byte tag), so they fit TEXT/JSONB columns. "v1:" values
// (before AAD, no context) are still read.
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

  // Encrypts `plaintext` into "v2:<base64>", bound to `context` (where the
  // value is stored, e.g. "providers/postgres/warehouse/credentials").
  // Internal only on an OpenSSL failure.
  absl::StatusOr<std::string> Encrypt(absl::string_view plaintext, absl::string_view context) const;

  // Inverts Encrypt with the same `context` (a legacy "v1:" value ignores
  // it). InvalidArgument for malformed input, FailedPrecondition when
  // authentication fails (wrong key, wrong context or tampered data).
  absl::StatusOr<std::string> Decrypt(absl::string_view ciphertext,
                                      absl::string_view context) const;

  // True when `s` looks like Encrypt's output ("v1:" or "v2:" prefix). API
  // handlers refuse such values from clients (RejectCiphertext): the server
  // would otherwise decrypt a leaked ciphertext for whoever sends it back.
  static bool IsEncrypted(absl::string_view s);

  // InvalidArgument "<field>: ..." when `value` IsEncrypted.
  static absl::Status RejectCiphertext(absl::string_view field, absl::string_view value);

 private:
  explicit Crypter(const std::array<unsigned char, 32>& key) : key_(key) {}
  absl::StatusOr<std::string> Open(absl::string_view raw_b64, absl::string_view aad) const;
  std::array<unsigned char, 32> key_;
};

}  // namespace sluice

#endif  // SLUICE_COMMON_CRYPTO_H_
