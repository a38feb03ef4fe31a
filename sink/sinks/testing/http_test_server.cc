#include "sink/sinks/testing/http_test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice::sink::testing {

std::string HttpRequest::Header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<HttpTestServer>> HttpTestServer::StartWithResponses(
    ResponseHandler handler) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 128) != 0) {
    close(fd);
    return absl::InternalError(absl::StrCat("bind/listen: ", std::strerror(errno)));
  }
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::unique_ptr<HttpTestServer> s(new HttpTestServer(fd, ntohs(addr.sin_port), std::move(handler)));
  return s;
}

absl::StatusOr<std::unique_ptr<HttpTestServer>> HttpTestServer::Start(Handler handler) {
  if (!handler) handler = [](const HttpRequest&) { return 200; };
  return StartWithResponses([handler = std::move(handler)](const HttpRequest& r) {
    Response resp;
    resp.status = handler(r);
    return resp;
  });
}

HttpTestServer::HttpTestServer(int listen_fd, int port, ResponseHandler handler)
    : listen_fd_(listen_fd), port_(port), handler_(std::move(handler)) {
  if (pipe(stop_pipe_) != 0) std::abort();
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

HttpTestServer::~HttpTestServer() {
  {
    absl::MutexLock l(&mu_);
    stopping_ = true;
    for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
  }
  char c = 0;
  (void)!write(stop_pipe_[1], &c, 1);
  acceptor_.join();
  std::vector<std::thread> workers;
  {
    absl::MutexLock l(&mu_);
    workers.swap(workers_);
  }
  for (auto& t : workers) t.join();
  close(listen_fd_);
  close(stop_pipe_[0]);
  close(stop_pipe_[1]);
}

std::string HttpTestServer::url() const { return absl::StrCat("http://127.0.0.1:", port_); }

std::vector<HttpRequest> HttpTestServer::requests() const {
  absl::MutexLock l(&mu_);
  return requests_;
}

int HttpTestServer::connections() const {
  absl::MutexLock l(&mu_);
  return connections_;
}

void HttpTestServer::AcceptLoop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    absl::MutexLock l(&mu_);
    if (stopping_) {
      close(fd);
      return;
    }
    int connection = ++connections_;
    open_fds_.push_back(fd);
    workers_.emplace_back([this, fd, connection] { Serve(fd, connection); });
  }
}

namespace {

bool SendAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(n);
  }
  return true;
}

absl::string_view Reason(int status) {
  if (status < 300) return "OK";
  if (status < 500) return "Client Error";
  return "Server Error";
}

}  // namespace

void HttpTestServer::Serve(int fd, int connection) {
  std::string buf;
  char chunk[65536];
  bool open = true;
  while (open) {
    // Read the header block.
    size_t end;
    while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) {
        open = false;
        break;
      }
      buf.append(chunk, n);
    }
    if (!open) break;
    HttpRequest req;
    req.connection = connection;
    std::vector<std::string> lines = absl::StrSplit(buf.substr(0, end), "\r\n");
    buf.erase(0, end + 4);
    std::vector<std::string> first = absl::StrSplit(lines[0], ' ');
    if (first.size() >= 2) {
      req.method = first[0];
      req.target = first[1];
    }
    size_t length = 0;
    bool expect_continue = false;
    bool close_after = false;
    for (size_t i = 1; i < lines.size(); ++i) {
      auto colon = lines[i].find(':');
      if (colon == std::string::npos) continue;
      std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
      std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
      if (name == "content-length") absl::SimpleAtoi(value, &length);
      if (name == "expect" && absl::EqualsIgnoreCase(value, "100-continue")) expect_continue = true;
      if (name == "connection" && absl::EqualsIgnoreCase(value, "close")) close_after = true;
      req.headers.emplace_back(std::move(name), std::move(value));
    }
    if (expect_continue && !SendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n")) break;
    while (buf.size() < length) {
      ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) {
        open = false;
        break;
      }
      buf.append(chunk, n);
    }
    if (!open) break;
    req.body = buf.substr(0, length);
    buf.erase(0, length);
    {
      absl::MutexLock l(&mu_);
      requests_.push_back(req);
    }
    Response answer = handler_(req);
    std::string extra;
    for (const auto& [k, v] : answer.headers) absl::StrAppend(&extra, k, ": ", v, "\r\n");
    std::string resp = absl::StrCat("HTTP/1.1 ", answer.status, " ", Reason(answer.status),
                                    "\r\nContent-Length: ", answer.body.size(),
                                    "\r\nContent-Type: ", answer.content_type, "\r\n", extra,
                                    close_after ? "Connection: close\r\n" : "", "\r\n",
                                    answer.body);
    if (!SendAll(fd, resp) || close_after) break;
  }
  absl::MutexLock l(&mu_);
  open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
  close(fd);
}

}  // namespace sluice::sink::testing
