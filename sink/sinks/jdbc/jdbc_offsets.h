// The offsets table of SINK_JDBC_EXACTLY_ONCE_ENABLE (sluice; no Firehose
// counterpart): one row per (consumer group, topic, partition) holding the
// next offset to read, written in the same transaction as the rows of the
// batch that consumed up to it (jdbc_sink.h). SQL over a libpq connection;
// the table name is SINK_JDBC_OFFSETS_TABLE_NAME (default
// sluice_sink_offsets, may be schema-qualified).
#ifndef SLUICE_SINK_SINKS_JDBC_JDBC_OFFSETS_H_
#define SLUICE_SINK_SINKS_JDBC_JDBC_OFFSETS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sink/source/consumer.h"

typedef struct pg_conn PGconn;

namespace sluice::sink {

// The default of SINK_JDBC_OFFSETS_TABLE_NAME.
inline constexpr char kDefaultOffsetsTable[] = "sluice_sink_offsets";

// Creates `table` when missing: (consumer_group text, topic text,
// partition integer, next_offset bigint, updated_at timestamptz), primary
// key (consumer_group, topic, partition). Two members creating it at once
// is not an error. Unavailable naming SINK_JDBC_OFFSETS_TABLE_NAME otherwise.
absl::Status EnsureOffsetsTable(PGconn* conn, absl::string_view table);

// The stored next offsets of `partitions` for `group` (absent: none stored).
// Unavailable on any database error.
absl::StatusOr<std::vector<PartitionOffset>> ReadOffsets(
    PGconn* conn, absl::string_view table, absl::string_view group,
    const std::vector<TopicPartition>& partitions);

// Inside an open transaction: sets the stored offset of `o.tp` to `o.offset`
// provided it still is `expected` (-1: no row yet, which inserts it).
// Aborted when another writer changed it (or inserted it) first;
// Unavailable on a database error (the transaction is then aborted).
absl::Status WriteOffset(PGconn* conn, absl::string_view table, absl::string_view group,
                         const PartitionOffset& o, int64_t expected);

}  // namespace sluice::sink

#endif  // SLUICE_SINK_SINKS_JDBC_JDBC_OFFSETS_H_
