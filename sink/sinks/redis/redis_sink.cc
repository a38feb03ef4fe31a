#include "sink/sinks/redis/redis_sink.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice::sink {
namespace {

// Redis error replies that a later attempt may not get (server busy, loading,
// failing over, out of memory); the others are the request's fault.
ErrorType ClassifyReplyError(absl::string_view error) {
  for (absl::string_view transient :
       {"LOADING", "BUSY", "TRYAGAIN", "OOM", "MASTERDOWN", "READONLY", "CLUSTERDOWN"}) {
    if (absl::StartsWith(error, transient)) return ErrorType::kSinkRetryableError;
  }
  return ErrorType::kSink4xxError;
}

// Queues `argv` (at most 4 arguments: HSET key field value) on `ctx`.
void AppendCommand(redisContext* ctx, const std::vector<std::string>& argv) {
  const char* args[4];
  size_t lens[4];
  for (size_t a = 0; a < argv.size() && a < 4; ++a) {
    args[a] = argv[a].data();
    lens[a] = argv[a].size();
  }
  redisAppendCommandArgv(ctx, static_cast<int>(std::min<size_t>(argv.size(), 4)), args, lens);
}

}  // namespace

RedisSink::RedisSink(RedisSinkConfig config)
    : config_(std::move(config)),
      nodes_(std::make_unique<RedisNodes>(config_.urls, config_.cluster, config_.connect_timeout_ms,
                                          config_.socket_timeout_ms)) {}

RedisSink::~RedisSink() = default;

absl::StatusOr<std::unique_ptr<RedisSink>> RedisSink::Create(RedisSinkConfig config,
                                                             Metrics* /*metrics*/) {
  std::unique_ptr<RedisSink> sink(new RedisSink(std::move(config)));
  if (absl::Status s = sink->nodes_->Init(); !s.ok()) return s;
  return sink;
}

absl::Status RedisSink::AddCommands(const Message& m) {
  auto key = config_.key->Render(m);
  if (!key.ok()) return absl::InvalidArgumentError(absl::StrCat("key: ", key.status().message()));
  const size_t first = commands_.size();
  auto value_of = [&](const RecordField& f) -> absl::StatusOr<std::string> {
    auto v = f.Read(m);
    if (!v.ok()) return v.status();
    if (!v->has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("field \"", f.spec(), "\" is absent"));
    }
    return **v;
  };
  absl::Status failed;
  if (config_.data_type == RedisSinkConfig::DataType::kHashSet) {
    for (const RedisSinkConfig::HashField& h : config_.hash_fields) {
      auto name = h.name.Render(m);
      auto value = value_of(h.value);
      if (!name.ok() || !value.ok()) {
        failed = name.ok() ? value.status() : name.status();
        break;
      }
      commands_.push_back({"HSET", *key, *name, *value});
    }
  } else {
    auto value = value_of(*config_.value);
    if (value.ok()) {
      commands_.push_back({config_.data_type == RedisSinkConfig::DataType::kList ? "LPUSH" : "SET",
                           *key, *value});
    } else {
      failed = value.status();
    }
  }
  if (!failed.ok()) {
    commands_.resize(first);  // none of this message's commands are sent
    return failed;
  }
  if (config_.ttl == RedisSinkConfig::Ttl::kDuration) {
    commands_.push_back({"EXPIRE", *key, std::to_string(config_.ttl_value)});
  } else if (config_.ttl == RedisSinkConfig::Ttl::kExactTime) {
    commands_.push_back({"EXPIREAT", *key, std::to_string(config_.ttl_value)});
  }
  command_message_.resize(commands_.size(), messages_.size());
  return absl::OkStatus();
}

std::vector<FailedMessage> RedisSink::Prepare(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  commands_.clear();
  command_message_.clear();
  messages_.clear();
  for (const Message& m : batch) {
    if (absl::Status s = AddCommands(m); !s.ok()) {
      failed.push_back({m, ErrorType::kInvalidMessageError, absl::StrCat("redis sink: ", s.message())});
      continue;
    }
    messages_.push_back(m);
  }
  return failed;
}

void RedisSink::Record(size_t command, ErrorType type, std::string why) {
  auto& o = outcome_[command_message_[command]];
  if (!o) o = {type, std::move(why)};
}

