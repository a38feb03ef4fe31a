#include "sink/sinks/jdbc/jdbc_sink.h"

#include <libpq-fe.h>

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "sink/sinks/jdbc/jdbc_offsets.h"

namespace sluice::sink {
namespace {

// The per-connection staging table of upserts.
constexpr char kStageTable[] = "sluice_sink_stage";

// Appends `v` in COPY text format (backslash escapes; \N for NULL).
void AppendCopyField(const std::optional<std::string>& v, std::string* out) {
  if (!v) {
    out->append("\\N");
    return;
  }
  for (char c : *v) {
    switch (c) {
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default: out->push_back(c);
    }
  }
}

// Owns a PGresult.
struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

}  // namespace

std::string JdbcUrlToConninfo(absl::string_view url) {
  absl::string_view u = absl::StripAsciiWhitespace(url);
  if (absl::ConsumePrefix(&u, "jdbc:")) {
    // jdbc:postgresql://host:port/db?user=x -> postgresql://host:port/db?user=x
    return std::string(u);
  }
  return std::string(u);
}

std::string QuoteIdentifier(absl::string_view name) {
  std::vector<std::string> parts;
  for (absl::string_view p : absl::StrSplit(name, '.')) {
    parts.push_back(absl::StrCat("\"", absl::StrReplaceAll(p, {{"\"", "\"\""}}), "\""));
  }
  return absl::StrJoin(parts, ".");
}

absl::StatusOr<JdbcSinkConfig> JdbcSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  JdbcSinkConfig c;
  auto url = env.Require("SINK_JDBC_URL");
  if (!url.ok()) return url.status();
  c.conninfo = JdbcUrlToConninfo(*url);
  c.user = env.GetOr("SINK_JDBC_USERNAME", "");
  c.password = env.GetOr("SINK_JDBC_PASSWORD", "");
  auto table = env.Require("SINK_JDBC_TABLE_NAME");
  if (!table.ok()) return table.status();
  c.table = *table;
  auto pool = env.GetPositiveInt("SINK_JDBC_CONNECTION_POOL_MAX_SIZE", 10);
  if (!pool.ok()) return pool.status();
  c.pool_max_size = *pool;
  auto connect_timeout = env.GetPositiveInt("SINK_JDBC_CONNECTION_POOL_TIMEOUT_MS", 1000);
  if (!connect_timeout.ok()) return connect_timeout.status();
  c.connect_timeout_ms = *connect_timeout;
  // 0 = no statement timeout.
  auto statement_timeout = env.GetDuration("SINK_JDBC_STATEMENT_TIMEOUT_MS", absl::Seconds(60));
  if (!statement_timeout.ok()) return statement_timeout.status();
  if (*statement_timeout > absl::Milliseconds(INT32_MAX)) {
    return absl::InvalidArgumentError(
        "SINK_JDBC_STATEMENT_TIMEOUT_MS must be 0 (none) or a positive number of milliseconds");
  }
  c.statement_timeout_ms = absl::ToInt64Milliseconds(*statement_timeout);
  auto data_type = env.GetEnum("INPUT_SCHEMA_DATA_TYPE", "PROTOBUF", {"PROTOBUF", "JSON"});
  if (!data_type.ok()) return data_type.status();
  if (*data_type == "JSON") {
    auto mapping = env.Get("INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING");
    if (!mapping) {
      return absl::InvalidArgumentError(
          "SINK_TYPE=jdbc with INPUT_SCHEMA_DATA_TYPE=json needs INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING "
          "(member name -> column, e.g. {\"order_number\":\"order_number\",\"driver\":{\"name\":"
          "\"driver_name\"}}); INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING applies to protobuf input");
    }
    auto cols = ParseFieldMapping(*mapping, /*descriptor=*/nullptr, "INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING",
                                  /*non_empty=*/true);
    if (!cols.ok()) return cols.status();
    c.json_input = true;
    c.json_columns = *std::move(cols);
  } else {
    auto cls = env.Require("INPUT_SCHEMA_PROTO_CLASS");
    if (!cls.ok()) return cls.status();
    auto owned = ctx.ResolveDescriptor("INPUT_SCHEMA_PROTO_CLASS", *cls);
    if (!owned.ok()) return owned.status();
    c.descriptor = *std::move(owned);
    auto mapping = env.Require("INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING");
    if (!mapping.ok()) return mapping.status();
    auto cols = ParseColumnMapping(*mapping, c.descriptor->get());
    if (!cols.ok()) return cols.status();
    c.columns = *std::move(cols);
  }
  auto exactly_once = env.GetBool("SINK_JDBC_EXACTLY_ONCE_ENABLE", false);
  if (!exactly_once.ok()) return exactly_once.status();
  c.exactly_once = *exactly_once;
  if (c.exactly_once) {
    c.offsets_table = env.GetOr("SINK_JDBC_OFFSETS_TABLE_NAME", kDefaultOffsetsTable);
    if (c.offsets_table.empty() || c.offsets_table == c.table) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SINK_JDBC_OFFSETS_TABLE_NAME must name a table of its own (not SINK_JDBC_TABLE_NAME); "
          "unset it for the default ", kDefaultOffsetsTable));
    }
    auto group = env.Require("SOURCE_KAFKA_CONSUMER_GROUP_ID");
    if (!group.ok()) return group.status();
    c.group = *group;
  }
  const std::vector<std::string> names = c.ColumnNames();
  for (std::string& key : env.GetList("SINK_JDBC_UNIQUE_KEYS")) {
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SINK_JDBC_UNIQUE_KEYS: \"", key, "\" is not a column of ",
                       c.json_input ? "INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING"
                                    : "INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING"));
    }
    c.unique_keys.push_back(std::move(key));
  }
  return c;
}

