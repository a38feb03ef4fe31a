// SINK_TYPE=redis (Firehose's Redis sink, goto/depot: redis/): one pipeline of
// commands per batch and node through hiredis, each reply deciding whether its
// message failed; STANDALONE or CLUSTER (keys routed by hash slot, MOVED and
// ASK redirections followed). Data types (SINK_REDIS_DATA_TYPE), as depot writes them:
//   LIST      LPUSH <key> <value>
//   HASHSET   HSET <key> <hash field> <value>, one per mapped field
//   KEYVALUE  SET <key> <value>
// then EXPIRE <key> <seconds> (TTL DURATION) or EXPIREAT <key> <unix time>
// (TTL EXACT_TIME). Keys come from SINK_REDIS_KEY_TEMPLATE. Protobuf and
// JSON input (beyond depot, which reads protobuf only).
#ifndef SLUICE_SINK_SINKS_REDIS_REDIS_SINK_H_
#define SLUICE_SINK_SINKS_REDIS_REDIS_SINK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/proto_values.h"
#include "sink/sinks/common/record_fields.h"
#include "sink/sinks/redis/redis_nodes.h"
#include "sink/sinks/sink_context.h"

namespace sluice::sink {

// Parsed SINK_REDIS_* configuration (names and defaults: depot's
// RedisSinkConfig; the *_PROTO_INDEX and INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING
// forms of older Firehose are accepted too).
struct RedisSinkConfig {
  enum class DataType { kList, kHashSet, kKeyValue };
  enum class Ttl { kDisable, kDuration, kExactTime };

  // SINK_REDIS_URLS: "host:port,..." (STANDALONE uses the first; CLUSTER
  // takes them as seeds for the slot map).
  std::vector<std::string> urls;
  bool cluster = false;  // SINK_REDIS_DEPLOYMENT_TYPE (STANDALONE)
  DataType data_type = DataType::kHashSet;  // SINK_REDIS_DATA_TYPE (HASHSET)
  std::shared_ptr<const FieldTemplate> key;  // SINK_REDIS_KEY_TEMPLATE (required)
  // LIST: SINK_REDIS_LIST_DATA_FIELD_NAME (or SINK_REDIS_LIST_DATA_PROTO_INDEX);
  // KEYVALUE: SINK_REDIS_KEY_VALUE_DATA_FIELD_NAME (or _PROTO_INDEX).
  std::shared_ptr<const RecordField> value;
  bool value_is_message = false;  // protobuf: `value` is a message or repeated message field
  // HASHSET: SINK_REDIS_HASHSET_FIELD_TO_COLUMN_MAPPING, {"<field>": "<hash
  // field template>"} (or INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING, {"<number>":
  // "<hash field>"}), in the mapping's key order.
  struct HashField {
    RecordField value;
    FieldTemplate name;
    bool value_is_message = false;  // as value_is_message above
  };
  std::vector<HashField> hash_fields;
  Ttl ttl = Ttl::kDisable;  // SINK_REDIS_TTL_TYPE (DISABLE)
  int64_t ttl_value = 0;    // SINK_REDIS_TTL_VALUE: seconds, or a unix time (s)
  int64_t socket_timeout_ms = 10000;  // SINK_REDIS_SOCKET_TIMEOUT_MS (depot default)
  int64_t connect_timeout_ms = 5000;  // SINK_REDIS_CONNECTION_TIMEOUT_MS (depot default)
  // SINK_REDIS_DEFAULT_FIELD_VALUE_ENABLE (true), as depot's
  // ProtoJsonProvider: a message-typed value (singular, or each element of a
  // repeated one; not map values) is printed with its unset scalar, repeated
  // and map fields at their defaults ({"city":"Pune","zip":0}); false omits
  // them. Timestamps and scalars are unaffected; key templates too.
  bool default_field_values = true;
  // SINK_REDIS_AUTH_USERNAME / SINK_REDIS_AUTH_PASSWORD, trimmed; empty
  // means unset (depot's Trim and EmptyStringToNull). Sent on every
  // connection (RedisAuth).
  RedisAuth auth;

