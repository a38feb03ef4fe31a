#include "server/access/store/postgres_policy_repository.h"

#include <soci/soci.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/access/core/json.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {

using soci::use;

absl::Status PostgresPolicyRepository::Insert(const pb::Policy& policy, const AuditEntry& audit) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    std::string id = policy.id(), data = ProtoToJsonString(policy), by = policy.created_by();
    int version = static_cast<int>(policy.version());
    try {
      sql << "INSERT INTO policies (id, version, data, created_by) "
             "VALUES (:id, :v, CAST(:d AS jsonb), :by)",
          use(id), use(version), use(data), use(by);
    } catch (const soci::soci_error& e) {
      return db::FromSociError(e, "insert policy");
    }
    WriteAudit(sql, audit);
    return absl::OkStatus();
  });
}

absl::StatusOr<pb::Policy> PostgresPolicyRepository::Get(const std::string& id,
                                                         uint32_t version) {
  pb::Policy out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    std::string data;
    soci::indicator ind = soci::i_null;
    int v = static_cast<int>(version);
    if (version == 0) {
      sql << "SELECT data::text FROM policies WHERE id = :id ORDER BY version DESC LIMIT 1",
          soci::into(data, ind), use(id);
    } else {
      sql << "SELECT data::text FROM policies WHERE id = :id AND version = :v",
          soci::into(data, ind), use(id), use(v);
    }
    if (!sql.got_data() || ind == soci::i_null) {
      return version == 0
                 ? absl::NotFoundError(absl::StrCat("policy \"", id, "\" not found"))
                 : absl::NotFoundError(
                       absl::StrCat("policy \"", id, "\" version ", version, " not found"));
    }
    return JsonStringToProto(data, &out);
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<pb::Policy>> PostgresPolicyRepository::List(
    const Page& page, int64_t* total, const std::vector<std::string>& ids) {
  // Guardian's applyPolicyIDsFilter: "<id>" every version, "<id>:0" the
  // latest, "<id>:<n>" version n; malformed entries are skipped.
  std::vector<std::string> all, latest, exact;
  for (const std::string& raw : ids) {
    std::vector<std::string> parts = absl::StrSplit(raw, ':');
    if (parts.size() > 2) continue;
    std::string id(absl::StripAsciiWhitespace(parts[0]));
    if (id.empty()) continue;
    if (parts.size() == 1) {
      all.push_back(id);
      continue;
    }
    int v = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(parts[1]), &v) || v < 0) continue;
    if (v == 0) {
      latest.push_back(id);
    } else {
      exact.push_back(absl::StrCat(id, ":", v));
    }
  }
  std::vector<pb::Policy> out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    Query q;
    std::string select = "SELECT data::text FROM policies p";
    if (!ids.empty()) {
      std::vector<std::string> conds;
      if (!all.empty()) conds.push_back(absl::StrCat("p.id = ANY(", q.ArrayParam(all), ")"));
      if (!latest.empty()) {
        conds.push_back(absl::StrCat("(p.id = ANY(", q.ArrayParam(latest),
                                     ") AND p.version = (SELECT max(version) FROM policies p2 "
                                     "WHERE p2.id = p.id))"));
      }
      if (!exact.empty()) {
        conds.push_back(absl::StrCat("p.id || ':' || p.version = ANY(", q.ArrayParam(exact), ")"));
      }
      q.Where(conds.empty() ? "false" : absl::StrCat("(", absl::StrJoin(conds, " OR "), ")"));
    }
    *total = q.Count(sql, absl::StrCat("SELECT count(*) FROM policies p", q.WhereClause()));
    // Guardian's Find: every version, ORDER BY created_at ASC; id and
    // version make the order total, so pages never overlap.
    PgRows rows = q.Rows(sql, absl::StrCat(select, q.WhereClause(),
                                           " ORDER BY p.created_at, p.id, p.version LIMIT ",
                                           page.size, " OFFSET ", page.offset));
    for (const auto& r : rows) {
      pb::Policy p;
      if (auto s = JsonStringToProto(r.get<std::string>(0), &p); !s.ok()) return s;
      out.push_back(std::move(p));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace sluice::access
