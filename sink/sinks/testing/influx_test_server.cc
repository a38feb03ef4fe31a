#include "sink/sinks/testing/influx_test_server.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sink/sinks/testing/server_process.h"

namespace sluice::sink::testing {

absl::StatusOr<std::unique_ptr<InfluxTestServer>> InfluxTestServer::Start(const std::string& database) {
  auto s = std::unique_ptr<InfluxTestServer>(new InfluxTestServer());
  s->port_ = FreeLoopbackPort();
  s->database_ = database;
  std::string dir = PrivateDir(absl::StrCat("influx-", s->port_));
  std::string conf = dir + "/influxdb.conf";
  std::ofstream(conf) << "reporting-disabled = true\n"
                      << "bind-address = \"127.0.0.1:" << FreeLoopbackPort() << "\"\n"
                      << "[meta]\n  dir = \"" << dir << "/meta\"\n"
                      << "[data]\n  dir = \"" << dir << "/data\"\n  wal-dir = \"" << dir << "/wal\"\n"
                      << "[monitor]\n  store-enabled = false\n"
                      << "[http]\n  bind-address = \"127.0.0.1:" << s->port_ << "\"\n"
                      << "  auth-enabled = true\n  log-enabled = false\n"
                      << "[ifql]\n  enabled = false\n"
                      << "[continuous_queries]\n  enabled = false\n";
  s->conf_ = conf;
  if (absl::Status st = s->Restart(); !st.ok()) return st;
  // With no user yet, the first admin may be created without credentials.
  RunShell(absl::StrCat("influx -host 127.0.0.1 -port ", s->port_, " -execute \"CREATE USER ", kUser,
                   " WITH PASSWORD '", kPassword, "' WITH ALL PRIVILEGES\""));
  s->Query(absl::StrCat("CREATE DATABASE ", database));
  return s;
}

absl::Status InfluxTestServer::Restart() {
  KillAndReap(&pid_);
  pid_ = SpawnQuiet({"influxd", "-config", conf_});
  if (pid_ < 0) return absl::UnavailableError("fork failed");
  std::string ping = absl::StrCat("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:", port_, "/ping");
  absl::Time give_up = absl::Now() + absl::Seconds(20);
  while (RunShell(ping) != "204") {
    if (absl::Now() > give_up) return absl::UnavailableError("influxd did not answer /ping (is it installed?)");
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::OkStatus();
}

void InfluxTestServer::Kill() { KillAndReap(&pid_); }

InfluxTestServer::~InfluxTestServer() { KillAndReap(&pid_); }

std::string InfluxTestServer::url() const { return absl::StrCat("http://127.0.0.1:", port_); }

std::string InfluxTestServer::Query(const std::string& query) const {
  return RunShell(absl::StrCat("influx -host 127.0.0.1 -port ", port_, " -username ", kUser, " -password ",
                          kPassword, " -database ", database_, " -format csv -execute \"", query, "\" 2>&1"));
}

}  // namespace sluice::sink::testing
