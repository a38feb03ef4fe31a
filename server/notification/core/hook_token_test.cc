#include "server/notification/core/hook_token.h"

#include "gtest/gtest.h"

namespace sluice::notification {
namespace {

constexpr char kSecret[] = "secret-0123456789abcdef0123456789";

// The README's command gives the same token:
//   printf %s cortex/1/2 | openssl dgst -sha256 -hmac secret-0123456789abcdef0123456789
TEST(NamespaceHookToken, IsHexHmacSha256OfTypeProviderNamespace) {
  EXPECT_EQ(NamespaceHookToken(kSecret, "cortex", 1, 2),
            "07c3681edbe191668ed28d600839658b3181fd17e5b8be341a3ecece1d31ea4b");
}

TEST(NamespaceHookToken, EveryNamespaceAndProviderHasItsOwn) {
  std::string t = NamespaceHookToken(kSecret, "cortex", 1, 2);
  EXPECT_NE(t, NamespaceHookToken(kSecret, "cortex", 1, 3));
  EXPECT_NE(t, NamespaceHookToken(kSecret, "cortex", 2, 2));
  EXPECT_NE(t, NamespaceHookToken(kSecret, "prometheus", 1, 2));
  EXPECT_NE(NamespaceHookToken(kSecret, "cortex", 1, 23), NamespaceHookToken(kSecret, "cortex", 12, 3));
}

TEST(CheckNamespaceHookToken, OnlyTheNamespacesOwnTokenOpensItsHook) {
  AlertHookSecrets secrets = {{"cortex/1", kSecret}};
  std::string own = NamespaceHookToken(kSecret, "cortex", 1, 2);
  EXPECT_TRUE(CheckNamespaceHookToken(secrets, "cortex", 1, 2, own).ok());
  // Another tenant's token, a missing one, the provider secret itself.
  EXPECT_EQ(CheckNamespaceHookToken(secrets, "cortex", 1, 3, own).code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(CheckNamespaceHookToken(secrets, "cortex", 1, 2, "").code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(CheckNamespaceHookToken(secrets, "cortex", 1, 2, kSecret).code(),
            absl::StatusCode::kUnauthenticated);
  // A provider without a secret: its namespace hooks are closed.
  absl::Status closed = CheckNamespaceHookToken(secrets, "cortex", 2, 2, own);
  EXPECT_EQ(closed.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(closed.message().find("notification.alert_hook_secrets"), std::string::npos);
}

TEST(NamespaceHookTokenFor, UsesTheProvidersSecretThenStarAndSaysWhatToConfigure) {
  AlertHookSecrets secrets = {{"cortex/1", kSecret}};
  auto none = NamespaceHookTokenFor(secrets, "cortex", 2, 5);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("provider: \"cortex/2\""), std::string::npos)
      << none.status();
  secrets["*"] = "star-secret-0123456789abcdef0123456789";
  auto star = NamespaceHookTokenFor(secrets, "cortex", 2, 5);
  ASSERT_TRUE(star.ok());
  EXPECT_EQ(*star, NamespaceHookToken(secrets["*"], "cortex", 2, 5));
  EXPECT_EQ(*NamespaceHookTokenFor(secrets, "cortex", 1, 5), NamespaceHookToken(kSecret, "cortex", 1, 5));
}

}  // namespace
}  // namespace sluice::notification
