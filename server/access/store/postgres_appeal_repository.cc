#include "server/access/store/postgres_appeal_repository.h"

#include <map>

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/db/audit.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"
#include "server/access/store/pg_exec.h"

namespace sluice::access {
namespace {

using soci::use;

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
  // `col = ANY(values)` when values is non-empty.
  void In(const std::string& col, const std::vector<std::string>& values) {
    if (!values.empty()) Where(absl::StrCat(col, " = ANY(", ArrayParam(values), ")"));
  }
  void Eq(const std::string& col, const std::string& value) {
    if (!value.empty()) Where(absl::StrCat(col, " = ", Param(value)));
  }
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

std::string OrderClause(const std::vector<std::pair<std::string, bool>>& order,
                        const std::string& prefix, const std::string& fallback) {
  std::vector<std::string> parts;
  for (const auto& [col, desc] : order) {
    parts.push_back(absl::StrCat(prefix, col, desc ? " DESC" : " ASC"));  // col is allow-listed
  }
  parts.push_back(fallback);
  return absl::StrCat(" ORDER BY ", absl::StrJoin(parts, ", "));
}

google::protobuf::Timestamp FromMicros(long long micros) {
  google::protobuf::Timestamp ts;
  ts.set_seconds(micros / 1000000);
  ts.set_nanos(static_cast<int32_t>(micros % 1000000) * 1000);
  return ts;
}

std::string Micros(const std::string& col) {
  return absl::StrCat("COALESCE((extract(epoch from ", col, ") * 1000000)::bigint, -1)");
}

// NULL when the timestamp is unset.
std::string TsParam(const google::protobuf::Timestamp& ts) {
  if (ts.seconds() == 0 && ts.nanos() == 0) return "";
  return absl::StrCat(ts.seconds() * 1000000 + ts.nanos() / 1000);
}

std::vector<std::string> JsonStrings(const std::string& text) {
  std::vector<std::string> out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_array()) {
    for (const auto& v : j) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

std::string JsonArray(const google::protobuf::RepeatedPtrField<std::string>& values) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& v : values) arr.push_back(v);
  return arr.dump();
}

const std::string& AppealCols() {
  static const std::string* cols = new std::string(absl::StrCat(
      "a.id::text, a.resource_id::text, a.policy_id, a.policy_version, a.status, a.account_id, "
      "a.account_type, a.role, a.created_by, a.data::text, a.revoked_by, ",
      Micros("a.revoked_at"), ", a.revoke_reason, ", Micros("a.created_at"), ", ",
      Micros("a.updated_at")));
  return *cols;
}
constexpr int kAppealColCount = 15;

pb::Appeal AppealFromRow(const PgRows::Row& r, int o = 0) {
  pb::Appeal a;
  (void)JsonStringToProto(r.get<std::string>(o + 9), &a);
  a.set_id(r.get<std::string>(o + 0));
  a.set_resource_id(r.get<std::string>(o + 1));
  a.set_policy_id(r.get<std::string>(o + 2));
  a.set_policy_version(static_cast<uint32_t>(r.get<int>(o + 3)));
  a.set_status(r.get<std::string>(o + 4));
  a.set_account_id(r.get<std::string>(o + 5));
  a.set_account_type(r.get<std::string>(o + 6));
  a.set_role(r.get<std::string>(o + 7));
  a.set_created_by(r.get<std::string>(o + 8));
  a.set_revoked_by(r.get<std::string>(o + 10));
  long long revoked = r.get<long long>(o + 11);
  if (revoked >= 0) *a.mutable_revoked_at() = FromMicros(revoked);
  a.set_revoke_reason(r.get<std::string>(o + 12));
  *a.mutable_created_at() = FromMicros(r.get<long long>(o + 13));
  *a.mutable_updated_at() = FromMicros(r.get<long long>(o + 14));
  return a;
}

const std::string& ApprovalCols() {
  static const std::string* cols = new std::string(absl::StrCat(
      "p.id::text, p.appeal_id::text, p.name, p.status, p.actor, p.reason, p.approvers::text, "
      "p.policy_id, p.policy_version, ",
      Micros("p.created_at"), ", ", Micros("p.updated_at")));
  return *cols;
}
constexpr int kApprovalColCount = 11;

pb::Approval ApprovalFromRow(const PgRows::Row& r, int o = 0) {
  pb::Approval a;
  a.set_id(r.get<std::string>(o + 0));
  a.set_appeal_id(r.get<std::string>(o + 1));
  a.set_name(r.get<std::string>(o + 2));
  a.set_status(r.get<std::string>(o + 3));
  a.set_actor(r.get<std::string>(o + 4));
  a.set_reason(r.get<std::string>(o + 5));
  for (auto& e : JsonStrings(r.get<std::string>(o + 6))) a.add_approvers(e);
  a.set_policy_id(r.get<std::string>(o + 7));
  a.set_policy_version(static_cast<uint32_t>(r.get<int>(o + 8)));
  *a.mutable_created_at() = FromMicros(r.get<long long>(o + 9));
  *a.mutable_updated_at() = FromMicros(r.get<long long>(o + 10));
  return a;
}

const std::string& GrantCols() {
  static const std::string* cols = new std::string(absl::StrCat(
      "g.id::text, g.status, g.status_in_provider, g.account_id, g.account_type, g.group_id, "
      "g.group_type, g.resource_id::text, g.role, g.permissions::text, g.is_permanent::int, ",
      Micros("g.expiration_date"), ", g.expiration_date_reason, COALESCE(g.appeal_id::text, ''), "
      "COALESCE(g.pending_appeal_id::text, ''), g.source, g.revoked_by, ",
      Micros("g.revoked_at"), ", g.revoke_reason, g.owner, ", Micros("g.created_at"), ", ",
      Micros("g.updated_at")));
  return *cols;
}
constexpr int kGrantColCount = 22;

pb::Grant GrantFromRow(const PgRows::Row& r, int o = 0) {
  pb::Grant g;
  g.set_id(r.get<std::string>(o + 0));
  g.set_status(r.get<std::string>(o + 1));
  g.set_status_in_provider(r.get<std::string>(o + 2));
  g.set_account_id(r.get<std::string>(o + 3));
  g.set_account_type(r.get<std::string>(o + 4));
  g.set_group_id(r.get<std::string>(o + 5));
  g.set_group_type(r.get<std::string>(o + 6));
  g.set_resource_id(r.get<std::string>(o + 7));
  g.set_role(r.get<std::string>(o + 8));
  for (auto& p : JsonStrings(r.get<std::string>(o + 9))) g.add_permissions(p);
  g.set_is_permanent(r.get<int>(o + 10) != 0);
  long long exp = r.get<long long>(o + 11);
  if (exp >= 0) *g.mutable_expiration_date() = FromMicros(exp);
  g.set_expiration_date_reason(r.get<std::string>(o + 12));
  g.set_appeal_id(r.get<std::string>(o + 13));
  g.set_pending_appeal_id(r.get<std::string>(o + 14));
  g.set_source(r.get<std::string>(o + 15));
  g.set_revoked_by(r.get<std::string>(o + 16));
  long long revoked = r.get<long long>(o + 17);
  if (revoked >= 0) *g.mutable_revoked_at() = FromMicros(revoked);
  g.set_revoke_reason(r.get<std::string>(o + 18));
  g.set_owner(r.get<std::string>(o + 19));
  *g.mutable_created_at() = FromMicros(r.get<long long>(o + 20));
  *g.mutable_updated_at() = FromMicros(r.get<long long>(o + 21));
  return g;
}

constexpr char kResourceCols[] =
    "r.id::text, r.provider_type, r.provider_urn, r.type, r.urn, r.name, r.details::text, "
    "r.labels::text, r.is_deleted::int";
constexpr int kResourceColCount = 9;

pb::Resource ResourceFromRow(const PgRows::Row& row, int o) {
  pb::Resource r;
  r.set_id(row.get<std::string>(o + 0));
  r.set_provider_type(row.get<std::string>(o + 1));
  r.set_provider_urn(row.get<std::string>(o + 2));
  r.set_type(row.get<std::string>(o + 3));
  r.set_urn(row.get<std::string>(o + 4));
  r.set_name(row.get<std::string>(o + 5));
  (void)JsonStringToProto(row.get<std::string>(o + 6), r.mutable_details());
  auto labels = nlohmann::json::parse(row.get<std::string>(o + 7), nullptr, false);
  if (labels.is_object()) {
    for (auto& [k, v] : labels.items()) {
      if (v.is_string()) (*r.mutable_labels())[k] = v.get<std::string>();
    }
  }
  r.set_is_deleted(row.get<int>(o + 8) != 0);
  return r;
}

// Approvals of `appeal_ids`, grouped by appeal id, in step order.
std::map<std::string, std::vector<pb::Approval>> LoadApprovals(
    soci::session& sql, const std::vector<std::string>& appeal_ids) {
  std::map<std::string, std::vector<pb::Approval>> out;
  if (appeal_ids.empty()) return out;
  Query q;
  q.Where(absl::StrCat("p.appeal_id::text = ANY(", q.ArrayParam(appeal_ids), ")"));
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
  q.Where(absl::StrCat("g.appeal_id::text = ANY(", q.ArrayParam(appeal_ids), ")"));
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

  absl::StatusOr<bool> InsertAppealUnlessActiveGrant(pb::Appeal* a, AuditEntry audit) override {
    return Insert(a, &audit, /*unless_active_grant=*/true);
  }

  // The appeal, its approvals and (when `audit` is set) its audit_logs row,
  // with data.id = the new appeal's id, in one statement. With
  // `unless_active_grant`, nothing is written (false) when an active grant
  // exists for the appeal's account, resource and role.
  absl::StatusOr<bool> Insert(pb::Appeal* a, const AuditEntry* audit, bool unless_active_grant) {
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
    try {
      PgRows inserted = PgExecPrepared(
          sql_, "sluice_access_insert_appeal",
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
          "CAST($13 AS jsonb) || jsonb_build_object('id', a.id::text) FROM a WHERE $14 = '1') "
          "SELECT a.id::text, COALESCE(p.id::text, ''), COALESCE(p.step_index, -1) "
          "FROM a LEFT JOIN p ON true",
          {a->resource_id(), a->policy_id(), absl::StrCat(a->policy_version()), a->status(),
           a->account_id(), a->account_type(), a->role(), a->created_by(), data, rows.dump(),
           audit ? audit->action : "", audit ? audit->actor : "",
           audit ? audit->data.dump() : "{}", audit ? "1" : "0",
           unless_active_grant ? "1" : "0"});
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
    } catch (const soci::soci_error& e) {
      return db::FromSociError(e, "insert appeal");
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
              "expiration_date_reason, appeal_id, source, owner) VALUES (:s, :sp, :ai, :at, "
              "CAST(:r AS uuid), :ro, CAST(:pe AS jsonb), :ip = 1, "
              "to_timestamp(CAST(NULLIF(:ex, '') AS bigint) / 1000000.0), :er, "
              "CAST(NULLIF(:ap, '') AS uuid), :so, :ow) RETURNING id::text",
          use(g->status(), "s"), use(g->status_in_provider(), "sp"), use(g->account_id(), "ai"),
          use(g->account_type(), "at"), use(g->resource_id(), "r"), use(g->role(), "ro"),
          use(perms, "pe"), use(permanent, "ip"), use(exp, "ex"),
          use(g->expiration_date_reason(), "er"), use(g->appeal_id(), "ap"),
          use(g->source(), "so"), use(g->owner(), "ow"), soci::into(id);
    } catch (const soci::soci_error& e) {
      return db::FromSociError(e, "insert grant");
    }
    g->set_id(id);
    return absl::OkStatus();
  }

  absl::Status UpdateGrant(const pb::Grant& g) override {
    std::string revoked_at = TsParam(g.revoked_at());
    sql_ << "UPDATE grants SET status = :s, status_in_provider = :sp, revoked_by = :rb, "
            "revoked_at = to_timestamp(CAST(NULLIF(:ra, '') AS bigint) / 1000000.0), "
            "revoke_reason = :rr, pending_appeal_id = CAST(NULLIF(:pa, '') AS uuid), "
            "updated_at = now() WHERE id = CAST(:id AS uuid)",
        use(g.status(), "s"), use(g.status_in_provider(), "sp"), use(g.revoked_by(), "rb"),
        use(revoked_at, "ra"), use(g.revoke_reason(), "rr"), use(g.pending_appeal_id(), "pa"),
        use(g.id(), "id");
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<pb::Grant>> LockExpiredGrants(absl::Time now, int limit) override {
    Query q;
    q.Where("g.status = 'active'");
    q.Where(absl::StrCat("g.expiration_date < to_timestamp(CAST(",
                         q.Param(absl::StrCat(absl::ToUnixMicros(now))), " AS bigint) / 1000000.0)"));
    return LockWithResources(q, absl::StrCat(" ORDER BY g.expiration_date LIMIT ", limit,
                                             " FOR UPDATE OF g SKIP LOCKED"));
  }

  absl::StatusOr<std::vector<pb::Grant>> LockActiveGrants(const GrantSelector& s) override {
    Query q;
    q.Where("g.status = 'active'");
    q.In("g.account_id", s.account_ids);
    q.In("r.provider_type", s.provider_types);
    q.In("r.provider_urn", s.provider_urns);
    q.In("r.type", s.resource_types);
    q.In("r.urn", s.resource_urns);
    return LockWithResources(q, " ORDER BY g.created_at FOR UPDATE OF g");
  }

  absl::Status Audit(const AuditEntry& e) override {
    db::WriteAuditLog(sql_, e.action, e.actor, e.data);
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

absl::StatusOr<std::vector<pb::Appeal>> PostgresAppealRepository::ListAppeals(
    const AppealFilter& f, int* total) {
  std::vector<pb::Appeal> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    q.In("a.account_id", f.account_ids);
    q.In("a.status", f.statuses);
    q.Eq("a.role", f.role);
    q.Eq("a.created_by", f.created_by);
    q.In("r.provider_type", f.provider_types);
    q.In("r.provider_urn", f.provider_urns);
    q.In("r.type", f.resource_types);
    q.In("r.urn", f.resource_urns);
    std::string from = " FROM appeals a JOIN resources r ON r.id = a.resource_id";
    *total = static_cast<int>(q.Count(sql, absl::StrCat("SELECT count(*)", from, q.WhereClause())));
    std::vector<std::string> ids;
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", AppealCols(), ", ", kResourceCols, from,
                                                  q.WhereClause(),
                                                  OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "a.", "a.id"),
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
    q.In("p.status", f.statuses);
    if (!f.approver.empty()) q.Where(absl::StrCat("p.approvers ? ", q.Param(f.approver)));
    std::string from = " FROM approvals p JOIN appeals a ON a.id = p.appeal_id JOIN resources r ON r.id = a.resource_id";
    *total = static_cast<int>(q.Count(sql, absl::StrCat("SELECT count(*)", from, q.WhereClause())));
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", ApprovalCols(), ", ", AppealCols(), ", ",
                                                  kResourceCols, from, q.WhereClause(),
                                                  OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "p.", "p.id"),
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
                         !f.resource_types.empty();
    q.In("g.status", f.statuses);
    q.In("g.account_id", f.account_ids);
    q.In("g.account_type", f.account_types);
    if (!f.resource_ids.empty()) {
      q.Where(absl::StrCat("g.resource_id = ANY(CAST(", q.ArrayParam(f.resource_ids), " AS uuid[]))"));
    }
    q.In("g.role", f.roles);
    q.Eq("g.owner", f.owner);
    q.In("r.provider_type", f.provider_types);
    q.In("r.provider_urn", f.provider_urns);
    q.In("r.type", f.resource_types);
    if (!f.q.empty()) {
      std::string like = q.Param(absl::StrCat("%", f.q, "%"));
      q.Where(absl::StrCat("(g.account_id ILIKE ", like, " OR g.role ILIKE ", like,
                           " OR r.urn ILIKE ", like, " OR r.name ILIKE ", like, ")"));
    }
    std::string join = " JOIN resources r ON r.id = g.resource_id";
    *total = static_cast<int>(q.Count(
        sql, absl::StrCat("SELECT count(*) FROM grants g", need_resource ? join : "", q.WhereClause())));
    std::vector<std::string> appeal_ids;
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", GrantCols(), ", ", kResourceCols,
                                                  " FROM grants g", join, q.WhereClause(),
                                                  OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "g.", "g.id"),
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

}  // namespace sluice::access
