// PostgresAppealRepository's lists: appeals, approvals and grants with
// Guardian's filters (issue 28), a non-admin's visibility, order, page and
// total (PageTotal: counted only for a full page).
#include <algorithm>
#include <map>
#include <tuple>

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {
namespace {

// The resource filters and Guardian's `q` search that the appeal and
// approval lists share (appeal_repository.go, approval_repository.go: LIKE
// on the appeal's account_id, role, resource urn or name, exact matches
// first). `f` is an AppealFilter or an ApprovalFilter; the query joins
// appeals as `a` and resources as `r`. Returns the ORDER BY prefix that puts
// exact matches first ("" without q).
template <typename Filter>
std::string AddResourceAndSearchFilters(Query& q, const Filter& f) {
  q.In("r.provider_type", f.provider_types);
  q.Match("r.provider_urn", f.provider_urn_match, f.provider_urns);
  q.In("r.type", f.resource_types);
  q.In("r.urn", f.resource_urns);
  if (f.q.empty()) return "";
  std::string like = q.Param(absl::StrCat("%", f.q, "%"));
  // q itself, from the same parameter: the count query binds the same
  // values, and PostgreSQL refuses a parameter a statement never uses.
  std::string exact = absl::StrCat("substr(", like, ", 2, length(", like, ") - 2)");
  q.Where(absl::StrCat("(a.account_id LIKE ", like, " OR a.role LIKE ", like, " OR r.urn LIKE ",
                       like, " OR r.name LIKE ", like, ")"));
  return absl::StrCat("CASE WHEN a.account_id = ", exact, " OR a.role = ", exact, " OR r.urn = ",
                      exact, " OR r.name = ", exact, " THEN 0 ELSE 1 END, ");
}

}  // namespace

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
    q.Match("a.role", f.role_match, f.roles);
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
    std::string order_prefix = AddResourceAndSearchFilters(q, f);
    bool need_resource = !f.q.empty() || !f.provider_types.empty() || !f.provider_urns.empty() ||
                         !f.provider_urn_match.empty() || !f.resource_types.empty() ||
                         !f.resource_urns.empty();
    std::string from = " FROM appeals a JOIN resources r ON r.id = a.resource_id";
    std::vector<std::string> ids;
    PgRows rows = q.Rows(sql, absl::StrCat("SELECT ", AppealCols(), ", ", kResourceCols, from,
                                                  q.WhereClause(),
                                                  WithPrefix(order_prefix, OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "a.", "a.id")),
                                                  " LIMIT ", f.size, " OFFSET ", f.offset));
    *total = static_cast<int>(PageTotal(sql, q, need_resource ? from : " FROM appeals a",
                                        rows.size(), f.size, f.offset));
    for (const auto& r : rows) {
      pb::Appeal a = AppealFromRow(r);
      *a.mutable_resource() = ResourceFromRow(r, kAppealColCount);
      ids.push_back(a.id());
      out.push_back(std::move(a));
    }
    auto approvals = f.with_approvals ? LoadApprovals(sql, ids)
                                      : std::map<std::string, std::vector<pb::Approval>>{};
    auto grants = LoadGrants(sql, ids);
    for (auto& a : out) {  // each appeal's own approvals and grant, moved, not copied
      if (auto it = approvals.find(a.id()); it != approvals.end()) {
        for (auto& p : it->second) *a.add_approvals() = std::move(p);
      }
      if (auto it = grants.find(a.id()); it != grants.end()) *a.mutable_grant() = std::move(it->second);
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
    q.Where("NOT p.is_stale");  // earlier revisions' approvals (PatchAppeal)
    q.Eq("a.account_id", f.account_id);
    q.In("a.account_id", f.account_ids);
    q.In("a.account_type", f.account_types);
    q.In("a.status", f.appeal_statuses);
    q.Match("a.role", f.role_match, f.roles);
    q.Within("a.created_at", f.created);
    q.In("p.status", f.statuses);
    q.In("p.name", f.step_names);
    if (!f.approver.empty()) q.Where(absl::StrCat("p.approvers ? ", q.Param(f.approver)));
    std::string order_prefix = AddResourceAndSearchFilters(q, f);
    bool need_resource = !f.q.empty() || !f.provider_types.empty() || !f.provider_urns.empty() ||
                         !f.provider_urn_match.empty() || !f.resource_types.empty() ||
                         !f.resource_urns.empty();
    bool need_appeal = need_resource || !f.account_id.empty() || !f.account_ids.empty() ||
                       !f.account_types.empty() || !f.appeal_statuses.empty() ||
                       !f.roles.empty() || !f.role_match.empty() || f.created.start_micros ||
                       f.created.end_micros;
    std::string from = " FROM approvals p JOIN appeals a ON a.id = p.appeal_id JOIN resources r ON r.id = a.resource_id";
    PgRows rows = q.Rows(sql, absl::StrCat("SELECT ", ApprovalCols(), ", ", AppealCols(), ", ",
                                                  kResourceCols, from, q.WhereClause(),
                                                  WithPrefix(order_prefix, OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "p.", "p.id")),
                                                  " LIMIT ", f.size, " OFFSET ", f.offset));
    *total = static_cast<int>(PageTotal(
        sql, q,
        need_resource ? from
                      : (need_appeal ? " FROM approvals p JOIN appeals a ON a.id = p.appeal_id"
                                     : " FROM approvals p"),
        rows.size(), f.size, f.offset));
    for (const auto& r : rows) {
      pb::Approval p = ApprovalFromRow(r);
      pb::Appeal* a = p.mutable_appeal();
      *a = AppealFromRow(r, kApprovalColCount);
      *a->mutable_resource() = ResourceFromRow(r, kApprovalColCount + kAppealColCount);
      out.push_back(std::move(p));
    }
    // Each approval's appeal with its current steps, as Guardian's
    // ListApprovals preloads Appeal.Approvals.
    std::vector<std::string> appeal_ids;
    for (const auto& p : out) appeal_ids.push_back(p.appeal_id());
    std::sort(appeal_ids.begin(), appeal_ids.end());
    appeal_ids.erase(std::unique(appeal_ids.begin(), appeal_ids.end()), appeal_ids.end());
    auto steps = LoadApprovals(sql, appeal_ids);
    for (auto& p : out) {
      if (auto it = steps.find(p.appeal_id()); it != steps.end()) {
        for (const auto& step : it->second) *p.mutable_appeal()->add_approvals() = step;
      }
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
                         !f.provider_urn_match.empty() || !f.resource_types.empty() ||
                         !f.resource_urns.empty();
    q.In("g.status", f.statuses);
    q.In("g.account_id", f.account_ids);
    q.In("g.account_type", f.account_types);
    if (!f.resource_ids.empty()) {
      q.Where(absl::StrCat("g.resource_id = ANY(CAST(", q.ArrayParam(f.resource_ids), " AS uuid[]))"));
    }
    q.Match("g.role", f.role_match, f.roles);
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
    q.Match("r.provider_urn", f.provider_urn_match, f.provider_urns);
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
    std::vector<std::string> appeal_ids;
    PgRows rows = q.Rows(sql, absl::StrCat("SELECT ", GrantCols(), ", ", kResourceCols,
                                                  " FROM grants g", join, q.WhereClause(),
                                                  WithPrefix(order_prefix, OrderClause(f.order_by.empty()
                                                                  ? std::vector<std::pair<std::string, bool>>{{"created_at", true}}
                                                                  : f.order_by,
                                                              "g.", "g.id")),
                                                  " LIMIT ", f.size, " OFFSET ", f.offset));
    *total = static_cast<int>(PageTotal(sql, q,
                                        absl::StrCat(" FROM grants g", need_resource ? join : ""),
                                        rows.size(), f.size, f.offset));
    for (const auto& r : rows) {
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
        if (auto it = appeals.find(g.appeal_id()); it != appeals.end()) *g.mutable_appeal() = it->second;
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

}  // namespace sluice::access
