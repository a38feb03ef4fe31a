// SINK_TYPE=jdbc: writes each batch into a PostgreSQL table (Firehose's JDBC
// sink, firehose: sink/jdbc) through libpq. Columns come from
// INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING (protobuf input) or
// INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING (INPUT_SCHEMA_DATA_TYPE=json). A batch is ONE `COPY ... FROM STDIN`
// (atomic by itself); with SINK_JDBC_UNIQUE_KEYS it is one transaction of a
// COPY into a per-connection temp table and one
// `INSERT ... SELECT ... ON CONFLICT (keys) DO UPDATE`. Values go in as text
// and PostgreSQL converts them to the column types.
//
// SINK_JDBC_EXACTLY_ONCE_ENABLE=true (sluice): every write of a batch goes
// into one open transaction (each write under a savepoint, so a failed one
// leaves the others), which the worker commits together with the batch's
// offsets (OffsetStore::Commit) into SINK_JDBC_OFFSETS_TABLE_NAME.
#ifndef SLUICE_SINK_SINKS_JDBC_JDBC_SINK_H_
#define SLUICE_SINK_SINKS_JDBC_JDBC_SINK_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"
#include "sink/message.h"
#include "sink/metrics.h"
#include "sink/sinks/common/proto_values.h"
#include "sink/sinks/common/record_fields.h"
#include "sink/sinks/sink_context.h"
#include "sink/source/offset_store.h"

typedef struct pg_conn PGconn;

namespace sluice::sink {

// Parsed SINK_JDBC_* configuration.
struct JdbcSinkConfig {
  // libpq connection string: Firehose's `jdbc:postgresql://host:port/db?k=v`
  // becomes the URI `postgresql://host:port/db?k=v`; a libpq DSN
  // (`host=... dbname=...`) or a `postgresql://` URI is used as is.
  std::string conninfo;
  std::string user;        // SINK_JDBC_USERNAME (optional; overrides the URL's)
  std::string password;    // SINK_JDBC_PASSWORD (optional)
  std::string table;       // SINK_JDBC_TABLE_NAME, may be schema-qualified ("s.t")
  std::vector<std::string> unique_keys;  // SINK_JDBC_UNIQUE_KEYS, columns
  int pool_max_size = 10;  // SINK_JDBC_CONNECTION_POOL_MAX_SIZE (see JdbcSink)
  // SINK_JDBC_CONNECTION_POOL_TIMEOUT_MS (Firehose's name and default): how
  // long connecting may take, sent as libpq connect_timeout in whole seconds
  // (rounded up; libpq waits at least 2 s). A connect_timeout in
  // SINK_JDBC_URL wins.
  int64_t connect_timeout_ms = 1000;
  // SINK_JDBC_STATEMENT_TIMEOUT_MS (sluice; 0 = none): `SET statement_timeout`
  // on each connection, so that a write blocked on a lock or a stuck server
  // fails (SQLSTATE 57014 -> SINK_RETRYABLE_ERROR) instead of holding the
  // worker forever (review M4).
  int64_t statement_timeout_ms = 60000;
  std::vector<ColumnMapping> columns;    // INPUT_SCHEMA_PROTO_TO_COLUMN_MAPPING
  // INPUT_SCHEMA_PROTO_CLASS, copied out of the registry (see OwnedDescriptor).
  std::shared_ptr<const OwnedDescriptor> descriptor;
  // INPUT_SCHEMA_DATA_TYPE=json: rows come from Message::json through
  // INPUT_SCHEMA_JSON_TO_COLUMN_MAPPING (sluice; Firehose's JDBC sink reads
  // protobuf only).
  bool json_input = false;
  std::vector<NamedField> json_columns;
  // SINK_JDBC_EXACTLY_ONCE_ENABLE (sluice, default false): rows and offsets
  // commit in one transaction (see above).
  bool exactly_once = false;
  // SINK_JDBC_OFFSETS_TABLE_NAME (sluice, default sluice_sink_offsets): the
  // offsets table, created when missing; read only with exactly_once.
  std::string offsets_table;
  // SOURCE_KAFKA_CONSUMER_GROUP_ID: the offsets' consumer group (exactly_once).
  std::string group;

  // The mapped column names in row order, for either input.
  std::vector<std::string> ColumnNames() const;

  // InvalidArgument naming the variable when one is missing or malformed
  // (including a unique key that is not a mapped column).
  static absl::StatusOr<JdbcSinkConfig> FromEnv(const Env& env, const SinkContext& ctx);
};

// Converts SINK_JDBC_URL to a libpq connection string (see `conninfo`).
std::string JdbcUrlToConninfo(absl::string_view url);

// Quotes a (possibly schema-qualified) SQL identifier: a.b -> "a"."b",
// doubling embedded quotes.
std::string QuoteIdentifier(absl::string_view name);

// The sink. Each instance holds one connection: a sink is used by one worker
// thread at a time, so one connection per worker is the pool
// (SINK_JDBC_CONNECTION_POOL_MAX_SIZE is validated and bounds nothing more).
class JdbcSink : public TwoStageSink, public OffsetStore {
 public:
  using Config = JdbcSinkConfig;  // for CreateFromContext<JdbcSink>
  // Connects (and, with exactly_once, creates the offsets table when
  // missing); Unavailable when the database cannot be reached.
  static absl::StatusOr<std::unique_ptr<JdbcSink>> Create(JdbcSinkConfig config, Metrics* metrics);
  ~JdbcSink() override;

