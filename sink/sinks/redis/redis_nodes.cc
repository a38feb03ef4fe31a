#include "sink/sinks/redis/redis_nodes.h"

#include <hiredis/hiredis.h>

#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::sink {
namespace {

timeval ToTimeval(int64_t ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, as in the
// cluster spec's reference implementation.
uint16_t Crc16(absl::string_view data) {
  uint16_t crc = 0;
  for (unsigned char c : data) {
    crc ^= static_cast<uint16_t>(c) << 8;
    for (int i = 0; i < 8; ++i) crc = (crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1;
  }
  return crc;
}

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};

}  // namespace

int KeySlot(absl::string_view key) {
  size_t open = key.find('{');
  if (open != absl::string_view::npos) {
    size_t close = key.find('}', open + 1);
    if (close != absl::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  return Crc16(key) % RedisNodes::kSlots;
}

RedisNodes::RedisNodes(std::vector<std::string> seeds, bool cluster, int64_t connect_timeout_ms,
                       int64_t socket_timeout_ms, RedisAuth auth)
    : seeds_(std::move(seeds)),
      cluster_(cluster),
      connect_timeout_ms_(connect_timeout_ms),
      socket_timeout_ms_(socket_timeout_ms),
      auth_(std::move(auth)) {}

RedisNodes::~RedisNodes() {
  for (auto& [address, c] : contexts_) redisFree(c);
}

absl::Status RedisNodes::Init() {
  if (!cluster_) return Get(seeds_[0]).status();
  return LoadSlots();
}

std::string RedisNodes::NodeFor(absl::string_view key) const {
  if (!cluster_ || slots_.empty()) return seeds_[0];
  const std::string& a = slots_[KeySlot(key)];
  return a.empty() ? seeds_[0] : a;
}

absl::StatusOr<redisContext*> RedisNodes::Get(const std::string& address) {
  if (auto it = contexts_.find(address); it != contexts_.end()) return it->second;
  size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) {
    return absl::UnavailableError(absl::StrCat("redis sink: bad node address ", address));
  }
  redisContext* c = redisConnectWithTimeout(address.substr(0, colon).c_str(), port,
                                            ToTimeval(connect_timeout_ms_));
  if (c == nullptr || c->err) {
    std::string why = c ? c->errstr : "out of memory";
    if (c) redisFree(c);
    return absl::UnavailableError(absl::StrCat("redis sink: cannot connect to ", address, ": ", why));
  }
  redisSetTimeout(c, ToTimeval(socket_timeout_ms_));
  if (absl::Status s = Authenticate(c, address); !s.ok()) {
    redisFree(c);
    return s;
  }
  contexts_[address] = c;
  return c;
}

absl::Status RedisNodes::Authenticate(redisContext* c, const std::string& address) const {
  const bool with_user = !auth_.username.empty() && !auth_.password.empty();
  std::unique_ptr<redisReply, ReplyDeleter> r;
  if (auth_.password.empty()) {
    r.reset(static_cast<redisReply*>(redisCommand(c, "PING")));
  } else if (with_user) {
    r.reset(static_cast<redisReply*>(redisCommand(c, "AUTH %b %b", auth_.username.data(),
                                                  auth_.username.size(), auth_.password.data(),
                                                  auth_.password.size())));
  } else {
    r.reset(static_cast<redisReply*>(
        redisCommand(c, "AUTH %b", auth_.password.data(), auth_.password.size())));
  }
  if (r == nullptr) {
    return absl::UnavailableError(absl::StrCat("redis sink: cannot connect to ", address, ": ",
                                               c->errstr[0] ? c->errstr : "connection lost"));
  }
  if (r->type != REDIS_REPLY_ERROR) return absl::OkStatus();
  // Redis's error texts never echo the password; quoted for the operator.
  std::string error(r->str, r->len);
  if (auth_.password.empty()) {
    if (!absl::StartsWith(error, "NOAUTH")) return absl::OkStatus();  // e.g. NOPERM on PING
    return absl::PermissionDeniedError(absl::StrCat(
        "redis sink: ", address, " requires authentication (", error,
        "): set SINK_REDIS_AUTH_PASSWORD (and SINK_REDIS_AUTH_USERNAME for an ACL user)"));
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "redis sink: ", address, " refused ",
      with_user ? "SINK_REDIS_AUTH_USERNAME/SINK_REDIS_AUTH_PASSWORD" : "SINK_REDIS_AUTH_PASSWORD",
      " (", error, ")"));
}

void RedisNodes::Drop(const std::string& address) {
  if (auto it = contexts_.find(address); it != contexts_.end()) {
    redisFree(it->second);
    contexts_.erase(it);
  }
  stale_ = cluster_;
}

void RedisNodes::Moved(int slot, const std::string& address) {
  if (slot >= 0 && slot < kSlots && !slots_.empty()) slots_[slot] = address;
  stale_ = true;
}

absl::Status RedisNodes::RefreshIfStale() {
  if (!stale_) return absl::OkStatus();
  return LoadSlots();
}

absl::Status RedisNodes::LoadSlots() {
  // Known masters first (the map may be stale), then the seeds.
  std::vector<std::string> candidates;
  for (const auto& [address, c] : contexts_) candidates.push_back(address);
  candidates.insert(candidates.end(), seeds_.begin(), seeds_.end());
  std::vector<std::string> errors;
  bool refused = false;  // a node refused the credentials (or wanted some)
  for (const std::string& address : candidates) {
    auto c = Get(address);
    if (!c.ok()) {
      refused = refused || absl::IsPermissionDenied(c.status());
      errors.push_back(std::string(c.status().message()));
      continue;
    }
    std::unique_ptr<redisReply, ReplyDeleter> r(
        static_cast<redisReply*>(redisCommand(*c, "CLUSTER SLOTS")));
    if (r == nullptr || r->type != REDIS_REPLY_ARRAY) {
      errors.push_back(absl::StrCat(address, ": CLUSTER SLOTS failed",
                                    r && r->type == REDIS_REPLY_ERROR ? absl::StrCat(": ", r->str) : ""));
      if (r == nullptr) Drop(address);
      continue;
    }
    // Each entry: [start, end, [host, port, id...], replicas...].
    std::vector<std::string> slots(kSlots);
    for (size_t i = 0; i < r->elements; ++i) {
      redisReply* e = r->element[i];
      if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 || e->element[2]->type != REDIS_REPLY_ARRAY ||
          e->element[2]->elements < 2) {
        continue;
      }
      redisReply* master = e->element[2];
      std::string host(master->element[0]->str ? master->element[0]->str : "");
      if (host.empty()) host = address.substr(0, address.rfind(':'));  // "" means this node's host
      std::string node = absl::StrCat(host, ":", master->element[1]->integer);
      for (long long s = e->element[0]->integer; s <= e->element[1]->integer && s < kSlots; ++s) {
        slots[s] = node;
      }
    }
    slots_ = std::move(slots);
    stale_ = false;
    return absl::OkStatus();
  }
  std::string why =
      absl::StrCat("redis sink: no cluster node answered CLUSTER SLOTS: ", absl::StrJoin(errors, "; "));
  return refused ? absl::PermissionDeniedError(why) : absl::UnavailableError(why);
}

}  // namespace sluice::sink
