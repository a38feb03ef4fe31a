#include "sink/sinks/bigquery/bigquery_sink.h"

#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace sluice::sink {
namespace {

using bigquery::MetadataColumn;

// depot's JSON event-time column (MessageRecordConverterUtils).
constexpr char kJsonTimestampColumn[] = "event_timestamp";

// BigQuery's column name rule (letters, digits, underscores, not starting
// with a digit, at most 300 characters). A JSON member with another name is
// not added to the schema, so insertAll refuses that row alone instead of a
// schema update failing every batch.
bool ValidColumnName(const std::string& name) {
  if (name.empty() || name.size() > 300 || absl::ascii_isdigit(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

// Firehose's default metadata columns (firehose docs, bigquery sink).
constexpr char kDefaultMetadataColumns[] =
    "message_offset=integer,message_topic=string,load_time=timestamp,message_timestamp=timestamp,"
    "message_partition=integer";

// depot's LabelMapConverter: "k=v,k2=v2" → {"k":"v","k2":"v2"}.
absl::StatusOr<nlohmann::json> Labels(const Env& env, absl::string_view variable) {
  nlohmann::json out = nlohmann::json::object();
  for (absl::string_view entry : absl::StrSplit(env.GetOr(variable, ""), ',', absl::SkipWhitespace())) {
    std::vector<std::string> kv = absl::StrSplit(entry, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || absl::StripAsciiWhitespace(kv[0]).empty()) {
      return absl::InvalidArgumentError(absl::StrCat(variable, ": \"", entry, "\" is not key=value"));
    }
    out[std::string(absl::StripAsciiWhitespace(kv[0]))] = std::string(absl::StripAsciiWhitespace(kv[1]));
  }
  return out;
}

// depot: a negative timeout means the client default (20000 ms); 0 means
// "infinite" there, which sluice replaces with the default so that a hung
// call cannot stall the worker.
absl::StatusOr<absl::Duration> Timeout(const Env& env, absl::string_view variable) {
  auto ms = env.GetInt(variable, -1);
  if (!ms.ok()) return ms.status();
  return absl::Milliseconds(*ms > 0 ? *ms : 20000);
}

absl::Status ReadTarget(const Env& env, BigQuerySinkConfig* c) {
  for (auto [var, out] : {std::pair{"SINK_BIGQUERY_GOOGLE_CLOUD_PROJECT_ID", &c->target.project},
                          std::pair{"SINK_BIGQUERY_DATASET_NAME", &c->target.dataset},
                          std::pair{"SINK_BIGQUERY_TABLE_NAME", &c->target.table},
                          std::pair{"SINK_BIGQUERY_CREDENTIAL_PATH", &c->credential_path}}) {
    auto v = env.Require(var);
    if (!v.ok()) return v.status();
    *out = *v;
  }
  c->target.base_url = env.GetOr("SINK_BIGQUERY_API_BASE_URL", "https://bigquery.googleapis.com");
  if (!absl::StartsWith(c->target.base_url, "http://") && !absl::StartsWith(c->target.base_url, "https://")) {
    return absl::InvalidArgumentError("SINK_BIGQUERY_API_BASE_URL must be an http:// or https:// URL");
  }
  while (absl::EndsWith(c->target.base_url, "/")) c->target.base_url.pop_back();
  auto read = Timeout(env, "SINK_BIGQUERY_CLIENT_READ_TIMEOUT_MS");
  if (!read.ok()) return read.status();
  auto connect = Timeout(env, "SINK_BIGQUERY_CLIENT_CONNECT_TIMEOUT_MS");
  if (!connect.ok()) return connect.status();
  c->target.read_timeout = *read;
  c->target.connect_timeout = *connect;
  return absl::OkStatus();
}

absl::Status ReadTable(const Env& env, BigQuerySinkConfig* c) {
  for (auto [var, def, out] : {std::tuple{"SINK_BIGQUERY_TABLE_PARTITIONING_ENABLE", false, &c->partitioning},
                               std::tuple{"SINK_BIGQUERY_TABLE_CLUSTERING_ENABLE", false, &c->clustering},
                               std::tuple{"SINK_BIGQUERY_ROW_INSERT_ID_ENABLE", true, &c->row_insert_id},
                               std::tuple{"SINK_BIGQUERY_ADD_METADATA_ENABLED", true, &c->add_metadata},
                               std::tuple{"SINK_BIGQUERY_DYNAMIC_SCHEMA_ENABLE", true, &c->dynamic_schema},
                               std::tuple{"SINK_BIGQUERY_DEFAULT_DATATYPE_STRING_ENABLE", true, &c->all_strings},
                               std::tuple{"SINK_BIGQUERY_ADD_EVENT_TIMESTAMP_ENABLE", false, &c->add_event_timestamp}}) {
    auto v = env.GetBool(var, def);
    if (!v.ok()) return v.status();
    *out = *v;
  }
  c->partition_key = env.GetOr("SINK_BIGQUERY_TABLE_PARTITION_KEY", "");
  if (c->partitioning && c->partition_key.empty()) {
    return absl::InvalidArgumentError(
        "SINK_BIGQUERY_TABLE_PARTITION_KEY is required when SINK_BIGQUERY_TABLE_PARTITIONING_ENABLE=true");
  }
  auto expiry = env.GetInt("SINK_BIGQUERY_TABLE_PARTITION_EXPIRY_MS", -1);
  if (!expiry.ok()) return expiry.status();
  c->partition_expiry_ms = *expiry;
  c->clustering_keys = absl::StrSplit(env.GetOr("SINK_BIGQUERY_TABLE_CLUSTERING_KEYS", ""), ',', absl::SkipWhitespace());
  for (std::string& k : c->clustering_keys) k = std::string(absl::StripAsciiWhitespace(k));
  if (c->clustering && (c->clustering_keys.empty() || c->clustering_keys.size() > 4)) {
    return absl::InvalidArgumentError(
        "SINK_BIGQUERY_TABLE_CLUSTERING_KEYS needs 1 to 4 columns when SINK_BIGQUERY_TABLE_CLUSTERING_ENABLE=true");
  }
  c->dataset_location = env.GetOr("SINK_BIGQUERY_DATASET_LOCATION", "asia-southeast1");
  c->metadata_namespace = env.GetOr("SINK_BIGQUERY_METADATA_NAMESPACE", "");
  auto meta = bigquery::ParseMetadataColumns(
      env.GetOr("SINK_BIGQUERY_METADATA_COLUMNS_TYPES", kDefaultMetadataColumns), "SINK_BIGQUERY_METADATA_COLUMNS_TYPES");
  if (!meta.ok()) return meta.status();
  c->metadata_columns = *std::move(meta);
  auto defaults = bigquery::ParseDefaultColumns(env.GetOr("SINK_BIGQUERY_DEFAULT_COLUMNS", ""),
                                                "SINK_BIGQUERY_DEFAULT_COLUMNS");
  if (!defaults.ok()) return defaults.status();
  c->default_columns = *std::move(defaults);
  auto tl = Labels(env, "SINK_BIGQUERY_TABLE_LABELS");
  if (!tl.ok()) return tl.status();
  c->table_labels = *std::move(tl);
  auto dl = Labels(env, "SINK_BIGQUERY_DATASET_LABELS");
  if (!dl.ok()) return dl.status();
  c->dataset_labels = *std::move(dl);
  return absl::OkStatus();
}

ErrorType TypeOf(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted: return ErrorType::kSinkRetryableError;
    case absl::StatusCode::kInternal: return ErrorType::kSink5xxError;
    default: return ErrorType::kSink4xxError;
  }
}

}  // namespace

absl::StatusOr<BigQuerySinkConfig> BigQuerySinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  BigQuerySinkConfig c;
  if (absl::Status s = ReadTarget(env, &c); !s.ok()) return s;
  if (absl::Status s = ReadTable(env, &c); !s.ok()) return s;
  auto owned = ctx.InputDescriptor();
  if (!owned.ok()) return owned.status();
  c.json_input = *owned == nullptr;
  if (!c.json_input) c.proto_fields = bigquery::ProtoSchema((*owned)->get());
  return c;
}

absl::StatusOr<std::unique_ptr<BigQuerySink>> BigQuerySink::Create(BigQuerySinkConfig config, Metrics*,
                                                                   std::shared_ptr<HttpClient> http) {
  auto key = ReadServiceAccountKeyFile(config.credential_path);
  if (!key.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("SINK_BIGQUERY_CREDENTIAL_PATH: ", key.status().message()));
  }
  if (http == nullptr) http = NewCurlHttpClient();
  auto api = std::make_unique<bigquery::BigQueryApi>(config.target, *std::move(key), std::move(http));
  return std::unique_ptr<BigQuerySink>(new BigQuerySink(std::move(config), std::move(api)));
}

