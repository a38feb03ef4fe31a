#include "server/access/store/postgres_appeal_repository.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"
#include "server/access/store/pg_exec.h"
#include "server/access/store/postgres_event_store.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {
namespace {

using soci::use;

// Approvals of `appeal_ids`, grouped by appeal id, in step order.
std::map<std::string, std::vector<pb::Approval>> LoadApprovals(
    soci::session& sql, const std::vector<std::string>& appeal_ids) {
  std::map<std::string, std::vector<pb::Approval>> out;
  if (appeal_ids.empty()) return out;
  Query q;
  // uuid[], not appeal_id::text: a cast column cannot use the index, and
  // every appeal list read all approvals (found with finding F-L1's bench).
  q.Where(absl::StrCat("p.appeal_id = ANY(CAST(", q.ArrayParam(appeal_ids), " AS uuid[]))"));
  for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", ApprovalCols(), " FROM approvals p",
                                                q.WhereClause(), " ORDER BY p.appeal_id, p.step_index"))) {
    pb::Approval a = ApprovalFromRow(r);
    out[a.appeal_id()].push_back(std::move(a));
  }
  return out;
}

// The latest grant of each of `appeal_ids`.
std::map<std::string, pb::Grant> LoadGrants(soci::session& sql,
                                            const std::vector<std::string>& appeal_ids) {
  std::map<std::string, pb::Grant> out;
  if (appeal_ids.empty()) return out;
  Query q;
  // uuid[] for grants_appeal_idx (appeal_id::text read every grant).
  q.Where(absl::StrCat("g.appeal_id = ANY(CAST(", q.ArrayParam(appeal_ids), " AS uuid[]))"));
  for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", GrantCols(), " FROM grants g",
                                                q.WhereClause(), " ORDER BY g.created_at"))) {
    pb::Grant g = GrantFromRow(r);
    out[g.appeal_id()] = std::move(g);
  }
  return out;
}

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
        sql_, "sluice_access_insert_appeal_v2",
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
        "l AS (INSERT INTO audit_logs (action, actor, data) SELECT $11, $12, "
        "CAST($13 AS jsonb) || jsonb_build_object('id', a.id::text) FROM a WHERE $14 = '1'), "
        "o AS (INSERT INTO access_events (id, type, payload) SELECT x.type || ':' || a.id::text, "
        "x.type, jsonb_set(x.payload, '{variables,appeal_id}', to_jsonb(a.id::text)) FROM a, "
        "jsonb_to_recordset(CAST($16 AS jsonb)) AS x(type text, payload jsonb) "
        "ON CONFLICT (id) DO NOTHING) "
        "SELECT a.id::text, COALESCE(p.id::text, ''), COALESCE(p.step_index, -1) "
        "FROM a LEFT JOIN p ON true",
        {a->resource_id(), a->policy_id(), absl::StrCat(a->policy_version()), a->status(),
         a->account_id(), a->account_type(), a->role(), a->created_by(), data, rows.dump(),
         audit ? audit->action : "", audit ? audit->actor : "",
         audit ? audit->data.dump() : "{}", audit ? "1" : "0",
         unless_active_grant ? "1" : "0", EventRecords(events)});
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

