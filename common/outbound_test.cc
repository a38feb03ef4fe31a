#include "common/outbound.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "gtest/gtest.h"

namespace sluice {
namespace {

sockaddr_in V4(const char* a) {
  sockaddr_in s{};
  s.sin_family = AF_INET;
  inet_pton(AF_INET, a, &s.sin_addr);
  return s;
}
sockaddr_in6 V6(const char* a) {
  sockaddr_in6 s{};
  s.sin6_family = AF_INET6;
  inet_pton(AF_INET6, a, &s.sin6_addr);
  return s;
}

TEST(CidrTest, ParsesAndMatches) {
  auto meta = ParseCidr("169.254.0.0/16");
  ASSERT_TRUE(meta.ok());
  auto in = V4("169.254.169.254"), out = V4("169.255.0.1");
  EXPECT_TRUE(CidrContains(*meta, reinterpret_cast<sockaddr*>(&in)));
  EXPECT_FALSE(CidrContains(*meta, reinterpret_cast<sockaddr*>(&out)));
  auto mapped = V6("::ffff:169.254.169.254");
  EXPECT_TRUE(CidrContains(*meta, reinterpret_cast<sockaddr*>(&mapped)));

  auto ula = ParseCidr("fd00::/8");
  ASSERT_TRUE(ula.ok());
  auto a6 = V6("fd12::1"), b6 = V6("fe80::1");
  EXPECT_TRUE(CidrContains(*ula, reinterpret_cast<sockaddr*>(&a6)));
  EXPECT_FALSE(CidrContains(*ula, reinterpret_cast<sockaddr*>(&b6)));
  EXPECT_FALSE(CidrContains(*ula, reinterpret_cast<sockaddr*>(&in)));

  auto host = ParseCidr("10.1.2.3");
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(host->prefix, 32);
  auto odd = ParseCidr("10.1.2.0/23");
  ASSERT_TRUE(odd.ok());
  auto x = V4("10.1.3.200"), y = V4("10.1.4.1");
  EXPECT_TRUE(CidrContains(*odd, reinterpret_cast<sockaddr*>(&x)));
  EXPECT_FALSE(CidrContains(*odd, reinterpret_cast<sockaddr*>(&y)));

  for (const char* bad : {"10.0.0.0/33", "nope", "10.0.0.0/x", "::/129", ""}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseCidr(bad).status())) << bad;
  }
}

TEST(ValidateHttpUrlTest, OnlyAbsoluteHttpUrls) {
  EXPECT_TRUE(ValidateHttpUrl("url", "https://hooks.example.com/x").ok());
  EXPECT_TRUE(ValidateHttpUrl("url", "HTTP://127.0.0.1:8080").ok());
  for (const char* bad : {"file:///etc/passwd", "gopher://redis:6379/_FLUSHALL", "dict://x",
                          "http://", "https:///path", "ftp://x", "/local/path", "",
                          "http://a b", "http://x\r\nHost: y"}) {
    auto st = ValidateHttpUrl("api_url", bad);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << bad;
    EXPECT_EQ(st.message().rfind("api_url", 0), 0u) << st.message();
  }
}

size_t Ignore(char*, size_t s, size_t n, void*) { return s * n; }

TEST(RestrictOutboundTest, RefusesFileAndOtherSchemes) {
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  std::string path = dir + "/secret.txt";
  std::ofstream(path) << "SLUICE_DB_DSN=postgres://x";
  for (std::string url : {"file://" + path, std::string("gopher://127.0.0.1:1/_x"),
                          std::string("dict://127.0.0.1:1/x")}) {
    CURL* curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Ignore);
    RestrictOutbound(curl);
    CURLcode rc = curl_easy_perform(curl);
    EXPECT_EQ(rc, CURLE_UNSUPPORTED_PROTOCOL) << url << ": " << curl_easy_strerror(rc);
    curl_easy_cleanup(curl);
  }
}

TEST(RestrictOutboundTest, DeniedNetworksAreRefusedAfterResolution) {
  // A listening socket on loopback; "localhost" resolves to it.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr = V4("127.0.0.1");
  addr.sin_port = 0;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 4), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string url = "http://localhost:" + std::to_string(ntohs(addr.sin_port)) + "/";

  auto run = [&]() {
    CURL* curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_IPRESOLVE, CURL_IPRESOLVE_V4);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 300L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Ignore);
    RestrictOutbound(curl);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_cleanup(curl);
    return rc;
  };
  // Allowed: the connection is made (the server never answers: timeout).
  EXPECT_EQ(run(), CURLE_OPERATION_TIMEDOUT);
  OutboundPolicy policy;
  policy.deny_cidrs.push_back(*ParseCidr("127.0.0.0/8"));
  SetOutboundPolicy(policy);
  EXPECT_EQ(run(), CURLE_COULDNT_CONNECT);
  SetOutboundPolicy({});
  close(fd);
}

}  // namespace
}  // namespace sluice
