#include "bench/sink_kafka/bench_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace sluice::bench {
namespace {

// Buffered reads from one connection.
class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}
  // Reads until `delim` is buffered; returns its end offset, or npos at EOF.
  size_t Until(absl::string_view delim) {
    size_t pos;
    while ((pos = buf_.find(delim.data(), 0, delim.size())) == std::string::npos) {
      if (!Fill()) return std::string::npos;
    }
    return pos + delim.size();
  }
  // Ensures `n` bytes are buffered; false at EOF.
  bool Need(size_t n) {
    while (buf_.size() < n) {
      if (!Fill()) return false;
    }
    return true;
  }
  std::string& buf() { return buf_; }

 private:
  bool Fill() {
    char tmp[65536];
    ssize_t n = read(fd_, tmp, sizeof(tmp));
    if (n <= 0) return false;
    buf_.append(tmp, n);
    return true;
  }
  int fd_;
  std::string buf_;
};

bool WriteAll(int fd, absl::string_view out) {
  while (!out.empty()) {
    ssize_t n = write(fd, out.data(), out.size());
    if (n <= 0) return false;
    out.remove_prefix(n);
  }
  return true;
}

}  // namespace

std::unique_ptr<BenchHttpServer> BenchHttpServer::Start() {
  std::unique_ptr<BenchHttpServer> s(new BenchHttpServer());
  s->listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(s->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(s->listen_fd_, 128) != 0) {
    close(s->listen_fd_);
    return nullptr;
  }
  socklen_t len = sizeof(addr);
  getsockname(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  s->port_ = ntohs(addr.sin_port);
  s->acceptor_ = std::thread([p = s.get()] { p->Accept(); });
  return s;
}

BenchHttpServer::~BenchHttpServer() {
  stopping_ = true;
  shutdown(listen_fd_, SHUT_RDWR);
  close(listen_fd_);
  if (acceptor_.joinable()) acceptor_.join();
  absl::MutexLock lock(&mu_);
  for (int fd : fds_) shutdown(fd, SHUT_RDWR);
  for (std::thread& t : threads_) t.join();
  for (int fd : fds_) close(fd);
}

std::string BenchHttpServer::Url(const std::string& path) const {
  return absl::StrCat("http://127.0.0.1:", port_, path);
}

void BenchHttpServer::Accept() {
  while (!stopping_) {
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    absl::MutexLock lock(&mu_);
    fds_.push_back(fd);
    threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void BenchHttpServer::Serve(int fd) {
  static constexpr absl::string_view kOk =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
  Reader r(fd);
  while (true) {
    size_t head_end = r.Until("\r\n\r\n");
    if (head_end == std::string::npos) return;
    std::string head = absl::AsciiStrToLower(absl::string_view(r.buf()).substr(0, head_end));
    r.buf().erase(0, head_end);
    size_t body = 0;
    if (size_t p = head.find("\r\ncontent-length:"); p != std::string::npos) {
      size_t end = head.find("\r\n", p + 2);
      absl::SimpleAtoi(absl::StripAsciiWhitespace(head.substr(p + 17, end - p - 17)), &body);
    }
    if (absl::StrContains(head, "\r\nexpect: 100-continue")) {
      if (!WriteAll(fd, "HTTP/1.1 100 Continue\r\n\r\n")) return;
    }
    if (absl::StrContains(head, "\r\ntransfer-encoding: chunked")) {
      while (true) {
        size_t line_end = r.Until("\r\n");
        if (line_end == std::string::npos) return;
        size_t chunk = std::strtoul(r.buf().c_str(), nullptr, 16);
        if (!r.Need(line_end + chunk + 2)) return;
        r.buf().erase(0, line_end + chunk + 2);
        body += chunk;
        if (chunk == 0) break;
      }
    } else {
      if (!r.Need(body)) return;
      r.buf().erase(0, body);
    }
    body_bytes_ += body;
    ++requests_;
    if (!WriteAll(fd, kOk)) return;
  }
}

}  // namespace sluice::bench