BigQuerySink::BigQuerySink(BigQuerySinkConfig config, std::unique_ptr<bigquery::BigQueryApi> api)
    : config_(std::move(config)), api_(std::move(api)) {
  wanted_ = config_.json_input ? config_.default_columns : config_.proto_fields;
  if (config_.json_input && config_.add_event_timestamp) {
    bigquery::MergeSchema(&wanted_, {{{"name", kJsonTimestampColumn}, {"type", "TIMESTAMP"}, {"mode", "NULLABLE"}}});
  }
  if (config_.add_metadata) {
    bigquery::MergeSchema(&wanted_, bigquery::MetadataSchema(config_.metadata_columns, config_.metadata_namespace));
  }
  for (const auto& f : wanted_) known_columns_.insert(f.value("name", ""));
}

void BigQuerySink::NoteDescriptor(const google::protobuf::Descriptor* d) {
  // The pointer alone is not enough: a refreshed pool may reuse the address
  // of a freed one, so the text decides (once per batch and descriptor).
  std::string text = d->DebugString();
  last_descriptor_ = d;
  if (text == last_descriptor_text_) return;
  last_descriptor_text_ = std::move(text);
  if (bigquery::MergeSchema(&wanted_, bigquery::ProtoSchema(d))) table_ready_ = false;
}

