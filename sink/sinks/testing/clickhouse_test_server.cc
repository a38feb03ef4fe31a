#include "sink/sinks/testing/clickhouse_test_server.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sink/sinks/testing/server_process.h"

namespace sluice::sink::testing {

absl::StatusOr<std::unique_ptr<ClickHouseTestServer>> ClickHouseTestServer::Start() {
  auto s = std::unique_ptr<ClickHouseTestServer>(new ClickHouseTestServer());
  s->http_port_ = FreeLoopbackPort();
  s->tcp_port_ = FreeLoopbackPort();
  std::string dir = PrivateDir(absl::StrCat("clickhouse-", s->http_port_));
  std::vector<std::string> args = {
      "clickhouse-server", "--config-file=/etc/clickhouse-server/config.xml", "--",
      absl::StrCat("--http_port=", s->http_port_), absl::StrCat("--tcp_port=", s->tcp_port_),
      absl::StrCat("--path=", dir, "/data/"), absl::StrCat("--tmp_path=", dir, "/tmp/"),
      absl::StrCat("--user_files_path=", dir, "/user_files/"),
      absl::StrCat("--format_schema_path=", dir, "/format_schemas/"),
      absl::StrCat("--logger.log=", dir, "/server.log"), absl::StrCat("--logger.errorlog=", dir, "/error.log"),
      "--logger.console=0", "--listen_host=127.0.0.1"};
  s->args_ = std::move(args);
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
      return absl::UnavailableError("clickhouse-server did not answer /ping (is it installed?)");
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
