#include "server/access/store/postgres_appeal_repository.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/trace/trace_context.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"
#include "server/access/store/pg_exec.h"
#include "server/access/store/postgres_event_store.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {
namespace {

using soci::use;

std::string AppealData(const pb::Appeal& appeal) {
  pb::Appeal copy = appeal;
  copy.clear_approvals();
  copy.clear_grant();
  copy.clear_resource();
  return ProtoToJsonString(copy);
}

// [{"type", "payload"}, …] of `events` for jsonb_to_recordset.
std::string EventRecords(const std::vector<AccessEvent>& events) {
  nlohmann::json rows = nlohmann::json::array();
  for (const AccessEvent& e : events) rows.push_back({{"type", e.type}, {"payload", ToPayload(e)}});
  return rows.dump();
}

// Advisory-lock class of LockAccess keys ("SLCA"), apart from other locks.
constexpr int32_t kAccessLockClass = 0x534C4341;

class SociTx : public AccessTx {
 public:
  explicit SociTx(soci::session& sql) : sql_(sql) {}

  absl::StatusOr<pb::Appeal> GetAppeal(const std::string& id, bool for_update) override {
    if (!IsUuid(id)) return absl::NotFoundError(absl::StrCat("appeal \"", id, "\" not found"));
    Query q;
    q.Where(absl::StrCat("a.id = CAST(", q.Param(id), " AS uuid)"));
    std::optional<pb::Appeal> found;
    for (const auto& r : q.Rows(sql_, absl::StrCat("SELECT ", AppealCols(), " FROM appeals a",
                                                   q.WhereClause(), for_update ? " FOR UPDATE" : ""))) {
      found = AppealFromRow(r);
    }
    if (!found) return absl::NotFoundError(absl::StrCat("appeal \"", id, "\" not found"));
    auto approvals = LoadApprovals(sql_, {id});
    for (auto& a : approvals[id]) *found->add_approvals() = std::move(a);
    auto grants = LoadGrants(sql_, {id});
    if (grants.count(id)) *found->mutable_grant() = grants[id];
    return *found;
  }

  absl::Status InsertAppeal(pb::Appeal* a) override {
    return Insert(a, nullptr, /*unless_active_grant=*/false).status();
  }

  absl::Status InsertAppealAudited(pb::Appeal* a, AuditEntry audit) override {
    return Insert(a, &audit, /*unless_active_grant=*/false).status();
  }

  absl::StatusOr<bool> InsertAppealUnlessActiveGrant(pb::Appeal* a, AuditEntry audit,
                                                     std::vector<AccessEvent> events) override {
    return Insert(a, &audit, /*unless_active_grant=*/true, events);
  }

  absl::Status InsertEvents(const std::vector<AccessEvent>& events) override {
    if (events.empty()) return absl::OkStatus();
    try {
      InsertAccessEvents(sql_, events);
      return absl::OkStatus();
    } catch (const soci::soci_error& e) {
      return db::FromSociError(e, "insert access events");
    }
  }

  // The appeal, its approvals and (when `audit` is set) its audit_logs row,
  // with data.id = the new appeal's id, in one statement. With
  // `unless_active_grant`, nothing is written (false) when an active grant
  // exists for the appeal's account, resource and role.
  absl::StatusOr<bool> Insert(pb::Appeal* a, const AuditEntry* audit, bool unless_active_grant,
                              const std::vector<AccessEvent>& events = {}) {
    try {
      return InsertOrThrow(a, audit, unless_active_grant, events);
    } catch (const soci::soci_error& e) {
      return db::FromSociError(e, "insert appeal");
    }
  }

