#include "sink/sinks/testing/prometheus_test_server.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "sink/sinks/testing/server_process.h"

namespace sluice::sink::testing {

absl::StatusOr<std::unique_ptr<PrometheusTestServer>> PrometheusTestServer::Start() {
  auto s = std::unique_ptr<PrometheusTestServer>(new PrometheusTestServer());
  s->port_ = FreeLoopbackPort();
  std::string dir = PrivateDir(absl::StrCat("prometheus-", s->port_));
  std::string conf = dir + "/prometheus.yml";
  std::ofstream(conf) << "global:\n  scrape_interval: 1h\n";
  std::string listen = absl::StrCat("--web.listen-address=127.0.0.1:", s->port_);
  std::string config = "--config.file=" + conf;
  std::string tsdb = "--storage.tsdb.path=" + dir + "/data";
  s->argv_ = {"prometheus", config, tsdb, listen, "--web.enable-remote-write-receiver"};
  if (absl::Status st = s->Restart(); !st.ok()) return st;
  return s;
}

absl::Status PrometheusTestServer::Restart() {
  KillAndReap(&pid_);
  pid_ = SpawnQuiet(argv_);
  if (pid_ < 0) return absl::UnavailableError("fork failed");
  std::string ready = absl::StrCat("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:", port_, "/-/ready");
  absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (RunShell(ready) != "200") {
    if (absl::Now() > give_up) return absl::UnavailableError("prometheus did not become ready (is it installed?)");
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::OkStatus();
}

PrometheusTestServer::~PrometheusTestServer() { Kill(); }

void PrometheusTestServer::Kill() { KillAndReap(&pid_); }

std::string PrometheusTestServer::write_url() const {
  return absl::StrCat("http://127.0.0.1:", port_, "/api/v1/write");
}

std::string PrometheusTestServer::Query(const std::string& promql, double time_s) const {
  return RunShell(absl::StrCat("curl -s -G http://127.0.0.1:", port_, "/api/v1/query --data-urlencode 'query=",
                          promql, "' --data-urlencode 'time=", absl::StrFormat("%.3f", time_s), "'"));
}

}  // namespace sluice::sink::testing