  // Renders each message's row. A message with no decoded protobuf (or JSON,
  // for json input), or whose type lacks a mapped nested path, fails with
  // INVALID_MESSAGE_ERROR; a JSON member that is missing or null is NULL. Rows with equal unique keys keep the last one, as
  // per-row upserts in offset order would.
  std::vector<FailedMessage> Prepare(const std::vector<Message>& batch) override;
  // Writes the rows in one transaction. On a data or constraint error
  // (SQLSTATE classes 22, 23), which names no row, the batch is bisected
  // (at most kIsolationBudget more writes) so that the other rows are written
  // and only the messages of the rows at fault fail, as SINK_4XX_ERROR: a
  // poison row no longer sends its whole batch to the DLQ (Firehose fails
  // the batch). Other errors fail every prepared message:
  // SINK_RETRYABLE_ERROR for a lost connection (reconnected on the next
  // batch), serialization failures and resource errors; SINK_4XX_ERROR for
  // schema errors (class 42); SINK_5XX_ERROR otherwise.
  std::vector<FailedMessage> Execute() override;
  // Most extra writes one batch spends finding its bad rows; rows still
  // undecided then fail with the error of their group.
  static constexpr int kIsolationBudget = 64;
  absl::string_view Name() const override { return "jdbc"; }

  // OffsetStore (exactly_once; see offset_store.h for the contract). Load
  // reads SINK_JDBC_OFFSETS_TABLE_NAME for the configured group; Commit
  // stores the offsets (compare-and-set against what was loaded or last
  // committed) in the transaction holding the rows executed since the last
  // Commit or Rollback, and commits it. A connection lost while that
  // transaction was open makes Commit fail (Unavailable) even when the
  // later writes succeeded on a new connection.
  absl::StatusOr<std::vector<PartitionOffset>> Load(
      const std::vector<TopicPartition>& partitions) override;
  absl::Status Commit(const std::vector<PartitionOffset>& offsets) override;
  void Rollback() override;
  void Forget(const std::vector<TopicPartition>& partitions) override;

 private:
  JdbcSink(JdbcSinkConfig config, Metrics* metrics);
  absl::Status Connect();
  std::string ColumnList() const;  // ("c1","c2",...)
  std::string UpsertSql() const;   // INSERT ... SELECT FROM stage ON CONFLICT ...
  // CREATE TEMP TABLE IF NOT EXISTS <stage> (LIKE <table> ...) ON COMMIT DELETE ROWS
  std::string StageTableSql() const;
  // Fills `row` (one value per column) from a decoded protobuf / a JSON
  // record. InvalidArgument with the reason the message fails.
  absl::Status ProtoRow(const Message& m, std::vector<std::optional<std::string>>* row) const;
  absl::Status JsonRow(const Message& m, std::vector<std::optional<std::string>>* row) const;
  // Result of writing some prepared rows in one statement/transaction.
  struct WriteOutcome {
    bool ok = false;
    ErrorType type = ErrorType::kDefaultError;  // Firehose's only JDBC type
    std::string error;
    bool row_level = false;  // SQLSTATE class 22 or 23 on a live connection
  };
  // Writes rows (indices into the prepared rows) atomically.
  WriteOutcome Write(const std::vector<size_t>& rows);
  // `rows` failed together with `failure`: bisects them (spending `budget`)
  // until every failing row group is found; marks each failing row with the
  // index of its failure in `failures`.
  void Isolate(std::vector<size_t> rows, WriteOutcome failure, int* budget,
               std::vector<int>* row_failure, std::vector<WriteOutcome>* failures);

  JdbcSinkConfig config_;
  std::vector<std::string> column_names_;  // config_.ColumnNames()
  Metrics* metrics_;
  PGconn* conn_ = nullptr;
  bool stage_ready_ = false;  // the upsert temp table exists on conn_
  // exactly_once: BEGIN was sent and neither COMMIT nor ROLLBACK since.
  bool txn_open_ = false;
  // exactly_once: a connection was lost (or replaced) while txn_open_: the
  // rows written before are gone, so the batch must not commit.
  bool txn_broken_ = false;
  // exactly_once: the stored offset each partition's next Commit expects
  // (-1: no row), from Load or the last Commit.
  std::map<TopicPartition, int64_t> known_;
  // Ensures a live connection for the OffsetStore calls.
  absl::Status EnsureConnected();
  // Field-number path of each column, resolved per message against its own
  // descriptor, so that messages decoded with a refreshed schema work.
  std::vector<std::vector<int>> numbers_;
  // Prepared batch: values row-major (nullopt = SQL NULL) and the messages.
  std::vector<std::optional<std::string>> values_;
  std::vector<Message> messages_;
  std::vector<size_t> message_rows_;  // row of each message (equal keys share one)
  size_t rows_ = 0;
};

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_JDBC_JDBC_SINK_H_
