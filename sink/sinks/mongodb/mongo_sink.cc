#include "sink/sinks/mongodb/mongo_sink.h"

#include <mongoc/mongoc.h>

#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

// bson_t on the stack, destroyed at scope exit.
struct ScopedBson {
  bson_t b = BSON_INITIALIZER;
  ~ScopedBson() { bson_destroy(&b); }
  bson_t* get() { return &b; }
};

// The record's JSON text: JSON input as decoded, protobuf input through
// protobuf's JSON mapping. InvalidArgument when there is none.
absl::StatusOr<std::string> DocumentJson(const Message& m, const MongoSinkConfig& c) {
  if (!c.protobuf) {
    if (!m.json) return absl::InvalidArgumentError("the record was not decoded as JSON");
    if (!m.json->is_object()) return absl::InvalidArgumentError("the record is not a JSON object");
    try {
      return m.json->dump();
    } catch (const nlohmann::json::exception& e) {  // strings that are not UTF-8
      return absl::InvalidArgumentError(absl::StrCat("the record cannot be written as JSON: ", e.what()));
    }
  }
  if (!m.decoded) return absl::InvalidArgumentError("the record was not decoded as protobuf");
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = c.preserve_proto_field_names;
  std::string out;
  auto st = google::protobuf::util::MessageToJsonString(*m.decoded, &out, options);
  if (!st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the record cannot be written as JSON: ", st.ToString()));
  }
  return out;
}

// The primary key's value as the _id string (Firehose: the JSON value's text).
absl::StatusOr<std::string> PrimaryKey(const bson_t* doc, const std::string& path) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc) || !bson_iter_find_descendant(&it, path.c_str(), &it)) {
    return absl::InvalidArgumentError(absl::StrCat("primary key field \"", path, "\" is missing"));
  }
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_UTF8: {
      uint32_t len = 0;
      const char* s = bson_iter_utf8(&it, &len);
      return std::string(s, len);
    }
    case BSON_TYPE_INT32: return absl::StrCat(bson_iter_int32(&it));
    case BSON_TYPE_INT64: return absl::StrCat(bson_iter_int64(&it));
    case BSON_TYPE_DOUBLE: return absl::StrCat(bson_iter_double(&it));
    case BSON_TYPE_BOOL: return std::string(bson_iter_bool(&it) ? "true" : "false");
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("primary key field \"", path, "\" is null, an object or an array"));
  }
}

int32_t Int32At(const bson_t* doc, const char* key) {
  bson_iter_t it;
  return bson_iter_init_find(&it, doc, key) && BSON_ITER_HOLDS_INT32(&it) ? bson_iter_int32(&it) : 0;
}

std::once_flag mongoc_init_once;

