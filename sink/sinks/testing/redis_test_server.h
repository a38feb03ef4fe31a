// A real redis-server (Debian's package) for sink tests: started on a free
// loopback port with no persistence, stopped on destruction. Data is read
// back with redis-cli, an outside client.
#ifndef SLUICE_SINK_SINKS_TESTING_REDIS_TEST_SERVER_H_
#define SLUICE_SINK_SINKS_TESTING_REDIS_TEST_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::sink::testing {

class RedisTestServer {
 public:
  // Starts redis-server and waits (up to 10 s) until it answers PING.
  // Unavailable when it does not.
  static absl::StatusOr<std::unique_ptr<RedisTestServer>> Start();
  ~RedisTestServer();

  int port() const { return port_; }
  // "127.0.0.1:<port>", the form of SINK_REDIS_URLS.
  std::string address() const;
  // Runs `redis-cli -p <port> <args...>` and returns its stdout without the
  // trailing newline (one line per element for lists and hashes).
  std::string Cli(const std::vector<std::string>& args) const;
  // Stops the server (SIGKILL) to test a lost connection.
  void Kill();

 private:
  RedisTestServer() = default;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_REDIS_TEST_SERVER_H_
