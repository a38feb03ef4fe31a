// A real ClickHouse server (Debian's clickhouse-server) for sink tests, on
// free loopback ports with a private data directory (Debian's config file
// with command-line overrides); stopped on destruction. Data is read back
// with clickhouse-client, an outside client.
#ifndef SLUICE_SINK_SINKS_TESTING_CLICKHOUSE_TEST_SERVER_H_
#define SLUICE_SINK_SINKS_TESTING_CLICKHOUSE_TEST_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::sink::testing {

class ClickHouseTestServer {
 public:
  // Starts clickhouse-server and waits (up to 30 s) for /ping.
  static absl::StatusOr<std::unique_ptr<ClickHouseTestServer>> Start();
  ~ClickHouseTestServer();

  // "http://127.0.0.1:<http port>", the form of SINK_CLICKHOUSE_URL.
  std::string url() const;
  // Runs `clickhouse-client --port <tcp port> -q <sql>` (CSV for SELECTs
  // when the query asks for it) and returns its stdout.
  std::string Query(const std::string& sql) const;
  // Stops the server (SIGKILL) to test an outage.
  void Kill();
  // Starts it again on the same ports and data directory (after Kill), and
  // waits for /ping. Unavailable when it does not answer.
  absl::Status Restart();

 private:
  ClickHouseTestServer() = default;
  std::vector<std::string> args_;
  int http_port_ = 0, tcp_port_ = 0;
  std::string error_log_;
  pid_t pid_ = -1;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_CLICKHOUSE_TEST_SERVER_H_