absl::StatusOr<nlohmann::json> BigQuerySink::JsonInputRow(const Message& m, const std::string& load_time) {
  auto row = bigquery::JsonRow(*m.json, config_.all_strings);
  if (!row.ok()) return row.status();
  if (config_.dynamic_schema) {
    for (auto it = row->begin(); it != row->end(); ++it) {
      if (ValidColumnName(it.key()) && known_columns_.insert(it.key()).second) {
        wanted_.push_back(bigquery::JsonColumn(it.key(), (*m.json)[it.key()], config_.all_strings));
        table_ready_ = false;
      }
    }
  }
  if (config_.add_event_timestamp) (*row)[kJsonTimestampColumn] = load_time;
  return row;
}

absl::StatusOr<std::string> BigQuerySink::Render(const Message& m, const std::string& load_time) {
  nlohmann::json meta = nlohmann::json::object();
  if (config_.add_metadata) {
    bigquery::AddMetadata(&meta, m, config_.metadata_columns, config_.metadata_namespace, load_time);
  }
  try {
    if (m.json != nullptr && m.decoded == nullptr) {
      auto row = JsonInputRow(m, load_time);
      if (!row.ok()) return row.status();
      row->update(meta);
      return row->dump();
    }
    if (m.decoded == nullptr) return absl::InvalidArgumentError("the message was not decoded");
    auto text = bigquery::ProtoRow(*m.decoded);
    if (!text.ok() || meta.empty()) return text;
    // Splice the metadata members into the row object.
    std::string more = meta.dump();
    if (*text == "{}") return more;
    text->pop_back();
    absl::StrAppend(&*text, ",", absl::string_view(more).substr(1));
    return text;
  } catch (const nlohmann::json::exception&) {
    return absl::InvalidArgumentError("a string value (or the Kafka key) is not valid UTF-8");
  }
}