std::vector<std::string> JdbcSinkConfig::ColumnNames() const {
  std::vector<std::string> out;
  for (const ColumnMapping& c : columns) out.push_back(c.column);
  for (const NamedField& c : json_columns) out.push_back(c.name);
  return out;
}

JdbcSink::JdbcSink(JdbcSinkConfig config, Metrics* metrics)
    : config_(std::move(config)), column_names_(config_.ColumnNames()), metrics_(metrics) {
  for (const ColumnMapping& c : config_.columns) {
    std::vector<int> numbers;
    for (const auto* f : c.path) numbers.push_back(f->number());
    numbers_.push_back(std::move(numbers));
  }
}

JdbcSink::~JdbcSink() {
  if (conn_ != nullptr) PQfinish(conn_);
}

absl::Status JdbcSink::Connect() {
  if (conn_ != nullptr) {
    PQfinish(conn_);
    conn_ = nullptr;
  }
  stage_ready_ = false;  // temp tables die with their session
  // So does an open transaction, with the rows written in it.
  if (txn_open_) txn_broken_ = true;
  txn_open_ = false;
  // Without connect_timeout libpq waits for an unresponsive server forever.
  // It comes first so that a connect_timeout in the URL (expanded from
  // dbname below) overrides it.
  const std::string connect_timeout =
      absl::StrCat((config_.connect_timeout_ms + 999) / 1000);
  std::vector<const char*> keys = {"connect_timeout", "dbname"};
  std::vector<const char*> values = {connect_timeout.c_str(), config_.conninfo.c_str()};
  if (!config_.user.empty()) {
    keys.push_back("user");
    values.push_back(config_.user.c_str());
  }
  if (!config_.password.empty()) {
    keys.push_back("password");
    values.push_back(config_.password.c_str());
  }
  keys.push_back("application_name");
  values.push_back("sluice-sink");
  keys.push_back(nullptr);
  values.push_back(nullptr);
  // expand_dbname=1: the "dbname" value may itself be a DSN or a URI.
  conn_ = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    std::string err = conn_ != nullptr ? PQerrorMessage(conn_) : "out of memory";
    if (conn_ != nullptr) PQfinish(conn_);
    conn_ = nullptr;
    return absl::UnavailableError(
        absl::StrCat("jdbc sink: cannot connect to SINK_JDBC_URL: ",
                     absl::StripTrailingAsciiWhitespace(err)));
  }
  // The upsert's INSERT ... SELECT from an unanalysed temp table can cross
  // jit_above_cost; compiling it costs far more than the statement saves.
  Result r(PQexec(conn_, "SET jit = off"));
  // A COPY or upsert waiting on a lock (or a server that stopped answering
  // queries) would otherwise hold the worker, and the group's max.poll
  // budget, indefinitely.
  const std::string set_timeout =
      absl::StrCat("SET statement_timeout = ", config_.statement_timeout_ms);
  Result t(PQexec(conn_, set_timeout.c_str()));
  if (!t || PQresultStatus(t.get()) != PGRES_COMMAND_OK) {
    std::string err = PQerrorMessage(conn_);
    PQfinish(conn_);
    conn_ = nullptr;
    return absl::UnavailableError(absl::StrCat("jdbc sink: ", set_timeout, ": ",
                                               absl::StripTrailingAsciiWhitespace(err)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<JdbcSink>> JdbcSink::Create(JdbcSinkConfig config,
                                                           Metrics* metrics) {
  std::unique_ptr<JdbcSink> sink(new JdbcSink(std::move(config), metrics));
  absl::Status s = sink->Connect();
  if (!s.ok()) return s;
  if (sink->config_.exactly_once) {
    s = EnsureOffsetsTable(sink->conn_, sink->config_.offsets_table);
    if (!s.ok()) return s;
  }
  return sink;
}

std::vector<FailedMessage> JdbcSink::Prepare(const std::vector<Message>& batch) {
  std::vector<FailedMessage> failed;
  values_.clear();
  messages_.clear();
  message_rows_.clear();
  rows_ = 0;
  const size_t ncols = column_names_.size();
  values_.reserve(batch.size() * ncols);
  // Unique-key tuple -> row index, to keep the last row of equal keys.
  absl::flat_hash_map<std::string, size_t> seen;
  std::vector<size_t> key_cols;
  for (const std::string& k : config_.unique_keys) {
    for (size_t i = 0; i < ncols; ++i) {
      if (column_names_[i] == k) key_cols.push_back(i);
    }
  }
  std::vector<std::optional<std::string>> row(ncols);
  for (const Message& m : batch) {
    absl::Status made = config_.json_input ? JsonRow(m, &row) : ProtoRow(m, &row);
    if (!made.ok()) {
      // This record fails alone; the rest of the batch is written.
      failed.push_back(FailedMessage{m, ErrorType::kInvalidMessageError,
                                     absl::StrCat("jdbc sink: ", made.message())});
      row.assign(ncols, std::nullopt);
      continue;
    }
    messages_.push_back(m);
    message_rows_.push_back(rows_);
    if (!key_cols.empty()) {
      std::string key;
      for (size_t i : key_cols) {
        if (row[i]) {
          absl::StrAppend(&key, "v", row[i]->size(), ":", *row[i]);
        } else {
          key.append("n");
        }
      }
      auto [it, inserted] = seen.emplace(std::move(key), rows_);
      if (!inserted) {
        // Overwrite the earlier row in place: the later offset wins.
        std::move(row.begin(), row.end(), values_.begin() + it->second * ncols);
        message_rows_.back() = it->second;
        row.assign(ncols, std::nullopt);
        continue;
      }
    }
    for (auto& v : row) values_.push_back(std::move(v));
    row.assign(ncols, std::nullopt);
    ++rows_;
  }
  return failed;
}

absl::Status JdbcSink::ProtoRow(const Message& m,
                                std::vector<std::optional<std::string>>* row) const {
  if (m.decoded == nullptr) return absl::InvalidArgumentError("message was not decoded as protobuf");
  bool complete = true;
  for (size_t i = 0; i < row->size(); ++i) {
    auto value = FieldValueTextByNumbers(*m.decoded, numbers_[i]);
    if (!value.ok()) {
      // E.g. a proto2 repeated string that is not UTF-8.
      return absl::InvalidArgumentError(
          absl::StrCat("column ", column_names_[i], ": ", value.status().message()));
    }
    (*row)[i] = *std::move(value);
    // A scalar path always has a value; nullopt then means the message's
    // type lacks the path (only unset messages/timestamps read as NULL).
    if (!(*row)[i] && !config_.columns[i].path.back()->message_type() &&
        !config_.columns[i].path.back()->is_repeated()) {
      complete = false;
    }
  }
  if (complete) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      m.decoded->GetDescriptor()->full_name(), " does not match INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING"));
}

absl::Status JdbcSink::JsonRow(const Message& m, std::vector<std::optional<std::string>>* row) const {
  if (m.json == nullptr) return absl::InvalidArgumentError("message was not decoded as JSON");
  for (size_t i = 0; i < row->size(); ++i) {
    auto value = config_.json_columns[i].field.Read(m);
    if (!value.ok()) return value.status();
    (*row)[i] = *std::move(value);
  }
  return absl::OkStatus();
}

std::string JdbcSink::ColumnList() const {
  std::string out = "(";
  for (size_t i = 0; i < column_names_.size(); ++i) {
    absl::StrAppend(&out, i ? "," : "", QuoteIdentifier(column_names_[i]));
  }
  out.push_back(')');
  return out;
}

std::string JdbcSink::StageTableSql() const {
  return absl::StrCat("CREATE TEMP TABLE IF NOT EXISTS ", kStageTable, " (LIKE ",
                      QuoteIdentifier(config_.table), " INCLUDING DEFAULTS) ON COMMIT DELETE ROWS");
}

std::string JdbcSink::UpsertSql() const {
  std::string cols = ColumnList();
  std::string sql = absl::StrCat("INSERT INTO ", QuoteIdentifier(config_.table), " ", cols,
                                 " SELECT ", cols.substr(1, cols.size() - 2), " FROM ",
                                 kStageTable, " ON CONFLICT (");
  for (size_t i = 0; i < config_.unique_keys.size(); ++i) {
    absl::StrAppend(&sql, i ? "," : "", QuoteIdentifier(config_.unique_keys[i]));
  }
  sql.append(") DO ");
  std::vector<std::string> sets;
  for (const std::string& column : column_names_) {
    if (std::find(config_.unique_keys.begin(), config_.unique_keys.end(), column) !=
        config_.unique_keys.end()) {
      continue;
    }
    std::string q = QuoteIdentifier(column);
    sets.push_back(absl::StrCat(q, "=EXCLUDED.", q));
  }
  if (sets.empty()) {
    sql.append("NOTHING");
  } else {
    absl::StrAppend(&sql, "UPDATE SET ", absl::StrJoin(sets, ","));
  }
  return sql;
}

JdbcSink::WriteOutcome JdbcSink::Write(const std::vector<size_t>& rows) {
  WriteOutcome out;
  // COPY text format: one line per row, tab-separated, \N for NULL.
  std::string data;
  const size_t ncols = column_names_.size();
  data.reserve(rows.size() * ncols * 16);
  for (size_t r : rows) {
    for (size_t c = 0; c < ncols; ++c) {
      if (c) data.push_back('\t');
      AppendCopyField(values_[r * ncols + c], &data);
    }
    data.push_back('\n');
  }
  auto check = [&](PGresult* raw) -> bool {
    Result res(raw);
    ExecStatusType st = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_COPY_IN) return true;
    const char* state = res ? PQresultErrorField(res.get(), PG_DIAG_SQLSTATE) : nullptr;
    out.error = absl::StrCat("jdbc sink: ", absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn_)));
    bool connected = PQstatus(conn_) == CONNECTION_OK;
    // Every SQL failure is DEFAULT_ERROR, as Firehose: JdbcSink.java:75
    // executeBatch (or :54 getConnection) throws SQLException, AbstractSink.java:48-53
    // fails the push and Message.java:33-36 types it. SQLSTATE only decides
    // whether the failure is one row's (bisected below) or the batch's.
    out.type = ErrorType::kDefaultError;
    // Data exceptions (22) and integrity violations (23) belong to rows.
    absl::string_view sqlstate = state == nullptr ? "" : state;
    out.row_level = connected && (absl::StartsWith(sqlstate, "22") || absl::StartsWith(sqlstate, "23"));
    return false;
  };
  // `begin` opens the transaction in the same round trip: PQexec stops at
  // the COPY of a multi-statement string.
  auto copy = [&](const std::string& target, bool begin) -> bool {
    if (!check(PQexec(conn_, absl::StrCat(begin ? "BEGIN; " : "", "COPY ", target, " ",
                                          ColumnList(), " FROM STDIN")
                                 .c_str()))) {
      return false;
    }
    if (PQputCopyData(conn_, data.data(), static_cast<int>(data.size())) != 1 ||
        PQputCopyEnd(conn_, nullptr) != 1) {
      out.error = absl::StrCat("jdbc sink: COPY: ", PQerrorMessage(conn_));
      out.type = ErrorType::kDefaultError;
      return false;
    }
    bool ok = true;
    while (PGresult* r = PQgetResult(conn_)) ok = check(r) && ok;
    return ok;
  };
  if (config_.exactly_once) {
    // Into the batch's transaction, under a savepoint: a failed write is
    // undone alone and the transaction stays usable.
    if (!txn_open_) {
      out.ok = check(PQexec(conn_, "BEGIN"));
      if (!out.ok) return out;
      txn_open_ = true;
    }
    const bool upsert = !config_.unique_keys.empty();
    if (upsert && !stage_ready_) {
      // Created inside the transaction: a rollback drops it again.
      stage_ready_ = check(PQexec(
          conn_,
          absl::StrCat("SAVEPOINT sluice_stage; ", StageTableSql(), "; RELEASE SAVEPOINT sluice_stage")
              .c_str()));
      if (!stage_ready_) {
        if (PQstatus(conn_) == CONNECTION_OK) Result r(PQexec(conn_, "ROLLBACK TO SAVEPOINT sluice_stage"));
        return out;
      }
    }
    out.ok = check(PQexec(conn_, "SAVEPOINT sluice_write"));
    out.ok = out.ok && copy(upsert ? std::string(kStageTable) : QuoteIdentifier(config_.table),
                            /*begin=*/false);
    if (out.ok && upsert) {
      out.ok =
          check(PQexec(conn_, absl::StrCat(UpsertSql(), "; DELETE FROM ", kStageTable).c_str()));
    }
    out.ok = out.ok && check(PQexec(conn_, "RELEASE SAVEPOINT sluice_write"));
    if (!out.ok && PQstatus(conn_) == CONNECTION_OK) {
      Result r(PQexec(conn_, "ROLLBACK TO SAVEPOINT sluice_write"));
    }
  } else if (config_.unique_keys.empty()) {
    // One COPY statement is atomic: the rows land entirely or not at all.
    out.ok = copy(QuoteIdentifier(config_.table), /*begin=*/false);
  } else {
    // Upsert: COPY into a per-connection temp table, then one
    // INSERT ... SELECT ... ON CONFLICT, in one transaction.
    out.ok = true;
    if (!stage_ready_) {
      out.ok = check(PQexec(conn_, StageTableSql().c_str()));
      stage_ready_ = out.ok;
    }
    out.ok = out.ok && copy(kStageTable, /*begin=*/true);
    out.ok = out.ok && check(PQexec(conn_, absl::StrCat(UpsertSql(), "; COMMIT").c_str()));
    if (!out.ok && PQstatus(conn_) == CONNECTION_OK) Result r(PQexec(conn_, "ROLLBACK"));
  }
  return out;
}

