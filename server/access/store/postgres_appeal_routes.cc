// PostgresAppealRepository's methods for issue 28's routes: appeal comments,
// the caller's grant roles and approval summaries (the appeal, approval and
// grant core is in postgres_appeal_repository.cc).
#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"
#include "server/access/store/pg_exec.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {
namespace {

constexpr char kCommentCols[] = "c.id::text, c.appeal_id::text, c.created_by, c.body, ";

pb::AppealComment CommentFromRow(const PgRows::Row& r) {
  pb::AppealComment c;
  c.set_id(r.get<std::string>(0));
  c.set_appeal_id(r.get<std::string>(1));
  c.set_created_by(r.get<std::string>(2));
  c.set_body(r.get<std::string>(3));
  *c.mutable_created_at() = FromMicros(r.get<long long>(4));
  *c.mutable_updated_at() = FromMicros(r.get<long long>(5));
  return c;
}

}  // namespace

// Inserts a->approvals(first..) as steps `first`.. of the appeal's
// current revision (with their details), assigning ids; throws the
// driver's error.
void InsertApprovalRows(soci::session& sql, pb::Appeal* a, int first) {
  if (first >= a->approvals_size()) return;
  nlohmann::json rows = nlohmann::json::array();
  for (int i = first; i < a->approvals_size(); ++i) {
    const pb::Approval& p = a->approvals(i);
    rows.push_back({{"step_index", i}, {"name", p.name()}, {"status", p.status()},
                    {"actor", p.actor()}, {"reason", p.reason()},
                    {"approvers", nlohmann::json(std::vector<std::string>(
                                      p.approvers().begin(), p.approvers().end()))},
                    {"policy_id", p.policy_id()}, {"policy_version", p.policy_version()},
                    {"details", StructToJson(p.details())}});
  }
  Query q;
  std::string id = q.Param(a->id()), revision = q.Param(absl::StrCat(a->revision())),
              records = q.Param(rows.dump());
  PgRows inserted = q.Rows(sql, absl::StrCat(
      "INSERT INTO approvals (appeal_id, step_index, name, status, actor, reason, approvers, "
      "policy_id, policy_version, appeal_revision, details) SELECT CAST(", id, " AS uuid), "
      "x.step_index, x.name, x.status, x.actor, x.reason, x.approvers, x.policy_id, "
      "x.policy_version, CAST(", revision, " AS int), COALESCE(x.details, '{}'::jsonb) FROM "
      "jsonb_to_recordset(CAST(", records, " AS jsonb)) AS x(step_index int, name text, "
      "status text, actor text, reason text, approvers jsonb, policy_id text, "
      "policy_version int, details jsonb) RETURNING id::text, step_index, ",
      Micros("created_at")));
  for (const auto& r : inserted) {
    int i = r.get<int>(1);
    if (i < 0 || i >= a->approvals_size()) continue;
    pb::Approval* p = a->mutable_approvals(i);
    p->set_id(r.get<std::string>(0));
    p->set_appeal_id(a->id());
    *p->mutable_created_at() = FromMicros(r.get<long long>(2));
    *p->mutable_updated_at() = p->created_at();
  }
}

