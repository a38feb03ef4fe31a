// End-to-end test harness: real child processes (sluice-server, gateway,
// other tools), free ports, HTTP calls through libcurl, and a Stack that
// brings up a fresh database + server + gateway for one test.
#ifndef SLUICE_INTEGRATION_HARNESS_H_
#define SLUICE_INTEGRATION_HARNESS_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/db/testing/test_database.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {

// Absolute path of a runfile given its workspace-relative path, e.g.
// "server/sluice-server" (uses TEST_SRCDIR/TEST_WORKSPACE under bazel test).
std::string Runfile(absl::string_view path);

// A port on 127.0.0.1 that was free a moment ago.
int FreePort();

// Polls until 127.0.0.1:`port` accepts TCP connections; DeadlineExceeded after `timeout`.
absl::Status WaitForPort(int port, absl::Duration timeout);

// A child process with stdout+stderr appended to a log file.
class Process {
 public:
  // Starts `argv` with the current environment plus `env`. InternalError when
  // fork/exec fails.
  static absl::StatusOr<std::unique_ptr<Process>> Start(
      std::vector<std::string> argv, std::map<std::string, std::string> env = {},
      std::string log_path = "");

  ~Process();  // Stop()s if still running

  // SIGTERM, then SIGKILL after `grace`; returns the exit status (as waitpid),
  // or -1 if it had already been reaped.
  int Stop(absl::Duration grace = absl::Seconds(10));
  // SIGKILL now and reap.
  void Kill9();
  // True while the child has not exited.
  bool Running();
  // Exit code after it exited on its own; -1 while running or if signalled.
  int WaitExit(absl::Duration timeout);

  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  // The log file's content so far.
  std::string Log() const;

 private:
  Process() = default;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string log_path_;
};

// One HTTP exchange.
struct HttpResponse {
  long status = 0;  // 0 when the request failed at transport level
  std::string body;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string error;                           // libcurl error when status == 0
  // The body parsed as JSON (null when it is not JSON).
  nlohmann::json Json() const;
};

// Performs `method` on `url` with an optional body (sent as application/json)
// and extra request headers ("Name: value").
HttpResponse Http(absl::string_view method, absl::string_view url, absl::string_view body = "",
                  const std::vector<std::string>& headers = {});

// A fresh database, sluice-server and sluice-gateway on free ports.
class Stack {
 public:
  // Extra flags/env for the server (e.g. job intervals).
  struct Options {
    std::vector<std::string> server_args;
    std::map<std::string, std::string> server_env;
  };
  static absl::StatusOr<std::unique_ptr<Stack>> Start(Options options);
  static absl::StatusOr<std::unique_ptr<Stack>> Start() { return Start(Options{}); }
  ~Stack();

  // "http://127.0.0.1:<port>" of the gateway.
  const std::string& http_base() const { return http_base_; }
  // "127.0.0.1:<port>" of the server's gRPC endpoint.
  const std::string& grpc_target() const { return grpc_target_; }
  int metrics_port() const { return metrics_port_; }
  const db::TestDatabase& database() const { return *db_; }
  Process& server() { return *server_; }
  Process& gateway() { return *gateway_; }

  // Restarts sluice-server on the same ports and database.
  absl::Status RestartServer();

 private:
  Stack() = default;
  absl::Status StartServer();
  Options options_;
  std::unique_ptr<db::TestDatabase> db_;
  std::unique_ptr<Process> server_;
  std::unique_ptr<Process> gateway_;
  std::string http_base_, grpc_target_, log_dir_;
  int grpc_port_ = 0, http_port_ = 0, metrics_port_ = 0;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_HARNESS_H_
