// Row codecs shared by the access repositories: a text-parameter query
// builder, column lists with their decoders (appeal, approval, grant,
// resource), and timestamp/JSON conversions between Postgres and protos.
#ifndef SLUICE_SERVER_ACCESS_STORE_SQL_ROWS_H_
#define SLUICE_SERVER_ACCESS_STORE_SQL_ROWS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/db/audit.h"
#include "google/protobuf/timestamp.pb.h"
#include "server/access/core/json.h"
#include "server/access/core/appeal_repositories.h"
#include "server/access/store/pg_exec.h"

namespace sluice::access {

// Appends `entry` to audit_logs inside the caller's statement or
// transaction (so the change and its audit row commit together).
inline void WriteAudit(soci::session& sql, const AuditEntry& entry) {
  db::WriteAuditLog(sql, entry.action, entry.actor, entry.data);
}

// A query whose parameters are all text, $1..$n (SQL built from fixed
// fragments; every value is bound, never spliced). Runs in one round trip.
class Query {
 public:
  std::string Param(std::string value) {
    values_.push_back(std::move(value));
    return absl::StrCat("$", values_.size());
  }
  // A text[] parameter.
  std::string ArrayParam(const std::vector<std::string>& values) {
    std::string lit = "{";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) lit += ",";
      lit += "\"";
      for (char c : values[i]) {
        if (c == '"' || c == '\\') lit += '\\';
        lit += c;
      }
      lit += "\"";
    }
    lit += "}";
    return absl::StrCat("CAST(", Param(lit), " AS text[])");
  }
  void Where(const std::string& cond) { where_.push_back(cond); }
  // `col = ANY(values)` when values is non-empty; `col = value` for one
  // value, the same rows: PostgreSQL takes an equality, not `= ANY`, as
  // fixing the column, so an index on (col, order column) yields the
  // ORDER BY without a sort (e.g. an admin's `statuses=pending` list).
  void In(const std::string& col, const std::vector<std::string>& values) {
    if (values.size() == 1) {
      Where(absl::StrCat(col, " = ", Param(values[0])));
    } else if (!values.empty()) {
      Where(absl::StrCat(col, " = ANY(", ArrayParam(values), ")"));
    }
  }
  void Eq(const std::string& col, const std::string& value) {
    if (!value.empty()) Where(absl::StrCat(col, " = ", Param(value)));
  }
  // Guardian's applyLikeAndInFilter on `col`: the positive matchers of `m`
  // and `col = ANY(in)` ORed, the negative ones ANDed. Matchers are LIKE
  // patterns with the value's own % _ \ escaped (matched literally).
  void Match(const std::string& col, const StringMatch& m, const std::vector<std::string>& in);
  // `col` within `r` (inclusive ends; 0 = unbounded), as microseconds.
  void Within(const std::string& col, const TimeRange& r);
  std::string WhereClause() const {
    return where_.empty() ? "" : absl::StrCat(" WHERE ", absl::StrJoin(where_, " AND "));
  }
  PgRows Rows(soci::session& sql, const std::string& text) const {
    return PgExec(sql, text, values_);
  }
  long long Count(soci::session& sql, const std::string& text) const {
    PgRows rows = PgExec(sql, text, values_);
    return rows.size() == 0 ? 0 : rows[0].get<long long>(0);
  }

 private:
  std::vector<std::string> values_, where_;
};

// Matches counted exactly before `total` becomes an estimate.
inline constexpr int kExactTotalLimit = 10000;

// The `total` of a list: the exact number of rows of "SELECT 1 <from>
// <q's WHERE>" when at most kExactTotalLimit; beyond that PostgreSQL's
// planner estimate for the same query, but never below kExactTotalLimit + 1.
// Counting a million matches exactly costs more than listing a page of them.
long long CappedCount(soci::session& sql, const Query& q, const std::string& from);

// The `total` of a page of `rows` rows read with LIMIT `size` OFFSET
// `offset`: offset + rows when the page is short (every match from offset on
// is on it) and that is within kExactTotalLimit, which is what CappedCount
// would count, without the count's round trips (a non-admin's lists are
// short pages); CappedCount(sql, q, from) otherwise (a full page, or a
// short page past the rows, which says nothing of how many there are).
long long PageTotal(soci::session& sql, const Query& q, const std::string& from, int rows,
                    long long size, long long offset);

// Column lists (SELECT fragments) with their counts, and the decoders that
// read a row starting at column `o`. Counts let a query join several lists.
const std::string& AppealCols();  // aliases: appeals a
constexpr int kAppealColCount = 15;
pb::Appeal AppealFromRow(const PgRows::Row& r, int o = 0);

const std::string& ApprovalCols();  // aliases: approvals p
constexpr int kApprovalColCount = 14;
pb::Approval ApprovalFromRow(const PgRows::Row& r, int o = 0);

const std::string& GrantCols();  // aliases: grants g
constexpr int kGrantColCount = 26;
pb::Grant GrantFromRow(const PgRows::Row& r, int o = 0);

// A resource (alias r), on its own or joined to an appeal or grant.
constexpr char kResourceCols[] =
    "r.id::text, r.provider_type, r.provider_urn, r.type, r.urn, r.name, r.details::text, "
    "r.labels::text, r.is_deleted::int, (extract(epoch from r.created_at) * 1000000)::bigint, "
    "(extract(epoch from r.updated_at) * 1000000)::bigint";
constexpr int kResourceColCount = 11;
pb::Resource ResourceFromRow(const PgRows::Row& row, int o = 0);

// Inserts appeal->approvals(first..) as its steps `first`.. of the appeal's
// current revision (with their details), assigning their ids and
// timestamps; throws the driver's error (postgres_appeal_routes.cc; used by
// PatchAppeal and AddApprovalStep).
void InsertApprovalRows(soci::session& sql, pb::Appeal* appeal, int first);

// The approvals of `appeal_ids`, grouped by appeal id, in step order.
std::map<std::string, std::vector<pb::Approval>> LoadApprovals(
    soci::session& sql, const std::vector<std::string>& appeal_ids);

// The latest grant of each of `appeal_ids`.
std::map<std::string, pb::Grant> LoadGrants(soci::session& sql,
                                            const std::vector<std::string>& appeal_ids);

// " ORDER BY <prefix><col> ASC|DESC, ..., <fallback> [DESC]" (the
// fallback, a unique column, in the last column's direction). Columns must
// come from an allow-list: they are spliced, not bound.
std::string OrderClause(const std::vector<std::pair<std::string, bool>>& order,
                        const std::string& prefix, const std::string& fallback);

// `order_clause` (from OrderClause) with `prefix` ("<expr>, ") put first.
inline std::string WithPrefix(const std::string& prefix, const std::string& order_clause) {
  if (prefix.empty()) return order_clause;
  return absl::StrCat(" ORDER BY ", prefix, order_clause.substr(10));  // after " ORDER BY "
}

// Timestamp from microseconds since the epoch.
google::protobuf::Timestamp FromMicros(long long micros);

// Microseconds since the epoch of `ts` (0 for an unset timestamp).
long long ToMicros(const google::protobuf::Timestamp& ts);

// SQL reading timestamptz column `col` as microseconds (-1 when NULL).
std::string Micros(const std::string& col);

// A text parameter for a timestamp in microseconds; "" (bound as NULL) when unset.
std::string TsParam(const google::protobuf::Timestamp& ts);

// The string elements of JSON array text (anything else is skipped).
std::vector<std::string> JsonStrings(const std::string& text);

// `values` as JSON array text.
std::string JsonArray(const google::protobuf::RepeatedPtrField<std::string>& values);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_SQL_ROWS_H_