  // Insert, throwing the driver's error. `events` (ids empty) go to the
  // outbox in the same statement, keyed "<type>:<new appeal id>".
  bool InsertOrThrow(pb::Appeal* a, const AuditEntry* audit, bool unless_active_grant,
                     const std::vector<AccessEvent>& events = {}) {
    std::string data = AppealData(*a);
    // The appeal and all its approvals in one statement (one round trip on
    // the create path): one result row per approval, or one row with step -1
    // when there are none.
    nlohmann::json rows = nlohmann::json::array();
    for (int i = 0; i < a->approvals_size(); ++i) {
      const pb::Approval& p = a->approvals(i);
      nlohmann::json approvers = nlohmann::json::array();
      for (const auto& e : p.approvers()) approvers.push_back(e);
      rows.push_back({{"step_index", i}, {"name", p.name()}, {"status", p.status()},
                      {"actor", p.actor()}, {"reason", p.reason()}, {"approvers", approvers},
                      {"policy_id", p.policy_id()}, {"policy_version", p.policy_version()}});
    }
    std::string id;
    PgRows inserted = PgExecPrepared(
        sql_, "sluice_access_insert_appeal_v3",
        "WITH a AS (INSERT INTO appeals (resource_id, policy_id, policy_version, status, "
        "account_id, account_type, role, created_by, data) SELECT CAST($1 AS uuid), $2, "
        "CAST($3 AS int), $4, $5, $6, $7, $8, CAST($9 AS jsonb) WHERE $15 <> '1' OR NOT "
        "EXISTS (SELECT 1 FROM grants g WHERE g.status = 'active' AND g.account_id = $5 AND "
        "g.resource_id = CAST($1 AS uuid) AND g.role = $7) RETURNING id), "
        "p AS (INSERT INTO approvals (appeal_id, step_index, name, status, actor, reason, "
        "approvers, policy_id, policy_version) SELECT a.id, x.step_index, x.name, x.status, "
        "x.actor, x.reason, x.approvers, x.policy_id, x.policy_version FROM a, "
        "jsonb_to_recordset(CAST($10 AS jsonb)) AS x(step_index int, name text, status text, "
        "actor text, reason text, approvers jsonb, policy_id text, policy_version int) "
        "RETURNING id, step_index), "
        "l AS (INSERT INTO audit_logs (action, actor, data, trace_id) SELECT $11, $12, "
        "CAST($13 AS jsonb) || jsonb_build_object('id', a.id::text), NULLIF($17, '') FROM a "
        "WHERE $14 = '1'), "
        "o AS (INSERT INTO access_events (id, type, payload, traceparent) SELECT "
        "x.type || ':' || a.id::text, x.type, "
        "jsonb_set(x.payload, '{variables,appeal_id}', to_jsonb(a.id::text)), NULLIF($18, '') "
        "FROM a, "
        "jsonb_to_recordset(CAST($16 AS jsonb)) AS x(type text, payload jsonb) "
        "ON CONFLICT (id) DO NOTHING) "
        "SELECT a.id::text, COALESCE(p.id::text, ''), COALESCE(p.step_index, -1) "
        "FROM a LEFT JOIN p ON true",
        {a->resource_id(), a->policy_id(), absl::StrCat(a->policy_version()), a->status(),
         a->account_id(), a->account_type(), a->role(), a->created_by(), data, rows.dump(),
         audit ? audit->action : "", audit ? audit->actor : "",
         audit ? audit->data.dump() : "{}", audit ? "1" : "0",
         unless_active_grant ? "1" : "0", EventRecords(events), trace::CurrentTraceId(),
         trace::CurrentTraceparent()});
    for (const auto& r : inserted) {
      id = r.get<std::string>(0);
      int i = r.get<int>(2);
      if (i < 0 || i >= a->approvals_size()) continue;
      pb::Approval* p = a->mutable_approvals(i);
      p->set_id(r.get<std::string>(1));
      p->set_appeal_id(id);
      *p->mutable_created_at() = a->created_at();
      *p->mutable_updated_at() = a->created_at();
    }
    if (id.empty()) return false;  // an active grant exists; nothing written
    a->set_id(id);
    return true;
  }

