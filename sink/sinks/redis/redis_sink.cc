#include "sink/sinks/redis/redis_sink.h"

#include <hiredis/hiredis.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace sluice::sink {
namespace {

timeval ToTimeval(int64_t ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

// Redis error replies that a later attempt may not get (server busy, loading,
// failing over, out of memory); the others are the request's fault.
ErrorType ClassifyReplyError(absl::string_view error) {
  for (absl::string_view transient :
       {"LOADING", "BUSY", "TRYAGAIN", "OOM", "MASTERDOWN", "READONLY", "CLUSTERDOWN"}) {
    if (absl::StartsWith(error, transient)) return ErrorType::kSinkRetryableError;
  }
  return ErrorType::kSink4xxError;
}

}  // namespace

RedisSink::RedisSink(RedisSinkConfig config, Metrics* metrics)
    : config_(std::move(config)), metrics_(metrics) {}

RedisSink::~RedisSink() {
  if (ctx_ != nullptr) redisFree(ctx_);
}

absl::StatusOr<std::unique_ptr<RedisSink>> RedisSink::Create(RedisSinkConfig config,
                                                             Metrics* metrics) {
  std::unique_ptr<RedisSink> sink(new RedisSink(std::move(config), metrics));
  if (absl::Status s = sink->Connect(); !s.ok()) return s;
  return sink;
}

absl::Status RedisSink::Connect() {
  if (ctx_ != nullptr) {
    redisFree(ctx_);
    ctx_ = nullptr;
  }
  redisContext* c = redisConnectWithTimeout(config_.host.c_str(), config_.port,
                                            ToTimeval(config_.connect_timeout_ms));
  std::string where = absl::StrCat(config_.host, ":", config_.port);
  if (c == nullptr) return absl::UnavailableError(absl::StrCat("redis sink: cannot connect to ", where));
  if (c->err) {
    std::string why = c->errstr;
    redisFree(c);
    return absl::UnavailableError(absl::StrCat("redis sink: cannot connect to ", where, ": ", why));
  }
  redisSetTimeout(c, ToTimeval(config_.socket_timeout_ms));
  ctx_ = c;
  return absl::OkStatus();
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

std::vector<FailedMessage> RedisSink::Execute() {
  std::vector<FailedMessage> failed;
  // The first failure of each message (type, reason); kept in message order.
  std::vector<std::optional<std::pair<ErrorType, std::string>>> outcome(messages_.size());
  size_t read = 0;
  if (ctx_ == nullptr) {
    if (absl::Status s = Connect(); !s.ok()) {
      for (auto& o : outcome) o = {ErrorType::kSinkRetryableError, std::string(s.message())};
      read = commands_.size();
    }
  }
  if (ctx_ != nullptr) {
    for (const std::vector<std::string>& argv : commands_) {
      std::vector<const char*> args;
      std::vector<size_t> lens;
      for (const std::string& a : argv) {
        args.push_back(a.data());
        lens.push_back(a.size());
      }
      redisAppendCommandArgv(ctx_, static_cast<int>(args.size()), args.data(), lens.data());
    }
    for (; read < commands_.size(); ++read) {
      void* raw = nullptr;
      if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr) break;
      auto* reply = static_cast<redisReply*>(raw);
      auto& o = outcome[command_message_[read]];
      if (reply->type == REDIS_REPLY_ERROR && !o) {
        std::string error(reply->str, reply->len);
        o = {ClassifyReplyError(error), absl::StrCat("redis sink: ", commands_[read][0], ": ", error)};
      }
      freeReplyObject(reply);
    }
    if (read < commands_.size()) {  // transport error or timeout: the rest is unknown
      std::string why = absl::StrCat("redis sink: ", config_.host, ":", config_.port, ": ",
                                     ctx_->errstr[0] ? ctx_->errstr : "connection lost");
      for (size_t i = read; i < commands_.size(); ++i) {
        auto& o = outcome[command_message_[i]];
        if (!o) o = {ErrorType::kSinkRetryableError, why};
      }
      redisFree(ctx_);
      ctx_ = nullptr;  // reconnects on the next batch
    }
  }
  for (size_t i = 0; i < messages_.size(); ++i) {
    if (outcome[i]) failed.push_back({messages_[i], outcome[i]->first, outcome[i]->second});
  }
  commands_.clear();
  command_message_.clear();
  messages_.clear();
  return failed;
}

}  // namespace sluice::sink