absl::StatusOr<std::vector<pb::AppealComment>> PostgresAppealRepository::ListComments(
    const std::string& appeal_id, bool newest_first) {
  std::vector<pb::AppealComment> out;
  if (!IsUuid(appeal_id)) return out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    Query q;
    q.Where(absl::StrCat("c.appeal_id = CAST(", q.Param(appeal_id), " AS uuid)"));
    const char* dir = newest_first ? " DESC" : " ASC";
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", kCommentCols, Micros("c.created_at"),
                                                  ", ", Micros("c.updated_at"),
                                                  " FROM appeal_comments c", q.WhereClause(),
                                                  " ORDER BY c.created_at", dir, ", c.id", dir))) {
      out.push_back(CommentFromRow(r));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<pb::AuditLog>> PostgresAppealRepository::ListAppealAudit(
    const std::string& appeal_id, const std::vector<std::string>& actions) {
  std::vector<pb::AuditLog> out;
  if (actions.empty()) return out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    Query q;
    q.In("l.action", actions);
    // Sluice's appeal rows name the appeal in data.id, the revoke rows in
    // data.appeal_id (they are about a grant); the expression index of
    // migration 0014 serves this predicate.
    q.Where(absl::StrCat("COALESCE(l.data->>'appeal_id', l.data->>'id') = ", q.Param(appeal_id)));
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT l.id, ", Micros("l.timestamp"),
                                                  ", l.action, l.actor, l.data::text "
                                                  "FROM audit_logs l",
                                                  q.WhereClause(),
                                                  " ORDER BY l.timestamp DESC, l.id DESC"))) {
      pb::AuditLog log;
      log.set_id(r.get<long long>(0));
      *log.mutable_timestamp() = FromMicros(r.get<long long>(1));
      log.set_action(r.get<std::string>(2));
      log.set_actor(r.get<std::string>(3));
      if (auto s = JsonStringToProto(r.get<std::string>(4), log.mutable_data()); !s.ok()) {
        return s;
      }
      out.push_back(std::move(log));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status PostgresAppealRepository::InsertComment(pb::AppealComment* comment,
                                                     const AuditEntry& audit) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    Query q;
    std::string appeal = q.Param(comment->appeal_id()), by = q.Param(comment->created_by()),
                body = q.Param(comment->body());
    for (const auto& r : q.Rows(sql, absl::StrCat(
             "INSERT INTO appeal_comments AS c (appeal_id, created_by, body) VALUES (CAST(", appeal,
             " AS uuid), ", by, ", ", body, ") RETURNING ", kCommentCols,
             Micros("c.created_at"), ", ", Micros("c.updated_at")))) {
      *comment = CommentFromRow(r);
    }
    AuditEntry entry = audit;
    entry.data["id"] = comment->id();
    WriteAudit(sql, entry);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<std::string>> PostgresAppealRepository::ListUserRoles(
    const std::string& owner) {
  std::vector<std::string> out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    Query q;
    q.Where("g.status = 'active'");
    q.Eq("g.owner", owner);
    // grants_owner_idx (owner, created_at) narrows it to the caller's grants.
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT DISTINCT g.role FROM grants g",
                                                  q.WhereClause(), " ORDER BY g.role"))) {
      out.push_back(r.get<std::string>(0));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<std::pair<std::vector<std::string>, int>>>
PostgresAppealRepository::SummarizeApprovals(const ApprovalSummaryQuery& s) {
  std::vector<std::pair<std::vector<std::string>, int>> out;
  if (s.group_columns.empty()) return out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    Query q;
    q.Where("NOT p.is_stale");
    q.In("p.status", s.statuses);
    q.In("a.status", s.appeal_statuses);
    q.In("a.account_id", s.account_ids);
    q.In("a.account_type", s.account_types);
    q.In("r.type", s.resource_types);
    q.In("r.urn", s.resource_urns);
    q.In("r.provider_type", s.provider_types);
    q.In("r.provider_urn", s.provider_urns);
    q.In("a.role", s.roles);
    q.In("p.name", s.step_names);
    // An approver of the approval: approvers_idx (GIN) for each.
    if (!s.approvers.empty()) {
      std::vector<std::string> any;
      for (const auto& e : s.approvers) any.push_back(absl::StrCat("p.approvers ? ", q.Param(e)));
      q.Where(absl::StrCat("(", absl::StrJoin(any, " OR "), ")"));
    }
    // The columns come from the core's allow-list (GroupColumns), never from the request.
    std::string cols = absl::StrJoin(s.group_columns, ", ");
    for (const auto& r : q.Rows(sql, absl::StrCat(
             "SELECT ", cols, ", count(*)::int FROM approvals p JOIN appeals a ON a.id = "
             "p.appeal_id JOIN resources r ON r.id = a.resource_id", q.WhereClause(),
             " GROUP BY ", cols, " ORDER BY ", cols))) {
      std::vector<std::string> values;
      for (size_t i = 0; i < s.group_columns.size(); ++i) values.push_back(r.get<std::string>(i));
      out.emplace_back(std::move(values), r.get<int>(s.group_columns.size()));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace sluice::access