  absl::Status UpdateAppeal(const pb::Appeal& a) override {
    std::string data = AppealData(a), revoked_at = TsParam(a.revoked_at());
    sql_ << "UPDATE appeals SET status = :s, data = CAST(:d AS jsonb), revoked_by = :rb, "
            "revoked_at = to_timestamp(CAST(NULLIF(:ra, '') AS bigint) / 1000000.0), "
            "revoke_reason = :rr, updated_at = now() WHERE id = CAST(:id AS uuid)",
        use(a.status(), "s"), use(data, "d"), use(a.revoked_by(), "rb"), use(revoked_at, "ra"),
        use(a.revoke_reason(), "rr"), use(a.id(), "id");
    for (const auto& p : a.approvals()) {
      std::string approvers = JsonArray(p.approvers());
      sql_ << "UPDATE approvals SET status = :s, actor = :ac, reason = :re, "
              "approvers = CAST(:ap AS jsonb), updated_at = now() WHERE id = CAST(:id AS uuid)",
          use(p.status(), "s"), use(p.actor(), "ac"), use(p.reason(), "re"),
          use(approvers, "ap"), use(p.id(), "id");
    }
    return absl::OkStatus();
  }

  absl::Status ReplaceAppeal(pb::Appeal* a) override {
    try {
      std::string data = AppealData(*a);
      int version = static_cast<int>(a->policy_version());
      sql_ << "UPDATE appeals SET resource_id = CAST(:r AS uuid), policy_id = :pi, "
              "policy_version = :pv, status = :s, account_id = :ai, account_type = :at, "
              "role = :ro, data = CAST(:d AS jsonb), updated_at = now() "
              "WHERE id = CAST(:id AS uuid)",
          use(a->resource_id(), "r"), use(a->policy_id(), "pi"), use(version, "pv"),
          use(a->status(), "s"), use(a->account_id(), "ai"), use(a->account_type(), "at"),
          use(a->role(), "ro"), use(data, "d"), use(a->id(), "id");
      // Guardian keeps the earlier revision's approvals, stale and without
      // approvers (so that they grant no visibility and no action).
      sql_ << "UPDATE approvals SET is_stale = true, approvers = '[]'::jsonb, updated_at = now() "
              "WHERE appeal_id = CAST(:id AS uuid) AND NOT is_stale",
          use(a->id());
      InsertApprovalRows(sql_, a, 0);
      return absl::OkStatus();
    } catch (const std::exception& e) {
      return db::FromSociError(e, "patch appeal");
    }
  }

  absl::Status AppendApprovals(pb::Appeal* a, int first) override {
    try {
      InsertApprovalRows(sql_, a, first);
      return absl::OkStatus();
    } catch (const std::exception& e) {
      return db::FromSociError(e, "add approval steps");
    }
  }

  absl::Status UpdateApprovalDetails(const std::string& approval_id,
                                     const google::protobuf::Struct& details) override {
    try {
      std::string d = StructToJson(details).dump();
      sql_ << "UPDATE approvals SET details = CAST(:d AS jsonb), updated_at = now() "
              "WHERE id = CAST(:id AS uuid)",
          use(d, "d"), use(approval_id, "id");
      return absl::OkStatus();
    } catch (const std::exception& e) {
      return db::FromSociError(e, "update approval step");
    }
  }

  absl::StatusOr<std::optional<pb::Grant>> FindActiveGrant(const std::string& account_id,
                                                           const std::string& resource_id,
                                                           const std::string& role,
                                                           bool for_update) override {
    Query q;
    q.Where("g.status = 'active'");
    q.Eq("g.account_id", account_id);
    q.Where(absl::StrCat("g.resource_id = CAST(", q.Param(resource_id), " AS uuid)"));
    q.Eq("g.role", role);
    std::optional<pb::Grant> out;
    for (const auto& r : q.Rows(sql_, absl::StrCat("SELECT ", GrantCols(), " FROM grants g",
                                                   q.WhereClause(), for_update ? " FOR UPDATE" : ""))) {
      out = GrantFromRow(r);
    }
    return out;
  }

