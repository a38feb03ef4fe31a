#include "server/access/store/sql_rows.h"

#include <algorithm>
#include <map>

#include "nlohmann/json.hpp"
#include "server/access/store/row_json.h"

namespace sluice::access {

namespace {
std::string LikeEscaped(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The JSON object `text` into `out` (left as is but present otherwise, as
// JsonStringToProto leaves it).
void ReadStruct(const std::string& text, google::protobuf::Struct* out) {
  if (auto fast = StructFromJsonText(text)) {
    *out = std::move(*fast);
  } else {
    (void)JsonStringToProto(text, out);
  }
}
}  // namespace

void Query::Match(const std::string& col, const StringMatch& m,
                  const std::vector<std::string>& in) {
  std::vector<std::string> pos, neg;
  auto like = [&](const std::string& pre, const std::string& v, const std::string& post) {
    return Param(absl::StrCat(pre, LikeEscaped(v), post));
  };
  if (!m.starts_with.empty()) pos.push_back(absl::StrCat(col, " LIKE ", like("", m.starts_with, "%")));
  if (!m.ends_with.empty()) pos.push_back(absl::StrCat(col, " LIKE ", like("%", m.ends_with, "")));
  if (!m.contains.empty()) pos.push_back(absl::StrCat(col, " LIKE ", like("%", m.contains, "%")));
  if (!in.empty()) pos.push_back(absl::StrCat(col, " = ANY(", ArrayParam(in), ")"));
  if (!m.not_starts_with.empty()) {
    neg.push_back(absl::StrCat(col, " NOT LIKE ", like("", m.not_starts_with, "%")));
  }
  if (!m.not_ends_with.empty()) {
    neg.push_back(absl::StrCat(col, " NOT LIKE ", like("%", m.not_ends_with, "")));
  }
  if (!m.not_contains.empty()) {
    neg.push_back(absl::StrCat(col, " NOT LIKE ", like("%", m.not_contains, "%")));
  }
  if (!pos.empty()) Where(absl::StrCat("(", absl::StrJoin(pos, " OR "), ")"));
  for (auto& n : neg) Where(n);
}

void Query::Within(const std::string& col, const TimeRange& r) {
  if (r.start_micros != 0) {
    Where(absl::StrCat(col, " >= to_timestamp(CAST(", Param(absl::StrCat(r.start_micros)),
                       " AS bigint) / 1000000.0)"));
  }
  if (r.end_micros != 0) {
    Where(absl::StrCat(col, " <= to_timestamp(CAST(", Param(absl::StrCat(r.end_micros)),
                       " AS bigint) / 1000000.0)"));
  }
}

long long CappedCount(soci::session& sql, const Query& q, const std::string& from) {
  std::string select = absl::StrCat("SELECT 1", from, q.WhereClause());
  long long n = q.Count(sql, absl::StrCat("SELECT count(*) FROM (", select, " LIMIT ",
                                          kExactTotalLimit + 1, ") x"));
  if (n <= kExactTotalLimit) return n;
  PgRows plan = q.Rows(sql, absl::StrCat("EXPLAIN (FORMAT JSON) ", select));
  long long estimate = 0;
  if (plan.size() > 0) {
    auto j = nlohmann::json::parse(plan[0].get<std::string>(0), nullptr, false);
    if (j.is_array() && !j.empty() && j[0].contains("Plan")) {
      estimate = j[0]["Plan"].value("Plan Rows", 0LL);
    }
  }
  return std::max<long long>(estimate, kExactTotalLimit + 1);
}

long long PageTotal(soci::session& sql, const Query& q, const std::string& from, int rows,
                    long long size, long long offset) {
  if (rows < size && (rows > 0 || offset == 0) && offset + rows <= kExactTotalLimit) {
    return offset + rows;
  }
  return CappedCount(sql, q, from);
}

std::map<std::string, std::vector<pb::Approval>> LoadApprovals(
    soci::session& sql, const std::vector<std::string>& appeal_ids) {
  std::map<std::string, std::vector<pb::Approval>> out;
  if (appeal_ids.empty()) return out;
  Query q;
  // uuid[], not appeal_id::text: a cast column cannot use the index, and
  // every appeal list read all approvals (found with finding F-L1's bench).
  q.Where(absl::StrCat("p.appeal_id = ANY(CAST(", q.ArrayParam(appeal_ids), " AS uuid[]))"));
  q.Where("NOT p.is_stale");  // earlier revisions' approvals (PatchAppeal)
  for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", ApprovalCols(), " FROM approvals p",
                                                q.WhereClause(), " ORDER BY p.appeal_id, p.step_index"))) {
    pb::Approval a = ApprovalFromRow(r);
    out[a.appeal_id()].push_back(std::move(a));
  }
  return out;
}

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

