#include "sink/sinks/redis/redis_sink.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/message.h"
#include "nlohmann/json.hpp"
#include "sink/sinks/common/proto_values.h"

namespace sluice::sink {
namespace {

// depot's types (RedisSink.java:71-74 at depot 1da3613c, RedisSinkUtils.java at
// depot 85d7f860): an error reply is DEFAULT_ERROR (RedisSinkUtils.java:47);
// a send that throws (no connection, connection lost, Jedis's cluster
// redirections exhausted) fails every record of the send as
// SINK_NON_RETRYABLE_ERROR (RedisSinkUtils.java:71).
constexpr ErrorType kReplyError = ErrorType::kDefaultError;
constexpr ErrorType kConnectionError = ErrorType::kSinkNonRetryableError;

}  // namespace

absl::StatusOr<std::optional<std::string>> RedisSink::ReadValue(const RecordField& f, bool is_message,
                                                                const Message& m) const {
  if (!is_message || !config_.default_field_values || m.decoded == nullptr) return f.Read(m);
  // Walk the path on the record's own descriptor (any pool), as Read does.
  const google::protobuf::Message* cur = m.decoded.get();
  const google::protobuf::FieldDescriptor* fd = nullptr;
  std::vector<absl::string_view> parts = absl::StrSplit(f.spec(), '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const google::protobuf::Descriptor* d = cur->GetDescriptor();
    int number = 0;
    fd = absl::SimpleAtoi(parts[i], &number) ? d->FindFieldByNumber(number)
                                             : d->FindFieldByName(std::string(parts[i]));
    if (fd == nullptr || fd->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE ||
        fd->is_map() || (i + 1 < parts.size() && fd->is_repeated())) {
      return f.Read(m);  // not (or no longer) a message value
    }
    if (i + 1 < parts.size()) cur = &cur->GetReflection()->GetMessage(*cur, fd);
  }
  const google::protobuf::Reflection* r = cur->GetReflection();
  if (IsTimestamp(fd->message_type())) return f.Read(m);
  if (!fd->is_repeated()) {
    if (!r->HasField(*cur, fd)) return f.Read(m);  // absent, as Read says
    return std::optional<std::string>(MessageJson(r->GetMessage(*cur, fd), /*with_defaults=*/true));
  }
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0, n = r->FieldSize(*cur, fd); i < n; ++i) {
    out.push_back(nlohmann::json::parse(MessageJson(r->GetRepeatedMessage(*cur, fd, i), true),
                                        nullptr, /*allow_exceptions=*/false));
  }
  return std::optional<std::string>(out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void RedisSink::Clear() {
  arena_.clear();
  args_.clear();
  commands_.clear();
  messages_.clear();
}

RedisSink::RedisSink(RedisSinkConfig config)
    : ttl_text_(std::to_string(config.ttl_value)),
      config_(std::move(config)),
      nodes_(std::make_unique<RedisNodes>(config_.urls, config_.cluster, config_.connect_timeout_ms,
                                          config_.socket_timeout_ms, config_.auth)) {}

RedisSink::~RedisSink() = default;

absl::StatusOr<std::unique_ptr<RedisSink>> RedisSink::Create(RedisSinkConfig config,
                                                             Metrics* /*metrics*/) {
  std::unique_ptr<RedisSink> sink(new RedisSink(std::move(config)));
  if (absl::Status s = sink->nodes_->Init(); !s.ok()) return s;
  return sink;
}

void RedisSink::AddCommand(std::initializer_list<absl::string_view> argv, size_t message) {
  commands_.push_back({static_cast<uint32_t>(args_.size()), static_cast<uint32_t>(argv.size()),
                       static_cast<uint32_t>(message)});
  for (absl::string_view a : argv) {
    args_.emplace_back(static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(a.size()));
    arena_.append(a.data(), a.size());
  }
}

void RedisSink::Append(redisContext* ctx, const Command& c) const {
  const char* argv[4];
  size_t lens[4];
  const uint32_t argc = std::min<uint32_t>(c.argc, 4);  // HSET key field value at most
  for (uint32_t a = 0; a < argc; ++a) {
    absl::string_view arg = Arg(c, a);
    argv[a] = arg.data();
    lens[a] = arg.size();
  }
  redisAppendCommandArgv(ctx, static_cast<int>(argc), argv, lens);
}

absl::Status RedisSink::AddCommands(const Message& m) {
  auto key = config_.key->Render(m);
  if (!key.ok()) return absl::InvalidArgumentError(absl::StrCat("key: ", key.status().message()));
  const size_t first = commands_.size(), first_arg = args_.size(), arena_size = arena_.size();
  const size_t message = messages_.size();
  auto value_of = [&](const RecordField& f, bool is_message) -> absl::StatusOr<std::string> {
    auto v = ReadValue(f, is_message, m);
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
      auto value = value_of(h.value, h.value_is_message);
      if (!name.ok() || !value.ok()) {
        failed = name.ok() ? value.status() : name.status();
        break;
      }
      AddCommand({"HSET", *key, *name, *value}, message);
    }
  } else {
    auto value = value_of(*config_.value, config_.value_is_message);
    if (value.ok()) {
      AddCommand({config_.data_type == RedisSinkConfig::DataType::kList ? "LPUSH" : "SET", *key,
                  *value},
                 message);
    } else {
      failed = value.status();
    }
  }
  if (!failed.ok()) {  // none of this message's commands are sent
    commands_.resize(first);
    args_.resize(first_arg);
    arena_.resize(arena_size);
    return failed;
  }
  if (config_.ttl != RedisSinkConfig::Ttl::kDisable) {
    AddCommand({config_.ttl == RedisSinkConfig::Ttl::kDuration ? "EXPIRE" : "EXPIREAT", *key,
                ttl_text_},
               message);
  }
  return absl::OkStatus();
}

std::vector<FailedMessage> RedisSink::Prepare(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  Clear();
  for (const Message& m : batch) {
    if (absl::Status s = AddCommands(m); !s.ok()) {
      failed.push_back({m, ErrorType::kInvalidMessageError, absl::StrCat("redis sink: ", s.message())});
      continue;
    }
    messages_.push_back(&m);
  }
  return failed;
}

void RedisSink::Record(size_t command, ErrorType type, std::string why) {
  auto& o = outcome_[commands_[command].message];
  if (!o) o = {type, std::move(why)};
}

void RedisSink::SendTo(const std::string& address, const std::vector<size_t>& indices,
                       std::vector<Redirect>* redirects) {
  auto ctx = nodes_->Get(address);
  if (!ctx.ok()) {
    for (size_t i : indices) Record(i, kConnectionError, std::string(ctx.status().message()));
    return;
  }
  for (size_t i : indices) Append(*ctx, commands_[i]);
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
        Record(i, kReplyError, absl::StrCat("redis sink: ", Arg(commands_[i], 0), ": ", error));
      }
    }
    freeReplyObject(reply);
  }
  if (read < indices.size()) {  // transport error or timeout: the rest is unknown
    std::string why = absl::StrCat("redis sink: ", address, ": ",
                                   (*ctx)->errstr[0] ? (*ctx)->errstr : "connection lost");
    for (size_t k = read; k < indices.size(); ++k) Record(indices[k], kConnectionError, why);
    nodes_->Drop(address);  // reconnects on the next batch
  }
}