  // InvalidArgument naming the variable: a missing or malformed value, a
  // field the input class lacks, or a template whose %s count differs from
  // its fields.
  static absl::StatusOr<RedisSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

// The sink: one connection per node and instance (one instance per worker),
// opened at Create (CLUSTER: the slot map is loaded then) and again on the
// next batch after a transport error.
class RedisSink : public TwoStageSink {
 public:
  using Config = RedisSinkConfig;  // for CreateFromContext<RedisSink>
  // Connects (and authenticates); Unavailable naming the addresses when
  // Redis cannot be reached, PermissionDenied naming SINK_REDIS_AUTH_PASSWORD
  // (never its value) when it refuses the credentials or needs some.
  // `metrics` is unused (the decorators count pushes and failures).
  static absl::StatusOr<std::unique_ptr<RedisSink>> Create(RedisSinkConfig config, Metrics* metrics);
  ~RedisSink() override;

  // Builds each message's commands. A key or value field that is absent or
  // unreadable fails that message alone with INVALID_MESSAGE_ERROR.
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // Sends every command in one pipeline and reads the replies in order. An
  // error reply fails its message: SINK_RETRYABLE_ERROR for the transient
  // ones (LOADING, BUSY, TRYAGAIN, OOM, MASTERDOWN, READONLY, CLUSTERDOWN),
  // SINK_4XX_ERROR otherwise (WRONGTYPE, ERR ...). A transport error or
  // timeout fails every message whose replies were not all read as
  // SINK_RETRYABLE_ERROR and reconnects on the next batch; a reconnect whose
  // AUTH is refused fails the batch as SINK_RETRYABLE_ERROR naming the
  // variable. CLUSTER: a MOVED or ASK reply is followed (at most
  // kMaxRedirects hops per command, each new node authenticated) and the
  // slot map is reloaded before the next batch.
  std::vector<FailedMessage> Execute() override;
  static constexpr int kMaxRedirects = 5;
  // Commands formatted before the pipeline so far is written to the socket.
  static constexpr size_t kWriteChunk = 16;
  absl::string_view Name() const override { return "redis"; }

 private:
  explicit RedisSink(RedisSinkConfig config);
  // `f` of `m` as RecordField::Read renders it, except that a message value
  // (`is_message`) includes default values when default_field_values.
  absl::StatusOr<std::optional<std::string>> ReadValue(const RecordField& f, bool is_message,
                                                       const Message& m) const;
  // Appends `m`'s commands to `commands_`; InvalidArgument when a field fails.
  absl::Status AddCommands(const Message& m);
  // Pipelines the commands `indices` to `address` and records each reply's
  // outcome; MOVED/ASK replies are collected in `redirects`.
  struct Redirect {
    size_t command;
    bool ask;
    int slot;
    std::string address;
  };
  void SendTo(const std::string& address, const std::vector<size_t>& indices,
              std::vector<Redirect>* redirects);
  // Follows one redirection chain of a command, synchronously.
  void Follow(Redirect r);
  // Records a command's reply (or transport failure) against its message.
  void Record(size_t command, ErrorType type, std::string why);

  // A prepared command: `argc` arguments from args_[first_arg], and the
  // index of its message in messages_.
  struct Command {
    uint32_t first_arg;
    uint32_t argc;
    uint32_t message;
  };
  // Adds a command whose arguments are copied into arena_.
  void AddCommand(std::initializer_list<absl::string_view> argv, size_t message);
  // Argument `i` of `c` (valid until the next Prepare).
  absl::string_view Arg(const Command& c, uint32_t i) const {
    const auto& [offset, size] = args_[c.first_arg + i];
    return absl::string_view(arena_.data() + offset, size);
  }
  // Queues `c` on `ctx` (hiredis formats it into the output buffer).
  void Append(redisContext* ctx, const Command& c) const;

  // Drops the prepared batch (keeping the buffers' capacity).
  void Clear();

  std::string ttl_text_;  // SINK_REDIS_TTL_VALUE as a command argument
  RedisSinkConfig config_;
  std::unique_ptr<RedisNodes> nodes_;
  // Prepared batch, without an allocation per command: every argument's
  // bytes in one arena, (offset, size) per argument, and the commands. The
  // messages are the caller's (TwoStageSink: valid until Execute returns).
  std::string arena_;
  std::vector<std::pair<uint32_t, uint32_t>> args_;
  std::vector<Command> commands_;
  std::vector<const Message*> messages_;
  // Execute's outcome per message: the first failure (type, reason).
  std::vector<std::optional<std::pair<ErrorType, std::string>>> outcome_;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_REDIS_REDIS_SINK_H_