std::vector<FailedMessage> BigQuerySink::Prepare(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  rows_.clear();
  messages_.clear();
  last_descriptor_ = nullptr;
  const std::string load_time = bigquery::TimestampText(absl::Now());
  for (const Message& m : batch) {
    if (m.decoded != nullptr && m.decoded->GetDescriptor() != last_descriptor_) {
      NoteDescriptor(m.decoded->GetDescriptor());
    }
    auto row = Render(m, load_time);
    if (!row.ok()) {
      failed.push_back({m, ErrorType::kInvalidMessageError, absl::StrCat("bigquery sink: ", row.status().message())});
      continue;
    }
    // {"insertId":"<topic>_<partition>_<offset>","json":{...}}; the topic is
    // a Kafka topic name ([a-zA-Z0-9._-]), which needs no escaping.
    rows_.push_back(config_.row_insert_id ? absl::StrCat(R"({"insertId":")", m.topic, "_", m.partition, "_",
                                                         m.offset, R"(","json":)", *row, "}")
                                          : absl::StrCat(R"({"json":)", *row, "}"));
    messages_.push_back(&m);
  }
  return failed;
}

// depot's upsertDatasetAndTable, dataset part: create it with the location
// and labels; an existing one in another location is refused (depot's
// BQDatasetLocationChangedException); configured labels are set when they
// differ (sluice leaves labels alone when none are configured; depot would
// clear them).
absl::Status BigQuerySink::EnsureDataset() {
  auto ds = api_->GetDataset();
  if (ds.status().code() == absl::StatusCode::kNotFound) {
    ds = api_->InsertDataset(config_.dataset_location, config_.dataset_labels);
    if (ds.status().code() != absl::StatusCode::kAlreadyExists) return ds.status();
    ds = api_->GetDataset();  // created meanwhile by another worker
  }
  if (!ds.ok()) return ds.status();
  std::string location = ds->value("location", "");
  if (!location.empty() && !absl::EqualsIgnoreCase(location, config_.dataset_location)) {
    return absl::FailedPreconditionError(absl::StrCat("dataset ", config_.target.dataset, " is in ", location,
                                                      ", not SINK_BIGQUERY_DATASET_LOCATION=",
                                                      config_.dataset_location,
                                                      " (a dataset's location cannot be changed)"));
  }
  if (!config_.dataset_labels.empty() && ds->value("labels", nlohmann::json::object()) != config_.dataset_labels) {
    auto patched = api_->PatchDataset({{"labels", config_.dataset_labels}});
    if (!patched.ok()) return patched.status();
  }
  return absl::OkStatus();
}

absl::Status BigQuerySink::CreateTable() {
  nlohmann::json table = {{"schema", {{"fields", wanted_}}}};
  if (!config_.table_labels.empty()) table["labels"] = config_.table_labels;
  if (config_.partitioning) {
    table["timePartitioning"] = {{"type", "DAY"}, {"field", config_.partition_key}};
    if (config_.partition_expiry_ms > 0) {
      table["timePartitioning"]["expirationMs"] = std::to_string(config_.partition_expiry_ms);
    }
  }
  if (config_.clustering) table["clustering"] = {{"fields", config_.clustering_keys}};
  auto created = api_->InsertTable(table);
  if (!created.ok()) return created.status();
  table_fields_ = created->value("schema", nlohmann::json::object()).value("fields", wanted_);
  return absl::OkStatus();
}

// depot's upsertTable: create the table (and dataset) when missing, else add
// the columns it lacks and set labels and clustering.
absl::Status BigQuerySink::EnsureTable() {
  absl::Status s = EnsureTableOnce();
  // Another worker may have changed the schema between our get and patch
  // (BigQuery refuses a patch that drops its columns): read it again once.
  if (s.code() == absl::StatusCode::kInvalidArgument) s = EnsureTableOnce();
  return s;
}

