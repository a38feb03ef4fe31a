#include "common/crypto.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

constexpr char kKey[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

TEST(Crypter, RoundTripsWithFreshNonces) {
  auto c = Crypter::Create(kKey);
  ASSERT_TRUE(c.ok()) << c.status();
  auto a = (*c)->Encrypt("s3cret password");
  auto b = (*c)->Encrypt("s3cret password");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);  // random nonce
  EXPECT_TRUE(Crypter::IsEncrypted(*a));
  EXPECT_EQ(a->find("s3cret"), std::string::npos);
  EXPECT_EQ(*(*c)->Decrypt(*a), "s3cret password");
  EXPECT_EQ(*(*c)->Decrypt(*(*c)->Encrypt("")), "");
}

TEST(Crypter, WrongKeyAndTamperingFailAuthentication) {
  auto c = *Crypter::Create(kKey);
  auto enc = *c->Encrypt("token");
  EXPECT_EQ(Crypter::Development()->Decrypt(enc).status().code(),
            absl::StatusCode::kFailedPrecondition);
  std::string tampered = enc;
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(c->Decrypt(tampered).ok());
  EXPECT_EQ(c->Decrypt("plain").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c->Decrypt("v1:@@@").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Crypter, KeyFormats) {
  EXPECT_FALSE(Crypter::Create("short").ok());
  EXPECT_EQ(Crypter::Create("short").status().message().find("short"), std::string::npos);
  EXPECT_TRUE(Crypter::Create("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=").ok());
}

}  // namespace
}  // namespace sluice