void RedisSink::SendTo(const std::string& address, const std::vector<size_t>& indices,
                       std::vector<Redirect>* redirects) {
  auto ctx = nodes_->Get(address);
  if (!ctx.ok()) {
    for (size_t i : indices) Record(i, ErrorType::kSinkRetryableError, std::string(ctx.status().message()));
    return;
  }
  for (size_t i : indices) AppendCommand(*ctx, commands_[i]);
  size_t read = 0;
  for (; read < indices.size(); ++read) {
    void* raw = nullptr;
    if (redisGetReply(*ctx, &raw) != REDIS_OK || raw == nullptr) break;
    auto* reply = static_cast<redisReply*>(raw);
    const size_t i = indices[read];
    if (reply->type == REDIS_REPLY_ERROR) {
      std::string error(reply->str, reply->len);
      // "MOVED <slot> <host:port>" / "ASK <slot> <host:port>" (cluster spec).
      std::vector<std::string> parts = absl::StrSplit(error, ' ');
      int slot = -1;
      if (nodes_->cluster() && parts.size() == 3 && (parts[0] == "MOVED" || parts[0] == "ASK") &&
          absl::SimpleAtoi(parts[1], &slot)) {
        redirects->push_back({i, parts[0] == "ASK", slot, parts[2]});
      } else {
        Record(i, ClassifyReplyError(error), absl::StrCat("redis sink: ", commands_[i][0], ": ", error));
      }
    }
    freeReplyObject(reply);
  }
  if (read < indices.size()) {  // transport error or timeout: the rest is unknown
    std::string why = absl::StrCat("redis sink: ", address, ": ",
                                   (*ctx)->errstr[0] ? (*ctx)->errstr : "connection lost");
    for (size_t k = read; k < indices.size(); ++k) Record(indices[k], ErrorType::kSinkRetryableError, why);
    nodes_->Drop(address);  // reconnects on the next batch
  }
}

void RedisSink::Follow(Redirect r) {
  for (int hop = 0; hop < kMaxRedirects; ++hop) {
    if (!r.ask) nodes_->Moved(r.slot, r.address);
    auto ctx = nodes_->Get(r.address);
    if (!ctx.ok()) {
      Record(r.command, ErrorType::kSinkRetryableError, std::string(ctx.status().message()));
      return;
    }
    // ASK: this one command goes to the importing node after ASKING.
    if (r.ask) redisAppendCommand(*ctx, "ASKING");
    AppendCommand(*ctx, commands_[r.command]);
    void* raw = nullptr;
    bool ok = true;
    if (r.ask) {
      ok = redisGetReply(*ctx, &raw) == REDIS_OK && raw != nullptr;
      if (raw) freeReplyObject(raw);
      raw = nullptr;
    }
    ok = ok && redisGetReply(*ctx, &raw) == REDIS_OK && raw != nullptr;
    if (!ok) {
      Record(r.command, ErrorType::kSinkRetryableError,
             absl::StrCat("redis sink: ", r.address, ": ", (*ctx)->errstr[0] ? (*ctx)->errstr : "connection lost"));
      nodes_->Drop(r.address);
      return;
    }
    std::unique_ptr<redisReply, void (*)(void*)> reply(static_cast<redisReply*>(raw), freeReplyObject);
    if (reply->type != REDIS_REPLY_ERROR) return;
    std::string error(reply->str, reply->len);
    std::vector<std::string> parts = absl::StrSplit(error, ' ');
    if (parts.size() == 3 && (parts[0] == "MOVED" || parts[0] == "ASK") &&
        absl::SimpleAtoi(parts[1], &r.slot)) {
      r.ask = parts[0] == "ASK";
      r.address = parts[2];
      continue;
    }
    Record(r.command, ClassifyReplyError(error),
           absl::StrCat("redis sink: ", commands_[r.command][0], ": ", error));
    return;
  }
  Record(r.command, ErrorType::kSinkRetryableError,
         absl::StrCat("redis sink: more than ", kMaxRedirects, " cluster redirections"));
}

std::vector<FailedMessage> RedisSink::Execute() {
  outcome_.assign(messages_.size(), std::nullopt);
  // On failure the old slot map stays in use; MOVED replies correct it.
  nodes_->RefreshIfStale().IgnoreError();
  // Commands per node, in batch order (a message's commands share its key).
  std::map<std::string, std::vector<size_t>> by_node;
  if (!nodes_->cluster()) {  // one node: no routing
    std::vector<size_t>& all = by_node[nodes_->NodeFor("")];
    all.resize(commands_.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  } else {
    for (size_t i = 0; i < commands_.size(); ++i) by_node[nodes_->NodeFor(commands_[i][1])].push_back(i);
  }
  std::vector<Redirect> redirects;
  for (const auto& [address, indices] : by_node) SendTo(address, indices, &redirects);
  for (Redirect& r : redirects) Follow(std::move(r));
  std::vector<FailedMessage> failed;
  for (size_t i = 0; i < messages_.size(); ++i) {
    if (outcome_[i]) failed.push_back({messages_[i], outcome_[i]->first, outcome_[i]->second});
  }
  commands_.clear();
  command_message_.clear();
  messages_.clear();
  return failed;
}

}  // namespace sluice::sink