absl::StatusOr<std::vector<pb::Appeal>> PostgresAppealRepository::ListAppeals(
    const AppealFilter& f, int* total) {
  std::vector<pb::Appeal> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    if (!f.ids.empty()) q.Where(absl::StrCat("a.id = ANY(CAST(", q.ArrayParam(f.ids), " AS uuid[]))"));
    q.In("a.account_id", f.account_ids);
    q.In("a.account_type", f.account_types);
    q.In("a.status", f.statuses);
    q.Eq("a.role", f.role);
    q.In("a.role", f.roles);
    if (!f.resource_ids.empty()) {
      q.Where(absl::StrCat("a.resource_id = ANY(CAST(", q.ArrayParam(f.resource_ids), " AS uuid[]))"));
    }
    q.Eq("a.created_by", f.created_by);
    q.Within("a.created_at", f.created);
    if (!f.visible_to.empty()) {
      // Finding F-L1: an OR of the three conditions (one a correlated
      // EXISTS) was a sequential scan of every appeal, twice per call. Each
      // branch here is an index scan: appeals_created_by_idx,
      // appeals_account_idx and the approvers GIN index.
      std::string v = q.Param(f.visible_to);
      q.Where(absl::StrCat("a.id IN (SELECT id FROM appeals WHERE created_by = ", v,
                           " UNION ALL SELECT id FROM appeals WHERE account_id = ", v,
                           " UNION ALL SELECT appeal_id FROM approvals WHERE approvers ? ", v, ")"));
    }
    q.In("r.provider_type", f.provider_types);
    q.In("r.provider_urn", f.provider_urns);
    q.In("r.type", f.resource_types);
    q.In("r.urn", f.resource_urns);
    std::string order_prefix;
    if (!f.q.empty()) {
      // Guardian's appeal_repository.go: LIKE on account_id, role, resource
      // urn or name; exact matches first.
      std::string like = q.Param(absl::StrCat("%", f.q, "%"));
      // q itself, from the same parameter: the count query binds the same
      // values, and PostgreSQL refuses a parameter a statement never uses.
      std::string exact = absl::StrCat("substr(", like, ", 2, length(", like, ") - 2)");
      q.Where(absl::StrCat("(a.account_id LIKE ", like, " OR a.role LIKE ", like,
                           " OR r.urn LIKE ", like, " OR r.name LIKE ", like, ")"));
      order_prefix = absl::StrCat("CASE WHEN a.account_id = ", exact, " OR a.role = ", exact,
                                  " OR r.urn = ", exact, " OR r.name = ", exact,
                                  " THEN 0 ELSE 1 END, ");
    }
    bool need_resource = !f.q.empty() || !f.provider_types.empty() || !f.provider_urns.empty() ||
                         !f.resource_types.empty() || !f.resource_urns.empty();
    std::string from = " FROM appeals a JOIN resources r ON r.id = a.resource_id";
    *total = static_cast<int>(CappedCount(sql, q, need_resource ? from : " FROM appeals a"));
    std::vector<std::string> ids;
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", AppealCols(), ", ", kResourceCols, from,
                                                  q.WhereClause(),
                                                  WithPrefix(order_prefix, OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "a.", "a.id")),
                                                  " LIMIT ", f.size, " OFFSET ", f.offset))) {
      pb::Appeal a = AppealFromRow(r);
      *a.mutable_resource() = ResourceFromRow(r, kAppealColCount);
      ids.push_back(a.id());
      out.push_back(std::move(a));
    }
    auto approvals = LoadApprovals(sql, ids);
    auto grants = LoadGrants(sql, ids);
    for (auto& a : out) {
      for (auto& p : approvals[a.id()]) *a.add_approvals() = p;
      if (grants.count(a.id())) *a.mutable_grant() = grants[a.id()];
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<pb::Approval>> PostgresAppealRepository::ListApprovals(
    const ApprovalFilter& f, int* total) {
  std::vector<pb::Approval> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    q.Eq("a.account_id", f.account_id);
    q.In("a.account_id", f.account_ids);
    q.In("a.account_type", f.account_types);
    q.In("a.status", f.appeal_statuses);
    q.In("a.role", f.roles);
    q.Within("a.created_at", f.created);
    q.In("p.status", f.statuses);
    if (!f.approver.empty()) q.Where(absl::StrCat("p.approvers ? ", q.Param(f.approver)));
    q.In("r.provider_type", f.provider_types);
    q.In("r.provider_urn", f.provider_urns);
    q.In("r.type", f.resource_types);
    q.In("r.urn", f.resource_urns);
    std::string order_prefix;
    if (!f.q.empty()) {
      // Guardian's approval_repository.go: LIKE on the appeal's account_id,
      // role, resource urn or name; exact matches first.
      std::string like = q.Param(absl::StrCat("%", f.q, "%"));
      // q itself, from the same parameter: the count query binds the same
      // values, and PostgreSQL refuses a parameter a statement never uses.
      std::string exact = absl::StrCat("substr(", like, ", 2, length(", like, ") - 2)");
      q.Where(absl::StrCat("(a.account_id LIKE ", like, " OR a.role LIKE ", like,
                           " OR r.urn LIKE ", like, " OR r.name LIKE ", like, ")"));
      order_prefix = absl::StrCat("CASE WHEN a.account_id = ", exact, " OR a.role = ", exact,
                                  " OR r.urn = ", exact, " OR r.name = ", exact,
                                  " THEN 0 ELSE 1 END, ");
    }
    bool need_resource = !f.q.empty() || !f.provider_types.empty() || !f.provider_urns.empty() ||
                         !f.resource_types.empty() || !f.resource_urns.empty();
    bool need_appeal = need_resource || !f.account_id.empty() || !f.account_ids.empty() ||
                       !f.account_types.empty() || !f.appeal_statuses.empty() ||
                       !f.roles.empty() || f.created.start_micros || f.created.end_micros;
    std::string from = " FROM approvals p JOIN appeals a ON a.id = p.appeal_id JOIN resources r ON r.id = a.resource_id";
    *total = static_cast<int>(CappedCount(
        sql, q,
        need_resource ? from
                      : (need_appeal ? " FROM approvals p JOIN appeals a ON a.id = p.appeal_id"
                                     : " FROM approvals p")));
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", ApprovalCols(), ", ", AppealCols(), ", ",
                                                  kResourceCols, from, q.WhereClause(),
                                                  WithPrefix(order_prefix, OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "p.", "p.id")),
                                                  " LIMIT ", f.size, " OFFSET ", f.offset))) {
      pb::Approval p = ApprovalFromRow(r);
      pb::Appeal* a = p.mutable_appeal();
      *a = AppealFromRow(r, kApprovalColCount);
      *a->mutable_resource() = ResourceFromRow(r, kApprovalColCount + kAppealColCount);
      out.push_back(std::move(p));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<pb::Grant>> PostgresAppealRepository::ListGrants(const GrantFilter& f,
                                                                            int* total) {
  std::vector<pb::Grant> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    bool need_resource = !f.q.empty() || !f.provider_types.empty() || !f.provider_urns.empty() ||
                         !f.resource_types.empty() || !f.resource_urns.empty();
    q.In("g.status", f.statuses);
    q.In("g.account_id", f.account_ids);
    q.In("g.account_type", f.account_types);
    if (!f.resource_ids.empty()) {
      q.Where(absl::StrCat("g.resource_id = ANY(CAST(", q.ArrayParam(f.resource_ids), " AS uuid[]))"));
    }
    q.In("g.role", f.roles);
    // Guardian: owner, created_by and owners together are one IN list.
    std::vector<std::string> owners = f.owners;
    if (!f.owner.empty()) owners.push_back(f.owner);
    q.In("g.owner", owners);
    q.Within("g.created_at", f.created);
    if (f.expiring_in_days > 0 &&
        std::find(f.statuses.begin(), f.statuses.end(), "active") != f.statuses.end()) {
      q.Where(absl::StrCat("g.expiration_date BETWEEN now() AND now() + make_interval(days => CAST(",
                           q.Param(absl::StrCat(f.expiring_in_days)), " AS int))"));
    }
    if (!f.visible_to.empty()) {
      // Finding F-L1: an OR of the three conditions (one a correlated
      // EXISTS per grant) was a sequential scan of every grant, twice per
      // call. Each branch here is index-driven: grants_account_idx,
      // grants_owner_idx, and the approvers GIN index -> appeals by id ->
      // grants_resource_id_idx (index-only, migration 0005) for the
      // resources the caller approves.
      std::string v = q.Param(f.visible_to);
      q.Where(absl::StrCat("g.id IN (SELECT id FROM grants WHERE account_id = ", v,
                           " UNION ALL SELECT id FROM grants WHERE owner = ", v,
                           " UNION ALL SELECT vg.id FROM grants vg WHERE vg.resource_id IN "
                           "(SELECT va.resource_id FROM approvals vp JOIN appeals va ON va.id = "
                           "vp.appeal_id WHERE vp.approvers ? ", v, "))"));
    }
    q.In("r.provider_type", f.provider_types);
    q.In("r.provider_urn", f.provider_urns);
    q.In("r.type", f.resource_types);
    q.In("r.urn", f.resource_urns);
    std::string order_prefix;
    if (!f.q.empty()) {
      // Guardian's grant_repository.go: LIKE on account_id, role, resource
      // urn or name; exact matches first.
      std::string like = q.Param(absl::StrCat("%", f.q, "%"));
      // q itself, from the same parameter: the count query binds the same
      // values, and PostgreSQL refuses a parameter a statement never uses.
      std::string exact = absl::StrCat("substr(", like, ", 2, length(", like, ") - 2)");
      q.Where(absl::StrCat("(g.account_id LIKE ", like, " OR g.role LIKE ", like,
                           " OR r.urn LIKE ", like, " OR r.name LIKE ", like, ")"));
      order_prefix = absl::StrCat("CASE WHEN g.account_id = ", exact, " OR g.role = ", exact,
                                  " OR r.urn = ", exact, " OR r.name = ", exact,
                                  " THEN 0 ELSE 1 END, ");
    }
    std::string join = " JOIN resources r ON r.id = g.resource_id";
    *total = static_cast<int>(
        CappedCount(sql, q, absl::StrCat(" FROM grants g", need_resource ? join : "")));
    std::vector<std::string> appeal_ids;
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", GrantCols(), ", ", kResourceCols,
                                                  " FROM grants g", join, q.WhereClause(),
                                                  WithPrefix(order_prefix, OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "g.", "g.id")),
                                                  " LIMIT ", f.size, " OFFSET ", f.offset))) {
      pb::Grant g = GrantFromRow(r);
      *g.mutable_resource() = ResourceFromRow(r, kGrantColCount);
      if (!g.appeal_id().empty()) appeal_ids.push_back(g.appeal_id());
      out.push_back(std::move(g));
    }
    if (!appeal_ids.empty()) {
      Query aq;
      aq.Where(absl::StrCat("a.id = ANY(CAST(", aq.ArrayParam(appeal_ids), " AS uuid[]))"));
      std::map<std::string, pb::Appeal> appeals;
      for (const auto& r : aq.Rows(sql, absl::StrCat("SELECT ", AppealCols(), " FROM appeals a",
                                                     aq.WhereClause()))) {
        pb::Appeal a = AppealFromRow(r);
        appeals[a.id()] = std::move(a);
      }
      for (auto& g : out) {
        if (appeals.count(g.appeal_id())) *g.mutable_appeal() = appeals[g.appeal_id()];
      }
    }
    if (f.with_pending_appeal && !out.empty()) {
      // Guardian's core/grant/service.go List: a pending appeal for the same
      // account, resource and role, looked up for the returned page only.
      std::vector<std::string> accounts, resources, roles;
      for (const auto& g : out) {
        accounts.push_back(g.account_id());
        resources.push_back(g.resource_id());
        roles.push_back(g.role());
      }
      Query pq;
      pq.Where("a.status = 'pending'");
      pq.In("a.account_id", accounts);
      pq.Where(absl::StrCat("a.resource_id = ANY(CAST(", pq.ArrayParam(resources), " AS uuid[]))"));
      pq.In("a.role", roles);
      std::map<std::tuple<std::string, std::string, std::string>, std::string> pending;
      for (const auto& r : pq.Rows(sql, absl::StrCat("SELECT a.id::text, a.account_id, "
                                                     "a.resource_id::text, a.role FROM appeals a",
                                                     pq.WhereClause()))) {
        pending[{r.get<std::string>(1), r.get<std::string>(2), r.get<std::string>(3)}] =
            r.get<std::string>(0);
      }
      for (auto& g : out) {
        auto it = pending.find({g.account_id(), g.resource_id(), g.role()});
        if (it != pending.end()) g.set_pending_appeal_id(it->second);
      }
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
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
