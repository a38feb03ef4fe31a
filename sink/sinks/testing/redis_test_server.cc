#include "sink/sinks/testing/redis_test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace sluice::sink::testing {
namespace {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// Single-quotes `s` for /bin/sh.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

}  // namespace

absl::StatusOr<std::unique_ptr<RedisTestServer>> RedisTestServer::Start() {
  auto s = std::unique_ptr<RedisTestServer>(new RedisTestServer());
  s->port_ = FreePort();
  std::string port = std::to_string(s->port_);
  s->pid_ = fork();
  if (s->pid_ == 0) {
    execlp("redis-server", "redis-server", "--port", port.c_str(), "--bind", "127.0.0.1",
           "--save", "", "--appendonly", "no", "--loglevel", "warning", nullptr);
    _exit(127);
  }
  if (s->pid_ < 0) return absl::UnavailableError("fork failed");
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (absl::Now() < give_up) {
    if (s->Cli({"PING"}) == "PONG") return s;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::UnavailableError(
      absl::StrCat("redis-server did not answer on port ", port, " (is it installed?)"));
}

RedisTestServer::~RedisTestServer() { Kill(); }

void RedisTestServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string RedisTestServer::address() const { return absl::StrCat("127.0.0.1:", port_); }

std::string RedisTestServer::Cli(const std::vector<std::string>& args) const {
  std::string cmd = absl::StrCat("redis-cli -p ", port_);
  for (const std::string& a : args) absl::StrAppend(&cmd, " ", ShellQuote(a));
  absl::StrAppend(&cmd, " 2>/dev/null");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return std::string(absl::StripSuffix(out, "\n"));
}

}  // namespace sluice::sink::testing
