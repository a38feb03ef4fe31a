#include "common/auth/secret.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "common/auth/tls.h"
#include "gtest/gtest.h"

namespace sluice::auth {
namespace {

TEST(SecretTest, ReadsFilesAndEnvironment) {
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  std::string path = absl::StrCat(dir, "/token");
  std::ofstream(path) << "0123456789abcdef-token\n";
  auto s = LoadSecret({path, ""}, "t");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "0123456789abcdef-token");  // trailing newline dropped

  setenv("SLUICE_TEST_SECRET", "fedcba9876543210-env", 1);
  EXPECT_EQ(*LoadSecret({"", "SLUICE_TEST_SECRET"}, "t"), "fedcba9876543210-env");
  EXPECT_EQ(*LoadSecret({}, "t"), "");

  EXPECT_TRUE(absl::IsInvalidArgument(LoadSecret({path, "SLUICE_TEST_SECRET"}, "t").status()));
  EXPECT_TRUE(absl::IsNotFound(LoadSecret({dir + "/absent", ""}, "t").status()));
  EXPECT_TRUE(absl::IsNotFound(LoadSecret({"", "SLUICE_TEST_UNSET_VAR"}, "t").status()));
  setenv("SLUICE_TEST_SHORT", "short", 1);
  auto short_secret = LoadSecret({"", "SLUICE_TEST_SHORT"}, "auth.header.proxy_token");
  EXPECT_TRUE(absl::IsInvalidArgument(short_secret.status()));
  EXPECT_NE(short_secret.status().message().find("auth.header.proxy_token"), std::string::npos);
  EXPECT_EQ(short_secret.status().message().find("short\""), std::string::npos);
}

TEST(SecretTest, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
}

TEST(TlsTest, LoopbackHosts) {
  for (const char* h : {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"}) {
    EXPECT_TRUE(IsLoopbackHost(h)) << h;
  }
  for (const char* h : {"0.0.0.0", "::", "10.0.0.1", "[::]", "example.com", ""}) {
    EXPECT_FALSE(IsLoopbackHost(h)) << h;
  }
}

TEST(TlsTest, CredentialErrorsNameTheSetting) {
  TlsServerOptions o;
  o.client_ca_file = "/ca.pem";
  EXPECT_TRUE(absl::IsInvalidArgument(MakeServerCredentials(o).status()));
  o = {"/nope/cert.pem", "/nope/key.pem", ""};
  auto st = MakeServerCredentials(o).status();
  EXPECT_TRUE(absl::IsNotFound(st));
  EXPECT_NE(st.message().find("tls.cert_file"), std::string::npos);
  TlsClientOptions c;
  c.enabled = true;
  c.cert_file = "/x";
  EXPECT_TRUE(absl::IsInvalidArgument(MakeChannelCredentials(c).status()));
}

}  // namespace
}  // namespace sluice::auth
