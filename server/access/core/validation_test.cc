#include "server/access/core/validation.h"

#include <string>

#include <gtest/gtest.h>

namespace sluice::access {
namespace {

TEST(ValidationTest, EmailAddressesAreOneAtWithoutSeparatorsOrControlCharacters) {
  EXPECT_TRUE(IsEmailAddress("alice@example.com"));
  EXPECT_TRUE(IsEmailAddress("a.b+tag@sub.example.com"));
  EXPECT_FALSE(IsEmailAddress("alice"));
  EXPECT_FALSE(IsEmailAddress("@example.com"));
  EXPECT_FALSE(IsEmailAddress("alice@"));
  EXPECT_FALSE(IsEmailAddress("a@b@c"));
  EXPECT_FALSE(IsEmailAddress("alice @example.com"));
  EXPECT_FALSE(IsEmailAddress("a,b@example.com"));
  EXPECT_FALSE(IsEmailAddress("$appeal.creator@x"));
  // Control characters would reach logs, headers and provider calls.
  EXPECT_FALSE(IsEmailAddress(std::string("alice\0@example.com", 18)));
  EXPECT_FALSE(IsEmailAddress("alice\x1b[31m@example.com"));
  EXPECT_FALSE(IsEmailAddress("alice@example.com\x7f"));
  EXPECT_FALSE(IsEmailAddress("alice@example.com\r"));
  EXPECT_FALSE(IsEmailAddress("alice\xc2\x9b" "31m@example.com")) << "C1 CSI";
  EXPECT_TRUE(IsEmailAddress("j\xc3\xbcrgen@example.com")) << "other UTF-8 is fine";
}

}  // namespace
}  // namespace sluice::access
