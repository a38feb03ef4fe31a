// The Redis nodes a sink writes to: one server (STANDALONE), or the masters
// of a Redis Cluster with the map of which node serves which hash slot
// (https://redis.io/docs/reference/cluster-spec/). hiredis 0.14 speaks the
// protocol; this is the routing on top of it.
#ifndef SLUICE_SINK_SINKS_REDIS_REDIS_NODES_H_
#define SLUICE_SINK_SINKS_REDIS_REDIS_NODES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct redisContext;

namespace sluice::sink {

// The cluster hash slot of `key` (0..16383): CRC16-XMODEM of the key, or of
// its hash tag (the part between the first "{" and the next "}", when that is
// not empty), modulo 16384, as the cluster spec defines.
int KeySlot(absl::string_view key);

// Credentials sent on every new connection (SINK_REDIS_AUTH_USERNAME /
// SINK_REDIS_AUTH_PASSWORD, as depot's RedisSinkUtils.getJedisConfig hands
// them to Jedis): with a password, `AUTH <password>`, or `AUTH <username>
// <password>` for an ACL user; without one, nothing (a username alone is
// ignored, as Jedis ignores it).
struct RedisAuth {
  std::string username;  // empty: the default user
  std::string password;  // empty: no AUTH
};

class RedisNodes {
 public:
  static constexpr int kSlots = 16384;

  // `seeds` are "host:port" addresses; STANDALONE uses the first only.
  // Timeouts in milliseconds. Nothing is connected until Init.
  RedisNodes(std::vector<std::string> seeds, bool cluster, int64_t connect_timeout_ms,
             int64_t socket_timeout_ms, RedisAuth auth = {});
  ~RedisNodes();
  RedisNodes(const RedisNodes&) = delete;
  RedisNodes& operator=(const RedisNodes&) = delete;

  // Connects (STANDALONE) or loads the slot map from the first seed that
  // answers CLUSTER SLOTS (CLUSTER). Unavailable naming the addresses tried.
  absl::Status Init();

  // The address ("host:port") that serves `key`.
  std::string NodeFor(absl::string_view key) const;

  // The connection to `address`, opened on demand and authenticated (see
  // RedisAuth; without a password a PING checks that the server needs none).
  // Unavailable when it cannot connect; PermissionDenied naming
  // SINK_REDIS_AUTH_PASSWORD (and _USERNAME when set), never the password,
  // when the server refuses the credentials or needs some (NOAUTH).
  absl::StatusOr<redisContext*> Get(const std::string& address);

  // Closes `address`'s connection after a transport error or timeout; the
  // next Get reconnects. In a cluster the slot map is reloaded before the
  // next batch (the node may have failed over).
  void Drop(const std::string& address);

  // A MOVED reply: `slot` now lives at `address`. Reloads the whole map
  // before the next batch, as slots usually move together.
  void Moved(int slot, const std::string& address);

  // Reloads the slot map when a MOVED or a dropped node made it stale.
  // Errors are kept for the caller's log; the old map stays in use.
  absl::Status RefreshIfStale();

  bool cluster() const { return cluster_; }

 private:
  absl::Status LoadSlots();
  // AUTH (or PING) on the new connection `c` to `address`.
  absl::Status Authenticate(redisContext* c, const std::string& address) const;

  std::vector<std::string> seeds_;
  bool cluster_;
  int64_t connect_timeout_ms_, socket_timeout_ms_;
  RedisAuth auth_;
  std::map<std::string, redisContext*> contexts_;
  std::vector<std::string> slots_;  // CLUSTER: slot -> address
  bool stale_ = false;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_REDIS_REDIS_NODES_H_
