#include "integration/fake_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace sluice::integration {

std::unique_ptr<FakeHttpServer> FakeHttpServer::Start() {
  std::unique_ptr<FakeHttpServer> s(new FakeHttpServer());
  s->listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(s->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(s->listen_fd_, 128) != 0) {
    return nullptr;
  }
  socklen_t len = sizeof(addr);
  getsockname(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  s->port_ = ntohs(addr.sin_port);
  s->thread_ = std::thread([p = s.get()] { p->Serve(); });
  return s;
}

FakeHttpServer::~FakeHttpServer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  shutdown(listen_fd_, SHUT_RDWR);
  close(listen_fd_);
  if (thread_.joinable()) thread_.join();
}

std::string FakeHttpServer::Url(const std::string& path) const {
  return absl::StrCat("http://127.0.0.1:", port_, path);
}

void FakeHttpServer::Script(const std::string& path, std::vector<Response> responses) {
  absl::MutexLock lock(&mu_);
  auto& q = scripts_[path];
  for (auto& r : responses) q.push_back(std::move(r));
}

void FakeHttpServer::SetDefault(const std::string& path, Response response) {
  absl::MutexLock lock(&mu_);
  defaults_[path] = std::move(response);
}

std::vector<FakeHttpServer::Request> FakeHttpServer::Requests(const std::string& path) {
  absl::MutexLock lock(&mu_);
  std::vector<Request> out;
  for (const Request& r : requests_) {
    if (path.empty() || r.path == path) out.push_back(r);
  }
  return out;
}

bool FakeHttpServer::WaitForRequests(const std::string& path, size_t n, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (Requests(path).size() >= n) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return Requests(path).size() >= n;
}

void FakeHttpServer::Serve() {
  while (true) {
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      continue;
    }
    Handle(fd);
    close(fd);
  }
}

void FakeHttpServer::Handle(int fd) {
  std::string data;
  char buf[8192];
  size_t header_end = std::string::npos;
  while (header_end == std::string::npos) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) return;
    data.append(buf, n);
    header_end = data.find("\r\n\r\n");
  }
  Request req;
  std::vector<std::string> lines = absl::StrSplit(data.substr(0, header_end), "\r\n");
  std::vector<std::string> first = absl::StrSplit(lines[0], ' ');
  if (first.size() < 2) return;
  req.method = first[0];
  std::string target = first[1];
  size_t q = target.find('?');
  req.path = target.substr(0, q);
  if (q != std::string::npos) req.query = target.substr(q + 1);
  size_t content_length = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
    req.headers[name] = value;
    if (name == "content-length") absl::SimpleAtoi(value, &content_length);
  }
  req.body = data.substr(header_end + 4);
  if (req.headers.count("expect")) {
    std::string cont = "HTTP/1.1 100 Continue\r\n\r\n";
    (void)!write(fd, cont.data(), cont.size());
  }
  while (req.body.size() < content_length) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    req.body.append(buf, n);
  }
  Response resp;
  {
    absl::MutexLock lock(&mu_);
    auto& script = scripts_[req.path];
    if (!script.empty()) {
      resp = script.front();
      script.pop_front();
    } else if (auto it = defaults_.find(req.path); it != defaults_.end()) {
      resp = it->second;
    }
    requests_.push_back(req);
  }
  std::string out = absl::StrCat("HTTP/1.1 ", resp.status, " X\r\nContent-Type: application/json\r\n",
                                 "Content-Length: ", resp.body.size(),
                                 "\r\nConnection: close\r\n\r\n", resp.body);
  size_t off = 0;
  while (off < out.size()) {
    ssize_t n = write(fd, out.data() + off, out.size() - off);
    if (n <= 0) break;
    off += n;
  }
}

}  // namespace sluice::integration
