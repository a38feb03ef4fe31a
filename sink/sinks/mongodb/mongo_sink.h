// SINK_TYPE=mongodb (Firehose's MongoDB sink, raystack/firehose
// sink/mongodb/): each batch is one unordered bulk write through libmongoc
// (MongoDB's official C driver, Debian's libmongoc-dev 1.23). A message
// becomes a document: its JSON (JSON input as it is; protobuf input as
// protobuf's JSON mapping) turned into BSON by libbson, with
// `_id` = the SINK_MONGO_PRIMARY_KEY field's value as a string. Per message:
//   upsert (default)  replaceOne({_id}, doc, upsert: true)
//                     (insertOne(doc) when SINK_MONGO_PRIMARY_KEY is unset)
//   update only       replaceOne({_id}, doc) without upsert
// as Firehose's MongoUpsertRequestHandler / MongoUpdateRequestHandler build them.
#ifndef SLUICE_SINK_SINKS_MONGODB_MONGO_SINK_H_
#define SLUICE_SINK_SINKS_MONGODB_MONGO_SINK_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/sink_context.h"

// libmongoc's handles, kept out of this header.
typedef struct _mongoc_client_t mongoc_client_t;
typedef struct _mongoc_collection_t mongoc_collection_t;
typedef struct _mongoc_bulk_operation_t mongoc_bulk_operation_t;
typedef struct _bson_t bson_t;

namespace sluice::sink {

// Parsed SINK_MONGO_* configuration. Names and defaults are Firehose's
// MongoSinkConfig; SINK_MONGO_SOCKET_TIMEOUT_MS is sluice's.
struct MongoSinkConfig {
  // SINK_MONGO_CONNECTION_URLS: "host:port,..." (required); the seed list.
  std::vector<std::string> hosts;
  std::string db;          // SINK_MONGO_DB_NAME (required)
  std::string collection;  // SINK_MONGO_COLLECTION_NAME (required)
  // SINK_MONGO_PRIMARY_KEY: the field (dotted path for nested JSON members)
  // whose value, as a string, is the document's _id. Required with update
  // only; unset in upsert mode means plain inserts.
  std::string primary_key;
  // SINK_MONGO_INPUT_MESSAGE_TYPE: JSON | PROTOBUF. Defaults to the input's
  // INPUT_SCHEMA_DATA_TYPE; a value that contradicts it is refused.
  bool protobuf = false;
  bool update_only = false;  // SINK_MONGO_MODE_UPDATE_ONLY_ENABLE (false)
  // SINK_MONGO_PRESERVE_PROTO_FIELD_NAMES_ENABLE (true): proto field names
  // (order_number); false gives lowerCamelCase JSON names (orderNumber).
  bool preserve_proto_field_names = true;
  bool auth = false;       // SINK_MONGO_AUTH_ENABLE (false)
  std::string username;    // SINK_MONGO_AUTH_USERNAME (required with auth)
  std::string password;    // SINK_MONGO_AUTH_PASSWORD (required with auth)
  std::string auth_db;     // SINK_MONGO_AUTH_DB (required with auth): authSource
  // SINK_MONGO_RETRY_STATUS_CODE_BLACKLIST ("11000"): comma-separated write
  // error codes that are not retried: such a message is dropped and counted
  // in firehose_sink_messages_drop_total, as Firehose's MongoSinkClient does.
  std::set<int32_t> retry_blacklist = {11000};
  int64_t connect_timeout_ms = 30000;        // SINK_MONGO_CONNECT_TIMEOUT_MS
  // SINK_MONGO_SERVER_SELECT_TIMEOUT_MS: how long a write waits for a
  // reachable server (libmongoc serverSelectionTryOnce=false).
  int64_t server_select_timeout_ms = 30000;
  // SINK_MONGO_SOCKET_TIMEOUT_MS (sluice, 30000): bounds each round trip, so
  // a server that stops answering fails the batch instead of stalling it.
  int64_t socket_timeout_ms = 30000;

  // InvalidArgument naming the variable when one is missing or malformed.
  static absl::StatusOr<MongoSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

// The sink: one libmongoc client per instance (one instance per worker); the
// driver reconnects by itself after a lost connection.
class MongoSink : public TwoStageSink {
 public:
  using Config = MongoSinkConfig;  // for CreateFromContext<MongoSink>

  // Connects and pings the server (within the timeouts); Unavailable with
  // libmongoc's message when it cannot be reached or refuses the credentials.
  static absl::StatusOr<std::unique_ptr<MongoSink>> Create(MongoSinkConfig config, Metrics* metrics);
  ~MongoSink() override;

  // Builds one bulk operation of the batch's documents. A message that is
  // not a JSON object, was not decoded, lacks the primary key (or has a
  // non-scalar one), or that libmongoc refuses as a replacement document
  // (e.g. a member name starting with "$") fails alone with
  // INVALID_MESSAGE_ERROR.
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // Executes the bulk write. Each writeError (index → code, errmsg) fails its
  // message alone: codes in the blacklist are dropped and counted instead;
  // transient codes (the retryable-writes spec's list: 6, 7, 89, 91, 189,
  // 262, 9001, 10107, 11600, 11602, 13435, 13436, 112) are
  // SINK_RETRYABLE_ERROR; the others SINK_4XX_ERROR "E<code> <errmsg>".
  // A write concern error or a transport, server selection or command error
  // fails every message not already failed as SINK_RETRYABLE_ERROR (replaces
  // are idempotent). Update only: documents that matched nothing are not
  // failed but counted in firehose_sink_messages_drop_total{cause="Primary
  // Key for update request not found"} (Firehose's MongoSinkClient rule; the
  // bulk result gives counts, not which ones). Counts
  // firehose_sink_mongo_inserted_total (inserted + upserted),
  // firehose_sink_mongo_updated_total (matched) and
  // firehose_sink_mongo_modified_total (modified).
  std::vector<FailedMessage> Execute() override;
  absl::string_view Name() const override { return "mongodb"; }

 private:
  MongoSink(MongoSinkConfig config, Metrics* metrics);
  // Adds `m`'s operation to bulk_; InvalidArgument with the reason otherwise.
  absl::Status AddOperation(const Message& m);
  // Fails the message of operation `op` (the first failure wins).
  void Fail(size_t op, ErrorType type, std::string why);
  // Applies the reply's writeErrors (fail or drop); returns how many there were.
  int ReadWriteErrors(const bson_t* reply);
  // Counts firehose_sink_mongo_* and, update only with valid counts
  // (`counts_valid`), the unmatched documents as dropped.
  void CountResults(const bson_t* reply, bool counts_valid, int write_errors);
  // Drops the prepared batch.
  void Clear();

  MongoSinkConfig config_;
  Metrics* metrics_;
  mongoc_client_t* client_ = nullptr;
  mongoc_collection_t* collection_ = nullptr;
  mongoc_bulk_operation_t* bulk_ = nullptr;
  // The prepared batch: the caller's messages (valid until Execute returns,
  // TwoStageSink), one per bulk operation, in operation order.
  std::vector<const Message*> messages_;
  std::vector<std::unique_ptr<FailedMessage>> outcome_;  // per operation: its failure
  std::vector<bool> dropped_;  // per operation: dropped (blacklisted code)
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_MONGODB_MONGO_SINK_H_
