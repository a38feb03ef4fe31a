#include "sink/sinks/testing/prometheus_test_server.h"

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
#include "absl/strings/str_format.h"
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

}  // namespace

absl::StatusOr<std::unique_ptr<PrometheusTestServer>> PrometheusTestServer::Start() {
  auto s = std::unique_ptr<PrometheusTestServer>(new PrometheusTestServer());
  s->port_ = FreePort();
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base ? base : "/tmp", "/prometheus-", s->port_);
  mkdir(dir.c_str(), 0700);
  std::string conf = dir + "/prometheus.yml";
  std::ofstream(conf) << "global:\n  scrape_interval: 1h\n";
  std::string listen = absl::StrCat("--web.listen-address=127.0.0.1:", s->port_);
  std::string config = "--config.file=" + conf;
  std::string tsdb = "--storage.tsdb.path=" + dir + "/data";
  s->pid_ = fork();
  if (s->pid_ == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execlp("prometheus", "prometheus", config.c_str(), tsdb.c_str(), listen.c_str(),
           "--web.enable-remote-write-receiver", nullptr);
    _exit(127);
  }
  if (s->pid_ < 0) return absl::UnavailableError("fork failed");
  std::string ready = absl::StrCat("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:", s->port_, "/-/ready");
  absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (Run(ready) != "200") {
    if (absl::Now() > give_up) return absl::UnavailableError("prometheus did not become ready (is it installed?)");
    absl::SleepFor(absl::Milliseconds(100));
  }
  return s;
}

PrometheusTestServer::~PrometheusTestServer() { Kill(); }

void PrometheusTestServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string PrometheusTestServer::write_url() const {
  return absl::StrCat("http://127.0.0.1:", port_, "/api/v1/write");
}

std::string PrometheusTestServer::Query(const std::string& promql, double time_s) const {
  return Run(absl::StrCat("curl -s -G http://127.0.0.1:", port_, "/api/v1/query --data-urlencode 'query=",
                          promql, "' --data-urlencode 'time=", absl::StrFormat("%.3f", time_s), "'"));
}

}  // namespace sluice::sink::testing
