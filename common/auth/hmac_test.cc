#include "common/auth/hmac.h"

#include <gtest/gtest.h>

namespace sluice::auth {
namespace {

// RFC 4231, test case 2 (HMAC-SHA-256).
TEST(HexHmacSha256, MatchesRfc4231TestCase2) {
  EXPECT_EQ(HexHmacSha256("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HexHmacSha256, DependsOnKeyAndMessage) {
  EXPECT_NE(HexHmacSha256("Jefe", "a"), HexHmacSha256("Jefe", "b"));
  EXPECT_NE(HexHmacSha256("Jefe", "a"), HexHmacSha256("Jeff", "a"));
  EXPECT_EQ(HexHmacSha256("", "").size(), 64u);
}

}  // namespace
}  // namespace sluice::auth
