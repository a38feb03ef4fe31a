#include "server/access/providers/testing/fake_rest_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace sluice::access::testing {

nlohmann::json FakeRequest::Json() const {
  return nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
}

std::string FakeRequest::Query(const std::string& key) const {
  auto it = query.find(key);
  return it == query.end() ? "" : it->second;
}

std::string FakeRequest::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    int v = 0;
    if (s[i] == '%' && i + 2 < s.size() && absl::SimpleHexAtoi(s.substr(i + 1, 2), &v)) {
      out += static_cast<char>(v);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::unique_ptr<FakeRestServer> FakeRestServer::Start(Handler handler) {
  std::unique_ptr<FakeRestServer> s(new FakeRestServer());
  s->handler_ = std::move(handler);
  s->listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(s->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(s->listen_fd_, 256) != 0) {
    close(s->listen_fd_);
    return nullptr;
  }
  socklen_t len = sizeof(addr);
  getsockname(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  s->port_ = ntohs(addr.sin_port);
  s->accept_thread_ = std::thread([p = s.get()] { p->Serve(); });
  return s;
}

FakeRestServer::~FakeRestServer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  shutdown(listen_fd_, SHUT_RDWR);
  close(listen_fd_);
  if (accept_thread_.joinable()) accept_thread_.join();
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int* active) { return *active == 0; }, &active_));
}

std::string FakeRestServer::base_url() const { return absl::StrCat("http://127.0.0.1:", port_); }

void FakeRestServer::Inject(Fault fault) {
  absl::MutexLock lock(&mu_);
  faults_.push_back(std::move(fault));
}

void FakeRestServer::ClearFaults() {
  absl::MutexLock lock(&mu_);
  faults_.clear();
}

std::vector<std::string> FakeRestServer::Log() {
  absl::MutexLock lock(&mu_);
  return log_;
}

int FakeRestServer::Count(const std::string& method, const std::string& prefix) {
  absl::MutexLock lock(&mu_);
  int n = 0;
  for (const auto& line : log_) {
    std::pair<std::string, std::string> mp = absl::StrSplit(line, absl::MaxSplits(' ', 1));
    if ((method.empty() || mp.first == method) && absl::StartsWith(mp.second, prefix)) ++n;
  }
  return n;
}

std::vector<std::string> FakeRestServer::HeaderValues(const std::string& name) {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  out.reserve(headers_.size());
  for (const auto& h : headers_) {
    auto it = h.find(name);
    out.push_back(it == h.end() ? "" : it->second);
  }
  return out;
}

void FakeRestServer::Serve() {
  while (true) {
    int fd = accept(listen_fd_, nullptr, nullptr);
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      if (fd >= 0) close(fd);
      return;
    }
    if (fd < 0) continue;
    ++active_;
    std::thread([this, fd] {
      Handle(fd);
      close(fd);
      absl::MutexLock done(&mu_);
      --active_;
    }).detach();
  }
}

void FakeRestServer::Handle(int fd) {
  std::string data;
  char buf[8192];
  size_t header_end = std::string::npos;
  while (header_end == std::string::npos) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) return;
    data.append(buf, n);
    header_end = data.find("\r\n\r\n");
  }
  FakeRequest req;
  std::vector<std::string> lines = absl::StrSplit(data.substr(0, header_end), "\r\n");
  std::vector<std::string> first = absl::StrSplit(lines[0], ' ');
  if (first.size() < 2) return;
  req.method = first[0];
  std::string target = first[1];
  size_t q = target.find('?');
  req.path = PercentDecode(target.substr(0, q));
  if (q != std::string::npos) {
    for (absl::string_view kv : absl::StrSplit(target.substr(q + 1), '&', absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
      req.query.emplace(PercentDecode(p.first), PercentDecode(p.second));
    }
  }
  size_t content_length = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
    req.headers[name] = value;
    if (name == "content-length") (void)absl::SimpleAtoi(value, &content_length);
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
  std::optional<Fault> fault;
  {
    absl::MutexLock lock(&mu_);
    log_.push_back(absl::StrCat(req.method, " ", req.path));
    headers_.push_back(req.headers);
    for (auto it = faults_.begin(); it != faults_.end(); ++it) {
      if ((it->method.empty() || it->method == req.method) &&
          absl::StartsWith(req.path, it->path_prefix)) {
        fault = *it;
        if (--it->times <= 0) faults_.erase(it);
        break;
      }
    }
  }
  FakeResponse resp;
  if (fault.has_value() && fault->delay > absl::ZeroDuration()) absl::SleepFor(fault->delay);
  if (fault.has_value() && fault->status != 0) {
    resp.status = fault->status;
    resp.body = fault->body;
  } else {
    try {
      resp = handler_(req);
    } catch (const std::exception& e) {  // a fake's bug must not end the test binary
      resp = {500, nlohmann::json{{"message", std::string("fake failed: ") + e.what()}}};
    }
  }
  std::string body = resp.body.is_null() ? "" : resp.body.dump();
  std::string out = absl::StrCat(
      "HTTP/1.1 ", resp.status, " X\r\n", body.empty() ? "" : "Content-Type: application/json\r\n",
      "Content-Length: ", body.size(), "\r\nConnection: close\r\n\r\n", body);
  size_t off = 0;
  while (off < out.size()) {
    ssize_t n = write(fd, out.data() + off, out.size() - off);
    if (n <= 0) break;
    off += n;
  }
}

}  // namespace sluice::access::testing
