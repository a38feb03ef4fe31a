#include "sink/sinks/jdbc/jdbc_offsets.h"

#include <libpq-fe.h>

#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "sink/sinks/jdbc/jdbc_sink.h"

namespace sluice::sink {
namespace {

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

std::string Sqlstate(const PGresult* r) {
  const char* s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  return s ? s : "";
}

absl::Status DbError(PGconn* conn, absl::string_view what) {
  return absl::UnavailableError(
      absl::StrCat("jdbc sink: ", what, " (SINK_JDBC_OFFSETS_TABLE_NAME): ",
                   absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn))));
}

}  // namespace

absl::Status EnsureOffsetsTable(PGconn* conn, absl::string_view table) {
  const std::string sql = absl::StrCat(
      "CREATE TABLE IF NOT EXISTS ", QuoteIdentifier(table),
      " (consumer_group text NOT NULL, topic text NOT NULL, partition integer NOT NULL, "
      "next_offset bigint NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), "
      "PRIMARY KEY (consumer_group, topic, partition))");
  // Looked up first: CREATE ... IF NOT EXISTS of an existing table sends a
  // NOTICE, which libpq prints on stderr at every start.
  const std::string name(table);
  const char* params[] = {name.c_str()};
  Result found(PQexecParams(conn, "SELECT to_regclass($1) IS NOT NULL", 1, nullptr, params,
                            nullptr, nullptr, 0));
  if (found && PQresultStatus(found.get()) == PGRES_TUPLES_OK && PQntuples(found.get()) == 1 &&
      std::string(PQgetvalue(found.get(), 0, 0)) == "t") {
    return absl::OkStatus();
  }
  Result r(PQexec(conn, sql.c_str()));
  if (r && PQresultStatus(r.get()) == PGRES_COMMAND_OK) return absl::OkStatus();
  // Two members creating it at once: the loser sees the catalog's unique
  // violation (23505) or "already exists" (42P07); the table is there.
  const std::string state = Sqlstate(r.get());
  if (state == "23505" || state == "42P07") return absl::OkStatus();
  return DbError(conn, absl::StrCat("creating the offsets table ", table));
}

absl::StatusOr<std::vector<PartitionOffset>> ReadOffsets(
    PGconn* conn, absl::string_view table, absl::string_view group,
    const std::vector<TopicPartition>& partitions) {
  std::vector<PartitionOffset> out;
  const std::string sql = absl::StrCat("SELECT next_offset FROM ", QuoteIdentifier(table),
                                       " WHERE consumer_group = $1 AND topic = $2 AND "
                                       "partition = $3");
  const std::string g(group);
  for (const TopicPartition& tp : partitions) {
    const std::string part = absl::StrCat(tp.partition);
    const char* params[] = {g.c_str(), tp.topic.c_str(), part.c_str()};
    Result r(PQexecParams(conn, sql.c_str(), 3, nullptr, params, nullptr, nullptr, 0));
    if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
      return DbError(conn, absl::StrCat("reading stored offsets from ", table));
    }
    if (PQntuples(r.get()) == 0) continue;
    int64_t next = 0;
    if (!absl::SimpleAtoi(PQgetvalue(r.get(), 0, 0), &next)) {
      return absl::DataLossError(absl::StrCat("jdbc sink: ", table, " holds a bad next_offset"));
    }
    out.push_back({tp, next});
  }
  return out;
}

absl::Status WriteOffset(PGconn* conn, absl::string_view table, absl::string_view group,
                         const PartitionOffset& o, int64_t expected) {
  const std::string g(group);
  const std::string part = absl::StrCat(o.tp.partition);
  const std::string next = absl::StrCat(o.offset);
  const std::string want = absl::StrCat(expected);
  // A compare-and-set: under READ COMMITTED an UPDATE that waited for a
  // concurrent writer re-checks its WHERE against the committed row, and an
  // INSERT ... ON CONFLICT DO NOTHING inserts nothing when the row appeared;
  // either way exactly one of two writers of a partition succeeds.
  std::string sql;
  std::vector<const char*> params = {g.c_str(), o.tp.topic.c_str(), part.c_str(), next.c_str()};
  if (expected < 0) {
    sql = absl::StrCat("INSERT INTO ", QuoteIdentifier(table),
                       " (consumer_group, topic, partition, next_offset) VALUES ($1, $2, $3, $4)"
                       " ON CONFLICT DO NOTHING");
  } else {
    sql = absl::StrCat("UPDATE ", QuoteIdentifier(table),
                       " SET next_offset = $4, updated_at = now() WHERE consumer_group = $1 AND "
                       "topic = $2 AND partition = $3 AND next_offset = $5");
    params.push_back(want.c_str());
  }
  Result r(PQexecParams(conn, sql.c_str(), static_cast<int>(params.size()), nullptr,
                        params.data(), nullptr, nullptr, 0));
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
    return DbError(conn, absl::StrCat("storing the offset of ", o.tp.topic, "-", o.tp.partition));
  }
  if (std::string(PQcmdTuples(r.get())) != "1") {
    return absl::AbortedError(absl::StrCat(
        "jdbc sink: the stored offset of ", o.tp.topic, "-", o.tp.partition, " for group ", group,
        " is no longer ", expected < 0 ? std::string("absent") : want,
        ": another member committed it (the partition moved)"));
  }
  return absl::OkStatus();
}

}  // namespace sluice::sink
