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
  // `cluster`: cluster mode enabled (nodes file in a private directory).
  // Unavailable when it does not answer.
  static absl::StatusOr<std::unique_ptr<RedisTestServer>> Start(bool cluster = false);
  ~RedisTestServer();

  int port() const { return port_; }
  // "127.0.0.1:<port>", the form of SINK_REDIS_URLS.
  std::string address() const;
  // Runs `redis-cli -p <port> <args...>` and returns its stdout without the
  // trailing newline (one line per element for lists and hashes).
  std::string Cli(const std::vector<std::string>& args) const;
  // Stops the server (SIGKILL) to test a lost connection.
  void Kill();
  // Starts it again on the same port (after Kill; the data is gone, it kept
  // none on disk) and waits for PING. Unavailable when it does not answer.
  absl::Status Restart();

 private:
  RedisTestServer() = default;
  int port_ = 0;
  pid_t pid_ = -1;
  std::vector<std::string> argv_;
};

// A Redis Cluster of `n` masters (no replicas) made with
// `redis-cli --cluster create`, slots spread evenly.
class RedisTestCluster {
 public:
  // Unavailable when a node does not start or the cluster is not ok in 20 s.
  static absl::StatusOr<std::unique_ptr<RedisTestCluster>> Start(int n = 3);
  RedisTestServer& node(int i) { return *nodes_[i]; }
  int size() const { return static_cast<int>(nodes_.size()); }
  // "127.0.0.1:p1,127.0.0.1:p2,...", the form of SINK_REDIS_URLS.
  std::string addresses() const;
  // The node that serves `key`'s slot (asks CLUSTER KEYSLOT / NODES via redis-cli).
  int OwnerOf(const std::string& key);
  // Moves an empty `slot` to node `to` (CLUSTER SETSLOT <slot> NODE on every node).
  void MoveEmptySlot(int slot, int to);

 private:
  std::vector<std::unique_ptr<RedisTestServer>> nodes_;
};

}  // namespace sluice::sink::testing

#endif  // SLUICE_SINK_SINKS_TESTING_REDIS_TEST_SERVER_H_