void JdbcSink::Isolate(std::vector<size_t> rows, WriteOutcome failure, int* budget,
                       std::vector<int>* row_failure, std::vector<WriteOutcome>* failures) {
  if (rows.size() == 1 || *budget <= 0 || !failure.row_level) {
    failures->push_back(std::move(failure));
    for (size_t r : rows) (*row_failure)[r] = static_cast<int>(failures->size()) - 1;
    return;
  }
  std::vector<size_t> right(rows.begin() + rows.size() / 2, rows.end());
  rows.resize(rows.size() / 2);
  for (std::vector<size_t>* half : {&rows, &right}) {
    --*budget;
    WriteOutcome o = Write(*half);
    if (!o.ok) Isolate(std::move(*half), std::move(o), budget, row_failure, failures);
  }
}

std::vector<FailedMessage> JdbcSink::Execute() {
  std::vector<FailedMessage> failed;
  auto done = [&] {
    values_.clear();
    messages_.clear();
    message_rows_.clear();
    rows_ = 0;
    return failed;
  };
  if (rows_ == 0) return done();
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    absl::Status s = Connect();
    if (!s.ok()) {
      for (Message& m : messages_) {
        failed.push_back(
            FailedMessage{std::move(m), ErrorType::kDefaultError, std::string(s.message())});
      }
      return done();
    }
  }
  std::vector<size_t> all(rows_);
  for (size_t r = 0; r < rows_; ++r) all[r] = r;
  WriteOutcome first = Write(all);
  if (!first.ok) {
    // A data or constraint error names no row: bisect the batch so that the
    // other rows are written and only the rows at fault fail (one bad row of
    // n costs about 2*log2(n) more statements; kIsolationBudget bounds it).
    std::vector<int> row_failure(rows_, -1);  // index into failures
    std::vector<WriteOutcome> failures;
    int budget = kIsolationBudget;
    Isolate(std::move(all), std::move(first), &budget, &row_failure, &failures);
    for (size_t i = 0; i < messages_.size(); ++i) {
      int f = row_failure[message_rows_[i]];
      if (f >= 0) failed.push_back(FailedMessage{std::move(messages_[i]), failures[f].type, failures[f].error});
    }
    if (PQstatus(conn_) != CONNECTION_OK) {
      PQfinish(conn_);
      conn_ = nullptr;  // reconnect on the next batch
    }
  }
  return done();
}