// libmongoc's log lines (global) through spdlog, at matching levels, instead
// of its own handler's format on stdout/stderr.
void LogThroughSpdlog(mongoc_log_level_t level, const char* domain, const char* message, void*) {
  switch (level) {
    case MONGOC_LOG_LEVEL_ERROR:
    case MONGOC_LOG_LEVEL_CRITICAL:
      spdlog::error("libmongoc {}: {}", domain, message);
      break;
    case MONGOC_LOG_LEVEL_WARNING:
      spdlog::warn("libmongoc {}: {}", domain, message);
      break;
    case MONGOC_LOG_LEVEL_MESSAGE:
    case MONGOC_LOG_LEVEL_INFO:
      spdlog::info("libmongoc {}: {}", domain, message);
      break;
    default:
      spdlog::debug("libmongoc {}: {}", domain, message);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<MongoSink>> MongoSink::Create(MongoSinkConfig config, Metrics* metrics) {
  std::call_once(mongoc_init_once, [] {
    mongoc_init();
    mongoc_log_set_handler(&LogThroughSpdlog, nullptr);
  });
  std::unique_ptr<MongoSink> sink(new MongoSink(std::move(config), metrics));
  const MongoSinkConfig& c = sink->config_;
  bson_error_t error;
  std::string text = absl::StrCat("mongodb://", absl::StrJoin(c.hosts, ","), "/");
  mongoc_uri_t* uri = mongoc_uri_new_with_error(text.c_str(), &error);
  if (uri == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("SINK_MONGO_CONNECTION_URLS: ", error.message));
  }
  mongoc_uri_set_option_as_int32(uri, MONGOC_URI_CONNECTTIMEOUTMS, c.connect_timeout_ms);
  mongoc_uri_set_option_as_int32(uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS, c.server_select_timeout_ms);
  mongoc_uri_set_option_as_int32(uri, MONGOC_URI_SOCKETTIMEOUTMS, c.socket_timeout_ms);
  // A single-threaded client otherwise gives up after one scan; this way a
  // batch waits up to SINK_MONGO_SERVER_SELECT_TIMEOUT_MS for a server, as
  // Firehose's Java driver does, before failing as SINK_RETRYABLE_ERROR.
  mongoc_uri_set_option_as_bool(uri, MONGOC_URI_SERVERSELECTIONTRYONCE, false);
  mongoc_uri_set_appname(uri, "sluice-sink");
  if (c.auth) {
    // Set through the API rather than spliced into the URI text, so that any
    // character in the credentials is taken as it is (no URI escaping needed).
    mongoc_uri_set_username(uri, c.username.c_str());
    mongoc_uri_set_password(uri, c.password.c_str());
    mongoc_uri_set_auth_source(uri, c.auth_db.c_str());
  }
  sink->client_ = mongoc_client_new_from_uri(uri);
  mongoc_uri_destroy(uri);
  if (sink->client_ == nullptr) return absl::InvalidArgumentError("SINK_MONGO_CONNECTION_URLS: bad URI");
  mongoc_client_set_error_api(sink->client_, MONGOC_ERROR_API_VERSION_2);
  sink->collection_ = mongoc_client_get_collection(sink->client_, c.db.c_str(), c.collection.c_str());
  ScopedBson ping, reply;
  BSON_APPEND_INT32(ping.get(), "ping", 1);
  if (!mongoc_client_command_simple(sink->client_, "admin", ping.get(), nullptr, reply.get(), &error)) {
    return absl::UnavailableError(absl::StrCat("MongoDB at ", absl::StrJoin(c.hosts, ","),
                                               " did not answer ping: ", error.message));
  }
  return sink;
}

MongoSink::MongoSink(MongoSinkConfig config, Metrics* metrics)
    : config_(std::move(config)), metrics_(metrics) {}

MongoSink::~MongoSink() {
  Clear();
  if (collection_ != nullptr) mongoc_collection_destroy(collection_);
  if (client_ != nullptr) mongoc_client_destroy(client_);
}

void MongoSink::Clear() {
  if (bulk_ != nullptr) mongoc_bulk_operation_destroy(bulk_);
  bulk_ = nullptr;
  messages_.clear();
  outcome_.clear();
  dropped_.clear();
}

absl::Status MongoSink::AddOperation(const Message& m) {
  auto json = DocumentJson(m, config_);
  if (!json.ok()) return json.status();
  ScopedBson parsed;
  bson_error_t error;
  if (!bson_init_from_json(parsed.get(), json->data(), json->size(), &error)) {
    return absl::InvalidArgumentError(absl::StrCat("the record does not convert to BSON: ", error.message));
  }
  if (config_.primary_key.empty()) {
    if (!mongoc_bulk_operation_insert_with_opts(bulk_, parsed.get(), nullptr, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("MongoDB would refuse the document: ", error.message));
    }
    return absl::OkStatus();
  }
  auto id = PrimaryKey(parsed.get(), config_.primary_key);
  if (!id.ok()) return id.status();
  // {_id: <key>, ...the record without its own _id}, as Firehose's request
  // handlers build it (an _id member of the record would contradict the key).
  ScopedBson doc, selector, opts;
  const int id_size = static_cast<int>(id->size());  // explicit: a key may hold NUL
  bson_append_utf8(doc.get(), "_id", 3, id->data(), id_size);
  bson_copy_to_excluding_noinit(parsed.get(), doc.get(), "_id", nullptr);
  bson_append_utf8(selector.get(), "_id", 3, id->data(), id_size);
  BSON_APPEND_BOOL(opts.get(), "upsert", !config_.update_only);
  if (!mongoc_bulk_operation_replace_one_with_opts(bulk_, selector.get(), doc.get(), opts.get(), &error)) {
    return absl::InvalidArgumentError(absl::StrCat("MongoDB would refuse the document: ", error.message));
  }
  return absl::OkStatus();
}

std::vector<FailedMessage> MongoSink::Prepare(const std::vector<Message>& batch) {
  Clear();
  ScopedBson opts;
  BSON_APPEND_BOOL(opts.get(), "ordered", false);
  bulk_ = mongoc_collection_create_bulk_operation_with_opts(collection_, opts.get());
  std::vector<FailedMessage> failed;
  for (const Message& m : batch) {
    if (absl::Status s = AddOperation(m); !s.ok()) {
      failed.push_back({m, ErrorType::kInvalidMessageError, std::string(s.message())});
      continue;
    }
    messages_.push_back(&m);
  }
  outcome_.resize(messages_.size());
  dropped_.assign(messages_.size(), false);
  return failed;
}

void MongoSink::Fail(size_t op, ErrorType type, std::string why) {
  if (op >= outcome_.size() || outcome_[op]) return;
  outcome_[op] = std::make_unique<FailedMessage>(FailedMessage{*messages_[op], type, std::move(why)});
}

int MongoSink::ReadWriteErrors(const bson_t* reply) {
  bson_iter_t it, errors;
  if (!bson_iter_init_find(&it, reply, "writeErrors") || !BSON_ITER_HOLDS_ARRAY(&it) ||
      !bson_iter_recurse(&it, &errors)) {
    return 0;
  }
  int count = 0;
  while (bson_iter_next(&errors)) {
    bson_iter_t e;
    if (!BSON_ITER_HOLDS_DOCUMENT(&errors) || !bson_iter_recurse(&errors, &e)) continue;
    int64_t index = -1;
    int32_t code = 0;
    std::string message;
    while (bson_iter_next(&e)) {
      absl::string_view key = bson_iter_key(&e);
      if (key == "index") index = bson_iter_as_int64(&e);
      if (key == "code") code = static_cast<int32_t>(bson_iter_as_int64(&e));
      if (key == "errmsg" && BSON_ITER_HOLDS_UTF8(&e)) message = bson_iter_utf8(&e, nullptr);
    }
    ++count;
    if (index < 0 || static_cast<size_t>(index) >= messages_.size()) continue;
    if (config_.retry_blacklist.count(code)) {
      // Firehose: a blacklisted code is not retried; the message is dropped
      // and counted (cause: the code, not errmsg, which names the key).
      dropped_[index] = true;
      metrics_->Increment("firehose_sink_messages_drop_total", {{"cause", absl::StrCat("E", code)}});
      const Message& m = *messages_[index];
      spdlog::warn("mongodb sink: dropped {}-{}@{} (code {} is in SINK_MONGO_RETRY_STATUS_CODE_BLACKLIST): {}",
                   m.topic, m.partition, m.offset, code, message);
      continue;
    }
    // A write error outside the blacklist: MongoSink.java:75-78 returns the
    // message without an error type, so it is DEFAULT_ERROR (AbstractSink.java:70,
    // Message.java:33-36), whatever the code.
    Fail(index, ErrorType::kDefaultError, absl::StrCat("E", code, " ", message));
  }
  return count;
}

void MongoSink::CountResults(const bson_t* reply, bool counts_valid, int write_errors) {
  int32_t matched = Int32At(reply, "nMatched");
  metrics_->Increment("firehose_sink_mongo_inserted_total", {},
                      Int32At(reply, "nInserted") + Int32At(reply, "nUpserted"));
  metrics_->Increment("firehose_sink_mongo_updated_total", {}, matched);
  metrics_->Increment("firehose_sink_mongo_modified_total", {}, Int32At(reply, "nModified"));
  if (!config_.update_only || !counts_valid) return;
  int unmatched = static_cast<int>(messages_.size()) - matched - write_errors;
  if (unmatched <= 0) return;
  metrics_->Increment("firehose_sink_messages_drop_total",
                      {{"cause", "Primary Key for update request not found"}}, unmatched);
  spdlog::warn("mongodb sink: {} of {} update-only documents matched no _id in {}.{} and were "
               "dropped (Firehose's rule)", unmatched, messages_.size(), config_.db, config_.collection);
}

std::vector<FailedMessage> MongoSink::Execute() {
  std::vector<FailedMessage> failed;
  if (!messages_.empty()) {
    ScopedBson reply;
    bson_error_t error;
    bool ok = mongoc_bulk_operation_execute(bulk_, reply.get(), &error) != 0;
    int write_errors = ReadWriteErrors(reply.get());
    bson_iter_t it, concern;
    bool concern_error = bson_iter_init_find(&it, reply.get(), "writeConcernErrors") &&
                         BSON_ITER_HOLDS_ARRAY(&it) && bson_iter_recurse(&it, &concern) &&
                         bson_iter_next(&concern);
    // writeErrors alone end in a MONGOC_ERROR_SERVER error naming the first;
    // any other error (stream, server selection, a command error) means some
    // operations may not have run, even when others reported writeErrors.
    bool incomplete = !ok && (write_errors == 0 || error.domain != MONGOC_ERROR_SERVER);
    if (incomplete || concern_error) {
      // Nothing or not everything is known to be stored: fail the rest.
      std::string why = concern_error ? "write concern error" : error.message;
      for (size_t i = 0; i < messages_.size(); ++i) {
        // Firehose: the driver throws (MongoSinkClient.java:99-112 catches only
        // MongoBulkWriteException) and AbstractSink.java:48-53 fails the push:
        // DEFAULT_ERROR.
        if (!dropped_[i]) Fail(i, ErrorType::kDefaultError, why);
      }
    }
    CountResults(reply.get(), !incomplete && !concern_error, write_errors);
    for (auto& f : outcome_) {
      if (f) failed.push_back(std::move(*f));
    }
  }
  Clear();
  return failed;
}

}  // namespace sluice::sink
