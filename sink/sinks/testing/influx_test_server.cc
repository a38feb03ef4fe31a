#include "sink/sinks/testing/influx_test_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

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
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<InfluxTestServer>> InfluxTestServer::Start(const std::string& database) {
  auto s = std::unique_ptr<InfluxTestServer>(new InfluxTestServer());
  s->port_ = FreePort();
  s->database_ = database;
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base ? base : "/tmp", "/influx-", s->port_);
  mkdir(dir.c_str(), 0700);
  std::string conf = dir + "/influxdb.conf";
  std::ofstream(conf) << "reporting-disabled = true\n"
                      << "bind-address = \"127.0.0.1:" << FreePort() << "\"\n"
                      << "[meta]\n  dir = \"" << dir << "/meta\"\n"
                      << "[data]\n  dir = \"" << dir << "/data\"\n  wal-dir = \"" << dir << "/wal\"\n"
                      << "[monitor]\n  store-enabled = false\n"
                      << "[http]\n  bind-address = \"127.0.0.1:" << s->port_ << "\"\n"
                      << "  auth-enabled = true\n  log-enabled = false\n"
                      << "[ifql]\n  enabled = false\n"
                      << "[continuous_queries]\n  enabled = false\n";
  s->pid_ = fork();
  if (s->pid_ == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execlp("influxd", "influxd", "-config", conf.c_str(), nullptr);
    _exit(127);
  }
  if (s->pid_ < 0) return absl::UnavailableError("fork failed");
  std::string ping = absl::StrCat("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:", s->port_, "/ping");
  absl::Time give_up = absl::Now() + absl::Seconds(20);
  while (Run(ping) != "204") {
    if (absl::Now() > give_up) return absl::UnavailableError("influxd did not answer /ping (is it installed?)");
    absl::SleepFor(absl::Milliseconds(100));
  }
  // With no user yet, the first admin may be created without credentials.
  Run(absl::StrCat("influx -host 127.0.0.1 -port ", s->port_, " -execute \"CREATE USER ", kUser,
                   " WITH PASSWORD '", kPassword, "' WITH ALL PRIVILEGES\""));
  s->Query(absl::StrCat("CREATE DATABASE ", database));
  return s;
}

InfluxTestServer::~InfluxTestServer() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string InfluxTestServer::url() const { return absl::StrCat("http://127.0.0.1:", port_); }

std::string InfluxTestServer::Query(const std::string& query) const {
  return Run(absl::StrCat("influx -host 127.0.0.1 -port ", port_, " -username ", kUser, " -password ",
                          kPassword, " -database ", database_, " -format csv -execute \"", query, "\""));
}

}  // namespace sluice::sink::testing
