#include "common/crypto.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sluice {
namespace {

constexpr int kNonceLen = 12;
constexpr int kTagLen = 16;
constexpr char kLegacyPrefix[] = "v1:";  // no AAD
constexpr char kPrefix[] = "v2:";        // AAD = the value's context

struct CtxDeleter {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CtxDeleter>;

}  // namespace

absl::StatusOr<std::unique_ptr<Crypter>> Crypter::Create(absl::string_view key) {
  std::string raw;
  bool hex = key.size() == 64;
  for (char c : key) hex = hex && absl::ascii_isxdigit(static_cast<unsigned char>(c));
  if (hex) {
    raw = absl::HexStringToBytes(key);
  } else if (!absl::Base64Unescape(key, &raw)) {
    raw.clear();
  }
  if (raw.size() != 32) {
    return absl::InvalidArgumentError(
        "encryption key must be 32 bytes, given as 64 hex characters or base64");
  }
  std::array<unsigned char, 32> k;
  std::copy(raw.begin(), raw.end(), k.begin());
  return std::unique_ptr<Crypter>(new Crypter(k));
}

std::unique_ptr<Crypter> Crypter::Development() {
  std::array<unsigned char, 32> k;
  for (int i = 0; i < 32; ++i) k[i] = static_cast<unsigned char>(0x5a ^ i);
  return std::unique_ptr<Crypter>(new Crypter(k));
}

bool Crypter::IsEncrypted(absl::string_view s) {
  return absl::StartsWith(s, kPrefix) || absl::StartsWith(s, kLegacyPrefix);
}

absl::Status Crypter::RejectCiphertext(absl::string_view field, absl::string_view value) {
  if (!IsEncrypted(value)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      field, ": looks like a stored ciphertext (v1:/v2:); send the secret itself"));
}

absl::StatusOr<std::string> Crypter::Encrypt(absl::string_view plaintext,
                                             absl::string_view context) const {
  std::string out(kNonceLen + plaintext.size() + kTagLen, '\0');
  auto* buf = reinterpret_cast<unsigned char*>(out.data());
  if (RAND_bytes(buf, kNonceLen) != 1) return absl::InternalError("RAND_bytes failed");
  CtxPtr ctx(EVP_CIPHER_CTX_new());
  int len = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), buf) != 1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &len,
                        reinterpret_cast<const unsigned char*>(context.data()),
                        static_cast<int>(context.size())) != 1 ||
      EVP_EncryptUpdate(ctx.get(), buf + kNonceLen, &len,
                        reinterpret_cast<const unsigned char*>(plaintext.data()),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), buf + kNonceLen + len, &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagLen,
                          buf + kNonceLen + plaintext.size()) != 1) {
    return absl::InternalError("AES-256-GCM encryption failed");
  }
  return std::string(kPrefix) + absl::Base64Escape(out);
}

absl::StatusOr<std::string> Crypter::Decrypt(absl::string_view ciphertext,
                                             absl::string_view context) const {
  if (absl::StartsWith(ciphertext, kPrefix)) {
    return Open(ciphertext.substr(sizeof(kPrefix) - 1), context);
  }
  if (absl::StartsWith(ciphertext, kLegacyPrefix)) {
    return Open(ciphertext.substr(sizeof(kLegacyPrefix) - 1), "");
  }
  return absl::InvalidArgumentError("not an encrypted value");
}

absl::StatusOr<std::string> Crypter::Open(absl::string_view raw_b64, absl::string_view aad) const {
  std::string raw;
  if (!absl::Base64Unescape(raw_b64, &raw) || raw.size() < kNonceLen + kTagLen) {
    return absl::InvalidArgumentError("malformed encrypted value");
  }
  auto* buf = reinterpret_cast<unsigned char*>(raw.data());
  size_t n = raw.size() - kNonceLen - kTagLen;
  std::string out(n, '\0');
  CtxPtr ctx(EVP_CIPHER_CTX_new());
  int len = 0;
  if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), buf) != 1 ||
      EVP_DecryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(aad.data()),
                        static_cast<int>(aad.size())) != 1 ||
      EVP_DecryptUpdate(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len,
                        buf + kNonceLen, static_cast<int>(n)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagLen, buf + kNonceLen + n) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(out.data()) + len, &len) != 1) {
    return absl::FailedPreconditionError(
        "cannot decrypt stored secret: wrong encryption key, wrong place or corrupted data");
  }
  return out;
}

}  // namespace sluice
