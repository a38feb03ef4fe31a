#include "sink/sinks/testing/clickhouse_test_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
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

std::string Run(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
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

absl::StatusOr<std::unique_ptr<ClickHouseTestServer>> ClickHouseTestServer::Start() {
  auto s = std::unique_ptr<ClickHouseTestServer>(new ClickHouseTestServer());
  s->http_port_ = FreePort();
  s->tcp_port_ = FreePort();
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base ? base : "/tmp", "/clickhouse-", s->http_port_);
  mkdir(dir.c_str(), 0700);
  std::vector<std::string> args = {
      "clickhouse-server", "--config-file=/etc/clickhouse-server/config.xml", "--",
      absl::StrCat("--http_port=", s->http_port_), absl::StrCat("--tcp_port=", s->tcp_port_),
      absl::StrCat("--path=", dir, "/data/"), absl::StrCat("--tmp_path=", dir, "/tmp/"),
      absl::StrCat("--user_files_path=", dir, "/user_files/"),
      absl::StrCat("--format_schema_path=", dir, "/format_schemas/"),
      absl::StrCat("--logger.log=", dir, "/server.log"), absl::StrCat("--logger.errorlog=", dir, "/error.log"),
      "--logger.console=0", "--listen_host=127.0.0.1"};
  s->pid_ = fork();
  if (s->pid_ == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  if (s->pid_ < 0) return absl::UnavailableError("fork failed");
  std::string ping = absl::StrCat("curl -s http://127.0.0.1:", s->http_port_, "/ping");
  absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (Run(ping) != "Ok.\n") {
    if (absl::Now() > give_up) {
      return absl::UnavailableError("clickhouse-server did not answer /ping (is it installed?)");
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  return s;
}

ClickHouseTestServer::~ClickHouseTestServer() { Kill(); }

void ClickHouseTestServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string ClickHouseTestServer::url() const { return absl::StrCat("http://127.0.0.1:", http_port_); }

std::string ClickHouseTestServer::Query(const std::string& sql) const {
  return Run(absl::StrCat("clickhouse-client --port ", tcp_port_, " -q ", ShellQuote(sql), " 2>&1"));
}

}  // namespace sluice::sink::testing