void RedisSink::Follow(Redirect r) {
  for (int hop = 0; hop < kMaxRedirects; ++hop) {
    if (!r.ask) nodes_->Moved(r.slot, r.address);
    auto ctx = nodes_->Get(r.address);
    if (!ctx.ok()) {
      Record(r.command, kConnectionError, std::string(ctx.status().message()));
      return;
    }
    // ASK: this one command goes to the importing node after ASKING.
    if (r.ask) redisAppendCommand(*ctx, "ASKING");
    Append(*ctx, commands_[r.command]);
    void* raw = nullptr;
    bool ok = true;
    if (r.ask) {
      ok = redisGetReply(*ctx, &raw) == REDIS_OK && raw != nullptr;
      if (raw) freeReplyObject(raw);
      raw = nullptr;
    }
    ok = ok && redisGetReply(*ctx, &raw) == REDIS_OK && raw != nullptr;
    if (!ok) {
      Record(r.command, kConnectionError,
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
    Record(r.command, kReplyError,
           absl::StrCat("redis sink: ", Arg(commands_[r.command], 0), ": ", error));
    return;
  }
  Record(r.command, kConnectionError,
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
    for (size_t i = 0; i < commands_.size(); ++i) by_node[nodes_->NodeFor(Arg(commands_[i], 1))].push_back(i);
  }
  std::vector<Redirect> redirects;
  for (const auto& [address, indices] : by_node) SendTo(address, indices, &redirects);
  for (Redirect& r : redirects) Follow(std::move(r));
  std::vector<FailedMessage> failed;
  for (size_t i = 0; i < messages_.size(); ++i) {
    if (outcome_[i]) failed.push_back({*messages_[i], outcome_[i]->first, outcome_[i]->second});
  }
  Clear();
  return failed;
}

}  // namespace sluice::sink