absl::Status BigQuerySink::EnsureTableOnce() {
  if (absl::Status s = EnsureDataset(); !s.ok()) return s;
  auto table = api_->GetTable();
  if (table.status().code() == absl::StatusCode::kNotFound) {
    absl::Status s = CreateTable();
    if (s.code() != absl::StatusCode::kAlreadyExists) {
      table_ready_ = s.ok();
      return s;
    }
    table = api_->GetTable();  // created meanwhile by another worker
  }
  if (!table.ok()) return table.status();
  nlohmann::json fields = table->value("schema", nlohmann::json::object()).value("fields", nlohmann::json::array());
  bool changed = bigquery::MergeSchema(&fields, wanted_);
  nlohmann::json patch = nlohmann::json::object();
  if (changed) patch["schema"] = {{"fields", fields}};
  nlohmann::json labels = table->value("labels", nlohmann::json::object());
  if (!config_.table_labels.empty() && labels != config_.table_labels) patch["labels"] = config_.table_labels;
  if (config_.clustering &&
      table->value("clustering", nlohmann::json::object()).value("fields", nlohmann::json::array()) !=
          nlohmann::json(config_.clustering_keys)) {
    patch["clustering"] = {{"fields", config_.clustering_keys}};
  }
  if (!patch.empty()) {
    auto patched = api_->PatchTable(patch);
    if (!patched.ok()) return patched.status();
  }
  table_fields_ = std::move(fields);
  table_ready_ = true;
  return absl::OkStatus();
}

std::string BigQuerySink::InsertBody(const std::vector<size_t>& rows) const {
  std::string body = R"({"kind":"bigquery#tableDataInsertAllRequest","skipInvalidRows":false,)"
                     R"("ignoreUnknownValues":false,"rows":[)";
  for (size_t i = 0; i < rows.size(); ++i) absl::StrAppend(&body, i ? "," : "", rows_[rows[i]]);
  body += "]}";
  return body;
}

void BigQuerySink::FailAll(const std::vector<size_t>& rows, const absl::Status& s,
                           std::vector<FailedMessage>* out) const {
  for (size_t r : rows) out->push_back({*messages_[r], TypeOf(s), absl::StrCat("bigquery sink: ", s.message())});
}

std::vector<FailedMessage> BigQuerySink::Execute() {
  std::vector<FailedMessage> failed;
  std::vector<size_t> rows(messages_.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  if (!rows.empty() && !table_ready_) {
    if (absl::Status s = EnsureTable(); !s.ok()) {
      FailAll(rows, s, &failed);
      rows.clear();
    }
  }
  for (int attempt = 0; !rows.empty(); ++attempt) {
    auto res = api_->InsertAll(InsertBody(rows));
    if (!res.ok()) {
      // A table deleted meanwhile is created again on the next batch.
      if (res.status().code() == absl::StatusCode::kNotFound) table_ready_ = false;
      FailAll(rows, res.status(), &failed);
      break;
    }
    std::vector<size_t> stopped;
    for (const nlohmann::json& e : res->value("insertErrors", nlohmann::json::array())) {
      size_t index = e.value("index", size_t{0});
      if (index >= rows.size()) continue;
      std::string reason, why;
      for (const nlohmann::json& err : e.value("errors", nlohmann::json::array())) {
        if (reason.empty() || reason == "stopped") reason = err.value("reason", "");
        if (!err.value("message", "").empty()) {
          absl::StrAppend(&why, why.empty() ? "" : "; ", err.value("location", ""), ": ", err.value("message", ""));
        }
      }
      if (reason == "stopped" && attempt < kResendBudget) {
        stopped.push_back(rows[index]);
        continue;
      }
      ErrorType type = reason == "invalid" ? ErrorType::kSink4xxError
                       : reason == "stopped" ? ErrorType::kSink5xxError
                                             : ErrorType::kSinkUnknownError;
      failed.push_back({*messages_[rows[index]], type, absl::StrCat("bigquery sink: insertAll ", reason, ": ", why)});
    }
    rows = std::move(stopped);
  }
  rows_.clear();
  messages_.clear();
  return failed;
}

}  // namespace sluice::sink