std::string OrderClause(const std::vector<std::pair<std::string, bool>>& order,
                        const std::string& prefix, const std::string& fallback) {
  std::vector<std::string> parts;
  for (const auto& [col, desc] : order) {
    parts.push_back(absl::StrCat(prefix, col, desc ? " DESC" : " ASC"));  // col is allow-listed
  }
  // The tie-breaker runs the way the last column does, so that one index
  // on (column, id) read forwards or backwards yields the whole order.
  parts.push_back(!order.empty() && order.back().second ? absl::StrCat(fallback, " DESC")
                                                        : fallback);
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

// a.data (the whole appeal as proto JSON, AppealData) without the keys
// whose columns AppealFromRow sets anyway: PostgreSQL drops them, so the
// JSON parser (the dominant per-row cost of appeal lists) reads only
// permissions, options, details, labels, description, creator and the rest,
// and an appeal without them is "{}", which is not parsed at all.
constexpr char kAppealDataRest[] =
    "(a.data - CAST('{id,resource_id,policy_id,policy_version,status,account_id,account_type,"
    "role,created_by,revoked_by,revoke_reason,created_at,updated_at}' AS text[]))::text";

const std::string& AppealCols() {
  static const std::string* cols = new std::string(absl::StrCat(
      "a.id::text, a.resource_id::text, a.policy_id, a.policy_version, a.status, a.account_id, "
      "a.account_type, a.role, a.created_by, ", kAppealDataRest, ", a.revoked_by, ",
      Micros("a.revoked_at"), ", a.revoke_reason, ", Micros("a.created_at"), ", ",
      Micros("a.updated_at")));
  return *cols;
}

pb::Appeal AppealFromRow(const PgRows::Row& r, int o) {
  pb::Appeal a;
  if (!r.IsEmptyJson(o + 9)) {
    std::string data = r.get<std::string>(o + 9);
    if (auto fast = AppealFromDataJson(data)) {
      a = std::move(*fast);
    } else {
      (void)JsonStringToProto(data, &a);
    }
  }
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
      Micros("p.created_at"), ", ", Micros("p.updated_at"),
      ", p.appeal_revision, p.is_stale::int, p.details::text"));
  return *cols;
}

pb::Approval ApprovalFromRow(const PgRows::Row& r, int o) {
  pb::Approval a;
  a.set_id(r.get<std::string>(o + 0));
  a.set_appeal_id(r.get<std::string>(o + 1));
  a.set_name(r.get<std::string>(o + 2));
  a.set_status(r.get<std::string>(o + 3));
  a.set_actor(r.get<std::string>(o + 4));
  a.set_reason(r.get<std::string>(o + 5));
  if (!r.IsEmptyJson(o + 6)) {
    for (auto& e : JsonStrings(r.get<std::string>(o + 6))) a.add_approvers(std::move(e));
  }
  a.set_policy_id(r.get<std::string>(o + 7));
  a.set_policy_version(static_cast<uint32_t>(r.get<int>(o + 8)));
  *a.mutable_created_at() = FromMicros(r.get<long long>(o + 9));
  *a.mutable_updated_at() = FromMicros(r.get<long long>(o + 10));
  a.set_appeal_revision(static_cast<uint32_t>(r.get<int>(o + 11)));
  a.set_is_stale(r.get<int>(o + 12) != 0);
  if (!r.IsEmptyJson(o + 13)) ReadStruct(r.get<std::string>(o + 13), a.mutable_details());
  return a;
}

const std::string& GrantCols() {
  static const std::string* cols = new std::string(absl::StrCat(
      "g.id::text, g.status, g.status_in_provider, g.account_id, g.account_type, g.group_id, "
      "g.group_type, g.resource_id::text, g.role, g.permissions::text, g.is_permanent::int, ",
      Micros("g.expiration_date"), ", g.expiration_date_reason, COALESCE(g.appeal_id::text, ''), "
      "COALESCE(g.pending_appeal_id::text, ''), g.source, g.revoked_by, ",
      Micros("g.revoked_at"), ", g.revoke_reason, g.owner, ", Micros("g.created_at"), ", ",
      Micros("g.updated_at"), ", g.restored_by, ", Micros("g.restored_at"),
      ", g.restore_reason, g.provider_state"));
  return *cols;
}

pb::Grant GrantFromRow(const PgRows::Row& r, int o) {
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
  if (!r.IsEmptyJson(o + 9)) {
    for (auto& p : JsonStrings(r.get<std::string>(o + 9))) g.add_permissions(std::move(p));
  }
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
  g.set_restored_by(r.get<std::string>(o + 22));
  long long restored = r.get<long long>(o + 23);
  if (restored >= 0) *g.mutable_restored_at() = FromMicros(restored);
  g.set_restore_reason(r.get<std::string>(o + 24));
  g.set_provider_state(r.get<std::string>(o + 25));
  return g;
}

pb::Resource ResourceFromRow(const PgRows::Row& row, int o) {
  pb::Resource r;
  r.set_id(row.get<std::string>(o + 0));
  r.set_provider_type(row.get<std::string>(o + 1));
  r.set_provider_urn(row.get<std::string>(o + 2));
  r.set_type(row.get<std::string>(o + 3));
  r.set_urn(row.get<std::string>(o + 4));
  r.set_name(row.get<std::string>(o + 5));
  if (!row.IsEmptyJson(o + 6)) {
    ReadStruct(row.get<std::string>(o + 6), r.mutable_details());
  } else {
    r.mutable_details();  // present and empty, as the JSON parser leaves "{}"
  }
  if (!row.IsEmptyJson(o + 7)) {
    auto labels = nlohmann::json::parse(row.get<std::string>(o + 7), nullptr, false);
    if (labels.is_object()) {
      for (auto& [k, v] : labels.items()) {
        if (v.is_string()) (*r.mutable_labels())[k] = v.get<std::string>();
      }
    }
  }
  r.set_is_deleted(row.get<int>(o + 8) != 0);
  *r.mutable_created_at() = FromMicros(row.get<long long>(o + 9));
  *r.mutable_updated_at() = FromMicros(row.get<long long>(o + 10));
  return r;
}

long long ToMicros(const google::protobuf::Timestamp& ts) {
  return static_cast<long long>(ts.seconds()) * 1000000 + ts.nanos() / 1000;
}

}  // namespace sluice::access
