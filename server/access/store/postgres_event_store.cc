#include "server/access/store/postgres_event_store.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "common/trace/trace_context.h"
#include "server/access/store/pg_exec.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {
namespace {

std::string MicrosParam(absl::Time t) { return absl::StrCat(absl::ToUnixMicros(t)); }

// SQL for a text parameter holding microseconds since the epoch.
std::string AtMicros(const std::string& param) {
  return absl::StrCat("to_timestamp(CAST(", param, " AS bigint) / 1000000.0)");
}

}  // namespace

int InsertAccessEvents(soci::session& sql, const std::vector<AccessEvent>& events) {
  if (events.empty()) return 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const AccessEvent& e : events) {
    rows.push_back({{"id", e.id}, {"type", e.type}, {"payload", ToPayload(e)}});
  }
  PgRows inserted = PgExecPrepared(
      sql, "sluice_access_insert_events_v2",
      "INSERT INTO access_events (id, type, payload, traceparent) SELECT x.id, x.type, "
      "x.payload, NULLIF($2, '') "
      "FROM jsonb_to_recordset(CAST($1 AS jsonb)) AS x(id text, type text, payload jsonb) "
      "ON CONFLICT (id) DO NOTHING RETURNING 1",
      {rows.dump(), trace::CurrentTraceparent()});
  return static_cast<int>(inserted.size());
}

absl::StatusOr<int> PostgresAccessEventStore::Insert(const std::vector<AccessEvent>& events) {
  int inserted = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    inserted = InsertAccessEvents(sql, events);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return inserted;
}

absl::StatusOr<std::vector<ClaimedEvent>> PostgresAccessEventStore::Claim(int limit,
                                                                         absl::Duration lease) {
  std::vector<ClaimedEvent> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    // Autocommit: the row locks last for this statement only; the lease
    // (next_attempt_at in the future) keeps other replicas off afterwards.
    PgRows rows = PgExecPrepared(
        sql, "sluice_access_claim_events_v2",
        "UPDATE access_events e SET attempts = e.attempts + 1, next_attempt_at = now() + "
        "CAST($2 AS bigint) * interval '1 microsecond' FROM (SELECT id FROM access_events "
        "WHERE done_at IS NULL AND next_attempt_at <= now() ORDER BY next_attempt_at "
        "LIMIT CAST($1 AS int) FOR UPDATE SKIP LOCKED) c WHERE e.id = c.id "
        "RETURNING e.id, e.type, e.payload::text, e.attempts, COALESCE(e.traceparent, '')",
        {absl::StrCat(limit), absl::StrCat(absl::ToInt64Microseconds(lease))});
    for (const auto& r : rows) {
      ClaimedEvent c;
      c.event = FromPayload(r.get<std::string>(0), r.get<std::string>(1),
                            nlohmann::json::parse(r.get<std::string>(2), nullptr, false));
      c.attempts = r.get<int>(3);
      c.traceparent = r.get<std::string>(4);
      out.push_back(std::move(c));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status PostgresAccessEventStore::Settle(const std::vector<Settlement>& settlements) {
  if (settlements.empty()) return absl::OkStatus();
  nlohmann::json rows = nlohmann::json::array();
  for (const Settlement& s : settlements) {
    rows.push_back({{"id", s.id},
                    {"outcome", s.outcome},
                    {"delay_us", absl::ToInt64Microseconds(s.delay)},
                    {"error", s.error}});
  }
  return pool_->Run([&](soci::session& sql) -> absl::Status {
    // A retry never reopens an event another claim settled meanwhile.
    PgExecPrepared(
        sql, "sluice_access_settle_events",
        "UPDATE access_events e SET outcome = NULLIF(x.outcome, ''), done_at = CASE WHEN "
        "x.outcome = '' THEN NULL ELSE now() END, next_attempt_at = CASE WHEN x.outcome = '' "
        "THEN now() + x.delay_us * interval '1 microsecond' ELSE e.next_attempt_at END, "
        "last_error = x.error FROM jsonb_to_recordset(CAST($1 AS jsonb)) AS x(id text, outcome "
        "text, delay_us bigint, error text) WHERE e.id = x.id AND e.done_at IS NULL",
        {rows.dump()});
    return absl::OkStatus();
  });
}

absl::StatusOr<int> PostgresAccessEventStore::Prune(absl::Time before) {
  int deleted = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    PgRows rows = PgExec(sql,
                         absl::StrCat("DELETE FROM access_events WHERE done_at < ",
                                      AtMicros("$1"), " RETURNING 1"),
                         {MicrosParam(before)});
    deleted = static_cast<int>(rows.size());
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return deleted;
}

absl::StatusOr<std::vector<pb::Grant>> PostgresAccessEventStore::ExpiringGrants(absl::Time now,
                                                                               absl::Time until,
                                                                               int limit) {
  std::vector<pb::Grant> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    q.Where("g.status = 'active' AND NOT g.is_permanent");
    q.Where(absl::StrCat("g.expiration_date > ", AtMicros(q.Param(MicrosParam(now)))));
    q.Where(absl::StrCat("g.expiration_date <= ", AtMicros(q.Param(MicrosParam(until)))));
    for (const auto& r :
         q.Rows(sql, absl::StrCat("SELECT ", GrantCols(), ", ", kResourceCols,
                                  " FROM grants g JOIN resources r ON r.id = g.resource_id",
                                  q.WhereClause(), " ORDER BY g.expiration_date LIMIT ", limit))) {
      pb::Grant g = GrantFromRow(r);
      *g.mutable_resource() = ResourceFromRow(r, kGrantColCount);
      out.push_back(std::move(g));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<pb::Appeal>> PostgresAccessEventStore::PendingAppeals(
    absl::Time created_before, int limit) {
  std::vector<pb::Appeal> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    q.Where("a.status = 'pending'");
    q.Where(absl::StrCat("a.created_at < ", AtMicros(q.Param(MicrosParam(created_before)))));
    std::map<std::string, size_t> index;
    for (const auto& r :
         q.Rows(sql, absl::StrCat("SELECT ", AppealCols(), ", ", kResourceCols,
                                  " FROM appeals a JOIN resources r ON r.id = a.resource_id",
                                  q.WhereClause(), " ORDER BY a.created_at LIMIT ", limit))) {
      pb::Appeal a = AppealFromRow(r);
      *a.mutable_resource() = ResourceFromRow(r, kAppealColCount);
      index[a.id()] = out.size();
      out.push_back(std::move(a));
    }
    if (out.empty()) return absl::OkStatus();
    std::vector<std::string> ids;
    for (const auto& [id, i] : index) ids.push_back(id);
    Query p;
    // The ids are the appeals' own (uuid): cast the array, not the column,
    // so that approvals_current_step_idx (appeal_id, step_index) is used.
    p.Where(absl::StrCat("p.appeal_id = ANY(CAST(", p.ArrayParam(ids), " AS uuid[]))"));
    p.Where("NOT p.is_stale");
    for (const auto& r : p.Rows(sql, absl::StrCat("SELECT ", ApprovalCols(), " FROM approvals p",
                                                  p.WhereClause(),
                                                  " ORDER BY p.appeal_id, p.step_index"))) {
      pb::Approval ap = ApprovalFromRow(r);
      *out[index[ap.appeal_id()]].add_approvals() = std::move(ap);
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace sluice::access
