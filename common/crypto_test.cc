#include "common/crypto.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

constexpr char kKey[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
constexpr char kCtx[] = "receivers/7/token";

TEST(Crypter, RoundTripsWithFreshNonces) {
  auto c = Crypter::Create(kKey);
  ASSERT_TRUE(c.ok()) << c.status();
  auto a = (*c)->Encrypt("s3cret password", kCtx);
  auto b = (*c)->Encrypt("s3cret password", kCtx);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);  // random nonce
  EXPECT_TRUE(Crypter::IsEncrypted(*a));
  EXPECT_EQ(a->rfind("v2:", 0), 0u);
  EXPECT_EQ(a->find("s3cret"), std::string::npos);
  EXPECT_EQ(*(*c)->Decrypt(*a, kCtx), "s3cret password");
  EXPECT_EQ(*(*c)->Decrypt(*(*c)->Encrypt("", kCtx), kCtx), "");
}

TEST(Crypter, CiphertextIsBoundToItsPlace) {
  auto c = *Crypter::Create(kKey);
  auto enc = *c->Encrypt("pg-password", "providers/postgres/warehouse/credentials");
  // Review M1: a provider's ciphertext pasted into a receiver's token.
  auto moved = c->Decrypt(enc, "receivers/7/token");
  EXPECT_EQ(moved.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(c->Decrypt(enc, "providers/postgres/warehouse/credentials").ok());
}

TEST(Crypter, LegacyValuesWithoutContextStillDecrypt) {
  auto c = *Crypter::Create(kKey);
  // A v1 value is AES-GCM without AAD: the same bytes as an empty context.
  std::string v2 = *c->Encrypt("old secret", "");
  std::string v1 = "v1:" + v2.substr(3);
  EXPECT_EQ(*c->Decrypt(v1, "anything/at/all"), "old secret");
}

TEST(Crypter, WrongKeyAndTamperingFailAuthentication) {
  auto c = *Crypter::Create(kKey);
  auto enc = *c->Encrypt("token", kCtx);
  EXPECT_EQ(Crypter::Development()->Decrypt(enc, kCtx).status().code(),
            absl::StatusCode::kFailedPrecondition);
  std::string tampered = enc;
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(c->Decrypt(tampered, kCtx).ok());
  EXPECT_EQ(c->Decrypt("plain", kCtx).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c->Decrypt("v2:@@@", kCtx).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Crypter, ClientSuppliedCiphertextIsRejected) {
  EXPECT_TRUE(Crypter::RejectCiphertext("token", "xoxb-plain").ok());
  for (const char* v : {"v1:AAAA", "v2:AAAA"}) {
    auto st = Crypter::RejectCiphertext("configurations.token", v);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << v;
    EXPECT_NE(st.message().find("configurations.token"), std::string::npos);
  }
}

TEST(Crypter, KeyFormats) {
  EXPECT_FALSE(Crypter::Create("short").ok());
  EXPECT_EQ(Crypter::Create("short").status().message().find("short"), std::string::npos);
  EXPECT_TRUE(Crypter::Create("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=").ok());
}

}  // namespace
}  // namespace sluice