  absl::Status InsertGrant(pb::Grant* g) override {
    std::string perms = JsonArray(g->permissions()), exp = TsParam(g->expiration_date()), id;
    int permanent = g->is_permanent() ? 1 : 0;
    try {
      sql_ << "INSERT INTO grants (status, status_in_provider, account_id, account_type, "
              "resource_id, role, permissions, is_permanent, expiration_date, "
              "expiration_date_reason, appeal_id, source, owner, provider_state) VALUES (:s, :sp, "
              ":ai, :at, CAST(:r AS uuid), :ro, CAST(:pe AS jsonb), :ip = 1, "
              "to_timestamp(CAST(NULLIF(:ex, '') AS bigint) / 1000000.0), :er, "
              "CAST(NULLIF(:ap, '') AS uuid), :so, :ow, :ps) RETURNING id::text",
          use(g->status(), "s"), use(g->status_in_provider(), "sp"), use(g->account_id(), "ai"),
          use(g->account_type(), "at"), use(g->resource_id(), "r"), use(g->role(), "ro"),
          use(perms, "pe"), use(permanent, "ip"), use(exp, "ex"),
          use(g->expiration_date_reason(), "er"), use(g->appeal_id(), "ap"),
          use(g->source(), "so"), use(g->owner(), "ow"), use(g->provider_state(), "ps"),
          soci::into(id);
    } catch (const soci::soci_error& e) {
      return db::FromSociError(e, "insert grant");
    }
    g->set_id(id);
    return absl::OkStatus();
  }

  absl::Status UpdateGrant(const pb::Grant& g) override {
    std::string revoked_at = TsParam(g.revoked_at()), restored_at = TsParam(g.restored_at()),
                exp = TsParam(g.expiration_date());
    int permanent = g.is_permanent() ? 1 : 0;
    sql_ << "UPDATE grants SET status = :s, status_in_provider = :sp, revoked_by = :rb, "
            "revoked_at = to_timestamp(CAST(NULLIF(:ra, '') AS bigint) / 1000000.0), "
            "revoke_reason = :rr, pending_appeal_id = CAST(NULLIF(:pa, '') AS uuid), "
            "owner = :ow, restored_by = :sb, "
            "restored_at = to_timestamp(CAST(NULLIF(:sa, '') AS bigint) / 1000000.0), "
            "restore_reason = :sr, is_permanent = :ip = 1, "
            "expiration_date = to_timestamp(CAST(NULLIF(:ex, '') AS bigint) / 1000000.0), "
            "expiration_date_reason = :er, provider_state = :ps, updated_at = now() "
            "WHERE id = CAST(:id AS uuid)",
        use(g.status(), "s"), use(g.status_in_provider(), "sp"), use(g.revoked_by(), "rb"),
        use(revoked_at, "ra"), use(g.revoke_reason(), "rr"), use(g.pending_appeal_id(), "pa"),
        use(g.owner(), "ow"), use(g.restored_by(), "sb"), use(restored_at, "sa"),
        use(g.restore_reason(), "sr"), use(permanent, "ip"), use(exp, "ex"),
        use(g.expiration_date_reason(), "er"), use(g.provider_state(), "ps"), use(g.id(), "id");
    return absl::OkStatus();
  }

  absl::StatusOr<pb::Grant> GetGrant(const std::string& id, bool for_update) override {
    Query q;
    q.Where(absl::StrCat("g.id = CAST(", q.Param(id), " AS uuid)"));
    auto found = LockWithResources(q, for_update ? " FOR UPDATE OF g" : "");
    if (!found.ok()) return found.status();
    if (found->empty()) return absl::NotFoundError(absl::StrCat("grant \"", id, "\" not found"));
    return std::move(found->front());
  }

  absl::StatusOr<std::vector<pb::Grant>> LockExpiredGrants(absl::Time now, int limit) override {
    Query q;
    q.Where("g.status = 'active'");
    q.Where(absl::StrCat("g.expiration_date < to_timestamp(CAST(",
                         q.Param(absl::StrCat(absl::ToUnixMicros(now))), " AS bigint) / 1000000.0)"));
    return LockWithResources(q, absl::StrCat(" ORDER BY g.expiration_date LIMIT ", limit,
                                             " FOR UPDATE OF g SKIP LOCKED"));
  }