absl::Status JdbcSink::EnsureConnected() {
  if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK) return absl::OkStatus();
  return Connect();
}

absl::StatusOr<std::vector<PartitionOffset>> JdbcSink::Load(
    const std::vector<TopicPartition>& partitions) {
  if (absl::Status s = EnsureConnected(); !s.ok()) return s;
  auto stored = ReadOffsets(conn_, config_.offsets_table, config_.group, partitions);
  if (!stored.ok()) return stored.status();
  for (const TopicPartition& tp : partitions) known_[tp] = -1;
  for (const PartitionOffset& o : *stored) known_[o.tp] = o.offset;
  return stored;
}

absl::Status JdbcSink::Commit(const std::vector<PartitionOffset>& offsets) {
  absl::Status s = EnsureConnected();
  if (s.ok() && txn_broken_) {
    s = absl::UnavailableError(
        "jdbc sink: the connection was lost while the batch's transaction was open: its rows "
        "are gone, nothing of it is committed");
  }
  for (const PartitionOffset& o : offsets) {
    if (s.ok() && known_.count(o.tp) == 0) {
      s = absl::FailedPreconditionError(absl::StrCat(
          "jdbc sink: no stored offset was loaded for ", o.tp.topic, "-", o.tp.partition));
    }
  }
  if (s.ok() && !txn_open_) {
    // A batch that wrote no row (all filtered, dead-lettered or dropped).
    Result r(PQexec(conn_, "BEGIN"));
    if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      s = absl::UnavailableError(absl::StrCat("jdbc sink: BEGIN: ", PQerrorMessage(conn_)));
    }
    txn_open_ = true;
  }
  for (const PartitionOffset& o : offsets) {
    if (!s.ok()) break;
    const int64_t expected = known_[o.tp];
    if (expected == o.offset) continue;
    s = WriteOffset(conn_, config_.offsets_table, config_.group, o, expected);
  }
  if (!s.ok()) {
    Rollback();
    return s;
  }
  Result r(PQexec(conn_, "COMMIT"));
  txn_open_ = false;
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
    // Its answer lost with the connection, a COMMIT may or may not have
    // happened: the caller reads the stored offsets back.
    s = absl::UnavailableError(absl::StrCat(
        "jdbc sink: COMMIT of the batch and its offsets: ",
        absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn_))));
    if (PQstatus(conn_) != CONNECTION_OK) {
      PQfinish(conn_);
      conn_ = nullptr;
    }
    for (const PartitionOffset& o : offsets) known_.erase(o.tp);
    return s;
  }
  for (const PartitionOffset& o : offsets) known_[o.tp] = o.offset;
  return absl::OkStatus();
}

void JdbcSink::Rollback() {
  if (txn_open_ && conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK) {
    Result r(PQexec(conn_, "ROLLBACK"));
  }
  txn_open_ = false;
  txn_broken_ = false;
}

void JdbcSink::Forget(const std::vector<TopicPartition>& partitions) {
  for (const TopicPartition& tp : partitions) known_.erase(tp);
}

}  // namespace sluice::sink
