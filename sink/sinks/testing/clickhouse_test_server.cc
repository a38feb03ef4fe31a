#include "sink/sinks/testing/clickhouse_test_server.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_replace.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sink/sinks/testing/server_process.h"

namespace sluice::sink::testing {

namespace {

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return in ? text.str() : "";
}

// A private copy of Debian's config.xml and users.xml. Every path of the copy
// points into `dir`: clickhouse-server writes its preprocessed config under the
// config file's <path> before the command line's --path applies, and a test
// sandbox cannot write /var/lib/clickhouse. The fixed interserver port (9009)
// goes, so that several test servers run side by side.
absl::Status WritePrivateConfig(const std::string& dir) {
  std::string config = ReadWholeFile("/etc/clickhouse-server/config.xml");
  std::string users = ReadWholeFile("/etc/clickhouse-server/users.xml");
  if (config.empty() || users.empty()) {
    return absl::UnavailableError(
        "cannot read /etc/clickhouse-server/{config,users}.xml (is clickhouse-server installed?)");
  }
  config = absl::StrReplaceAll(
      config, {{"/var/lib/clickhouse/", dir + "/"},
               {"/var/log/clickhouse-server/clickhouse-server.log", dir + "/server.log"},
               {"/var/log/clickhouse-server/clickhouse-server.err.log", dir + "/error.log"},
               {"<interserver_http_port>9009</interserver_http_port>", ""}});
  std::ofstream(dir + "/config.xml", std::ios::binary) << config;
  std::ofstream(dir + "/users.xml", std::ios::binary) << users;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ClickHouseTestServer>> ClickHouseTestServer::Start() {
  auto s = std::unique_ptr<ClickHouseTestServer>(new ClickHouseTestServer());
  s->http_port_ = FreeLoopbackPort();
  s->tcp_port_ = FreeLoopbackPort();
  std::string dir = PrivateDir(absl::StrCat("clickhouse-", s->http_port_));
  if (absl::Status st = WritePrivateConfig(dir); !st.ok()) return st;
  std::vector<std::string> args = {
      "clickhouse-server", absl::StrCat("--config-file=", dir, "/config.xml"), "--",
      absl::StrCat("--http_port=", s->http_port_), absl::StrCat("--tcp_port=", s->tcp_port_),
      "--logger.console=0", "--listen_host=127.0.0.1"};
  s->args_ = std::move(args);
  s->error_log_ = dir + "/error.log";
  if (absl::Status st = s->Restart(); !st.ok()) return st;
  return s;
}

absl::Status ClickHouseTestServer::Restart() {
  Kill();
  pid_ = SpawnQuiet(args_);
  if (pid_ < 0) return absl::UnavailableError("fork failed");
  std::string ping = absl::StrCat("curl -s http://127.0.0.1:", http_port_, "/ping");
  absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (RunShell(ping) != "Ok.\n") {
    if (absl::Now() > give_up) {
      // The server's own error log says why (a port taken, a path it cannot write).
      return absl::UnavailableError(absl::StrCat(
          "clickhouse-server did not answer /ping within 30 s (is it installed?); ", error_log_,
          ": ", RunShell(absl::StrCat("tail -c 2000 ", ShellQuote(error_log_), " 2>&1"))));
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::OkStatus();
}

ClickHouseTestServer::~ClickHouseTestServer() { Kill(); }

void ClickHouseTestServer::Kill() { KillAndReap(&pid_); }

std::string ClickHouseTestServer::url() const { return absl::StrCat("http://127.0.0.1:", http_port_); }

std::string ClickHouseTestServer::Query(const std::string& sql) const {
  return RunShell(absl::StrCat("clickhouse-client --port ", tcp_port_, " -q ", ShellQuote(sql), " 2>&1"));
}

}  // namespace sluice::sink::testing