  absl::StatusOr<std::vector<pb::Grant>> FindActiveGrants(const GrantSelector& s,
                                                          int limit) override {
    Query q;
    q.Where("g.status = 'active'");
    q.In("g.account_id", s.account_ids);
    q.In("r.provider_type", s.provider_types);
    q.In("r.provider_urn", s.provider_urns);
    q.In("r.type", s.resource_types);
    q.In("r.urn", s.resource_urns);
    return LockWithResources(q, absl::StrCat(" ORDER BY g.created_at LIMIT ", limit));
  }

  absl::Status Audit(const AuditEntry& e) override {
    WriteAudit(sql_, e);
    return absl::OkStatus();
  }

  // Released at commit or rollback.
  absl::Status LockAccess(const std::string& account_id, const std::string& resource_id,
                          const std::string& role) override {
    sql_ << db::AdvisoryXactLockSql(kAccessLockClass, {account_id, resource_id, role});
    return absl::OkStatus();
  }

 private:
  absl::StatusOr<std::vector<pb::Grant>> LockWithResources(const Query& q, const std::string& tail) {
    std::vector<pb::Grant> out;
    for (const auto& r : q.Rows(sql_, absl::StrCat("SELECT ", GrantCols(), ", ", kResourceCols,
                                                   " FROM grants g JOIN resources r ON r.id = "
                                                   "g.resource_id",
                                                   q.WhereClause(), tail))) {
      pb::Grant g = GrantFromRow(r);
      *g.mutable_resource() = ResourceFromRow(r, kGrantColCount);
      out.push_back(std::move(g));
    }
    return out;
  }
  soci::session& sql_;
};

}  // namespace

absl::Status PostgresAppealRepository::InTransaction(
    const std::function<absl::Status(AccessTx&)>& fn) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    SociTx tx(sql);
    return fn(tx);
  });
}

absl::StatusOr<bool> PostgresAppealRepository::InsertAppealUnlessActiveGrant(
    pb::Appeal* appeal, AuditEntry audit, std::vector<AccessEvent> events) {
  bool inserted = false;
  // A failed attempt wrote nothing (the statement is atomic), so it is safe
  // to repeat once on a connection reopened after the server restarted; if
  // the first one did commit, the repeat fails with AlreadyExists (pending).
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    inserted = SociTx(sql).InsertOrThrow(appeal, &audit, /*unless_active_grant=*/true, events);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return inserted;
}

absl::StatusOr<pb::Grant> PostgresAppealRepository::GetGrant(const std::string& id) {
  absl::StatusOr<pb::Grant> out = absl::NotFoundError(absl::StrCat("grant \"", id, "\" not found"));
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    q.Where(absl::StrCat("g.id = CAST(", q.Param(id), " AS uuid)"));
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", GrantCols(), ", ", kResourceCols,
                                                  " FROM grants g JOIN resources r ON r.id = "
                                                  "g.resource_id",
                                                  q.WhereClause()))) {
      pb::Grant g = GrantFromRow(r);
      *g.mutable_resource() = ResourceFromRow(r, kGrantColCount);
      out = std::move(g);
    }
    if (out.ok() && !out->appeal_id().empty()) {
      SociTx tx(sql);
      auto appeal = tx.GetAppeal(out->appeal_id(), false);
      if (appeal.ok()) {
        appeal->clear_grant();
        *out->mutable_appeal() = std::move(*appeal);
      }
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<bool> PostgresAppealRepository::IsResourceApprover(const std::string& resource_id,
                                                                 const std::string& identity) {
  bool found = false;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    q.Where(absl::StrCat("a.resource_id = CAST(", q.Param(resource_id), " AS uuid)"));
    q.Where(absl::StrCat("p.approvers ? ", q.Param(identity)));
    found = q.Count(sql, absl::StrCat("SELECT count(*) FROM (SELECT 1 FROM approvals p JOIN "
                                      "appeals a ON a.id = p.appeal_id",
                                      q.WhereClause(), " LIMIT 1) x")) > 0;
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return found;
}

}  // namespace sluice::access
