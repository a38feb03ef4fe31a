#include "bench/sink_kafka/bench_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/numbers.h"
#include "gtest/gtest.h"

namespace sluice::bench {
namespace {

// Occurrences of `what` in `s`.
size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// Connects to the server's port (taken from its URL).
int Connect(const BenchHttpServer& server) {
  std::string url = server.Url("");
  int port = 0;
  EXPECT_TRUE(absl::SimpleAtoi(url.substr(url.rfind(':') + 1), &port));
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  return fd;
}

// Reads until `n` complete "{}" answers arrived.
std::string ReadAnswers(int fd, int n) {
  std::string got;
  char buf[4096];
  while (Count(got, "\r\n\r\n{}") < static_cast<size_t>(n)) {
    ssize_t r = read(fd, buf, sizeof(buf));
    if (r <= 0) break;
    got.append(buf, r);
  }
  return got;
}

TEST(BenchHttpServerTest, AnswersSeveralRequestsOnOneConnectionAndCountsBodies) {
  auto server = BenchHttpServer::Start();
  ASSERT_NE(server, nullptr);
  int fd = Connect(*server);
  std::string requests =
      "POST /http HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
      "POST /httpv2 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"
      "PUT /http HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n";
  ASSERT_EQ(write(fd, requests.data(), requests.size()), static_cast<ssize_t>(requests.size()));
  std::string got = ReadAnswers(fd, 3);
  close(fd);
  EXPECT_EQ(Count(got, "HTTP/1.1 200 OK"), 3u) << got;
  EXPECT_EQ(server->requests(), 3);
  EXPECT_EQ(server->body_bytes(), 5 + 7);
}

TEST(BenchHttpServerTest, AnswersHundredContinue) {
  auto server = BenchHttpServer::Start();
  ASSERT_NE(server, nullptr);
  int fd = Connect(*server);
  std::string head =
      "POST /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
  ASSERT_EQ(write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  char buf[256];
  ssize_t r = read(fd, buf, sizeof(buf));
  ASSERT_GT(r, 0);
  EXPECT_EQ(std::string(buf, r), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_EQ(write(fd, "ok", 2), 2);
  std::string got = ReadAnswers(fd, 1);
  close(fd);
  EXPECT_NE(got.find("HTTP/1.1 200 OK"), std::string::npos) << got;
  EXPECT_EQ(server->body_bytes(), 2);
}

}  // namespace
}  // namespace sluice::bench
