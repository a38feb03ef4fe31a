// The libcurl client against a loopback server run by the test: outbound
// restrictions (scheme, denied networks), the response body cap, and error
// messages that carry neither response bodies nor URL secrets.
#include "common/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/deadline.h"
#include "common/outbound.h"
#include "common/testing/silent_listener.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Answers every connection on 127.0.0.1 with `response` (raw HTTP), then
// closes it.
class CannedServer {
 public:
  explicit CannedServer(std::string response) : response_(std::move(response)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(fd_, 8);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~CannedServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string Url(absl::string_view path) const {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  int accepted() const { return accepted_; }

 private:
  void Serve() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      ++accepted_;
      std::string req;
      char buf[4096];
      while (req.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0) break;
        req.append(buf, n);
      }
      size_t off = 0;
      while (off < response_.size()) {
        ssize_t n = write(c, response_.data() + off, response_.size() - off);
        if (n <= 0) break;
        off += n;
      }
      close(c);
    }
  }
  std::string response_;
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

std::string Response(int status, const std::string& body, bool content_length = true) {
  return absl::StrCat("HTTP/1.1 ", status, " X\r\n",
                      content_length ? absl::StrCat("Content-Length: ", body.size(), "\r\n") : "",
                      "Connection: close\r\n\r\n", body);
}

TEST(HttpClientTest, OnlyHttpAndHttpsAreSpoken) {
  auto http = NewCurlHttpClient();
  for (const char* url : {"file:///proc/self/environ#/chat.postMessage", "file:///etc/hostname",
                          "gopher://127.0.0.1:6379/_FLUSHALL", "dict://127.0.0.1:11211/stat"}) {
    HttpRequest req;
    req.url = url;
    auto res = http->Do(req);
    ASSERT_FALSE(res.ok()) << url;
    EXPECT_EQ(res.status().code(), absl::StatusCode::kUnavailable) << res.status();
    EXPECT_THAT(std::string(res.status().message()), HasSubstr("protocol")) << res.status();
  }
}

TEST(HttpClientTest, DeniedNetworksAreRefusedAfterDns) {
  CannedServer server(Response(200, "{}"));
  auto http = NewCurlHttpClient();
  HttpRequest req;
  req.url = server.Url("/x");
  ASSERT_TRUE(http->Do(req).ok());
  OutboundPolicy policy;
  policy.deny_cidrs.push_back(*ParseCidr("127.0.0.0/8"));
  SetOutboundPolicy(policy);
  auto refused = http->Do(req);
  SetOutboundPolicy({});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(server.accepted(), 1);
}

TEST(HttpClientTest, ResponseBodiesAreCapped) {
  std::string big(5000, 'x');
  auto http = NewCurlHttpClient();
  for (bool content_length : {true, false}) {
    CannedServer server(Response(200, big, content_length));
    HttpRequest req;
    req.url = server.Url("/big");
    req.max_response_bytes = 1000;
    auto res = http->Do(req);
    ASSERT_FALSE(res.ok()) << "content_length=" << content_length;
    EXPECT_EQ(res.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(res.status().message()), HasSubstr("exceeds the limit of 1000 bytes"));
    req.max_response_bytes = 5000;
    auto ok = http->Do(req);
    ASSERT_TRUE(ok.ok()) << ok.status();
    EXPECT_EQ(ok->body, big);
  }
  EXPECT_EQ(HttpRequest().max_response_bytes, 1u << 20);
}

TEST(HttpClientTest, RedirectsAreFollowedOnlyWhenAskedAndOnlyToHttp) {
  CannedServer target(Response(200, "moved here"));
  CannedServer hop(absl::StrCat("HTTP/1.1 302 Found\r\nLocation: ", target.Url("/t"),
                                "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
  CannedServer to_file(
      "HTTP/1.1 302 Found\r\nLocation: file:///etc/hostname\r\nContent-Length: 0\r\n"
      "Connection: close\r\n\r\n");
  auto http = NewCurlHttpClient();
  HttpRequest req;
  req.method = "GET";
  req.url = hop.Url("/a");
  auto not_followed = http->Do(req);
  ASSERT_TRUE(not_followed.ok()) << not_followed.status();
  EXPECT_EQ(not_followed->status, 302) << "no redirects by default";
  EXPECT_EQ(target.accepted(), 0);
  req.max_redirects = 2;
  auto followed = http->Do(req);
  ASSERT_TRUE(followed.ok()) << followed.status();
  EXPECT_EQ(followed->status, 200);
  EXPECT_EQ(followed->body, "moved here");
  req.url = to_file.Url("/b");
  auto refused = http->Do(req);
  ASSERT_FALSE(refused.ok()) << "a redirect to file:// is refused";
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
}

TEST(HttpClientTest, ErrorsNameNeitherBodyNorUrlSecrets) {
  CannedServer server(Response(500, "SLUICE_DB_DSN=host=db password=hunter2"));
  auto http = NewCurlHttpClient();
  HttpRequest req;
  req.url = server.Url("/services/T000/B000/s3cr3t?token=abc");
  auto res = http->Do(req);
  ASSERT_TRUE(res.ok());
  absl::Status st = HttpStatusToError("POST hook", *res);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(st.message(), "POST hook: HTTP 500");
  EXPECT_EQ(HttpStatusToError("x", HttpResult{429, "body"}).message(), "x: HTTP 429");
  EXPECT_EQ(HttpStatusToError("x", HttpResult{404, "body"}).code(),
            absl::StatusCode::kFailedPrecondition);

  // Transport errors name only scheme://host:port.
  req.url = "http://user:pw@127.0.0.1:1/services/T000/B000/s3cr3t?token=abc";
  auto down = http->Do(req);
  ASSERT_FALSE(down.ok());
  std::string msg(down.status().message());
  EXPECT_THAT(msg, HasSubstr("POST http://127.0.0.1:1"));
  EXPECT_THAT(msg, Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(msg, Not(HasSubstr("pw")));
}

// Review M4: under an RPC's deadline, a request waits at most until it, even
// when its own timeout is longer; past the deadline nothing is sent.
TEST(HttpClientTest, TheCallDeadlineCutsTheRequestTimeout) {
  testing::SilentListener hung;
  auto http = NewCurlHttpClient();
  HttpRequest req;
  req.method = "GET";
  req.url = absl::StrCat("http://127.0.0.1:", hung.port(), "/");
  req.timeout = absl::Seconds(20);
  {
    CallDeadlineScope call(absl::Now() + absl::Milliseconds(400));
    absl::Time start = absl::Now();
    auto r = http->Do(req);
    absl::Duration took = absl::Now() - start;
    EXPECT_TRUE(absl::IsDeadlineExceeded(r.status())) << r.status();
    EXPECT_GE(took, absl::Milliseconds(300));
    EXPECT_LT(took, absl::Seconds(5));
  }
  {
    CallDeadlineScope call(absl::Now() - absl::Milliseconds(1));
    auto r = http->Do(req);
    EXPECT_TRUE(absl::IsDeadlineExceeded(r.status())) << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("deadline passed before sending"));
  }
}

TEST(HttpClientTest, RedactUrl) {
  EXPECT_EQ(RedactUrl("https://hooks.slack.com/services/T/B/secret"), "https://hooks.slack.com");
  EXPECT_EQ(RedactUrl("http://u:p@h:8080/p?q=1#f"), "http://h:8080");
  EXPECT_EQ(RedactUrl("not a url"), "<invalid URL>");
}

}  // namespace
}  // namespace sluice
