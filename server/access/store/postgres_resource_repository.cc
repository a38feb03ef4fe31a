#include "server/access/store/postgres_resource_repository.h"

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"
#include "server/access/store/pg_exec.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {
namespace {

using soci::use;

absl::Status NotFoundResource(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("resource \"", id, "\" not found"));
}

}  // namespace

absl::StatusOr<std::vector<pb::Resource>> PostgresResourceRepository::List(
    const ResourceFilter& f, const Page& page, int64_t* total) {
  std::vector<pb::Resource> out;
  nlohmann::json contains = nlohmann::json::object();
  for (const auto& [path, value] : f.details) {
    nlohmann::json* node = &contains;
    for (const auto& seg : path) node = &(*node)[seg];
    *node = value;
  }
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    Query q;
    q.Where(f.is_deleted ? "r.is_deleted" : "NOT r.is_deleted");
    if (!f.ids.empty()) {
      q.Where(absl::StrCat("r.id = ANY(CAST(", q.ArrayParam(f.ids), " AS uuid[]))"));
    }
    q.In("r.provider_type", f.provider_types);
    q.Eq("r.provider_type", f.provider_type);
    q.In("r.type", f.types);
    q.Eq("r.type", f.type);
    q.Match("r.provider_urn", f.provider_urn_match, f.provider_urns);
    q.Eq("r.provider_urn", f.provider_urn);
    q.Match("r.urn", f.urn_match, f.urns);
    q.Eq("r.urn", f.urn);
    q.Eq("r.name", f.name);
    if (!f.details.empty()) {
      q.Where(absl::StrCat("r.details @> CAST(", q.Param(contains.dump()), " AS jsonb)"));
    }
    std::string order = " ORDER BY r.provider_type, r.provider_urn, r.type, r.urn";
    if (!f.q.empty()) {
      // Guardian: ILIKE on urn or name, exact matches first.
      std::string like = q.Param(absl::StrCat("%", f.q, "%"));
      // q itself, from the same parameter: the count query binds the same
      // values, and PostgreSQL refuses a parameter a statement never uses.
      std::string exact = absl::StrCat("substr(", like, ", 2, length(", like, ") - 2)");
      q.Where(absl::StrCat("(r.urn ILIKE ", like, " OR r.name ILIKE ", like, ")"));
      order = absl::StrCat(" ORDER BY CASE WHEN r.urn = ", exact, " OR r.name = ", exact,
                           " THEN 0 ELSE 1 END");
      order += f.order_by.empty() ? ", r.provider_type, r.provider_urn, r.type, r.urn"
                                  : OrderClause(f.order_by, "r.", "r.id").replace(0, 9, ",");
    } else if (!f.order_by.empty()) {
      order = OrderClause(f.order_by, "r.", "r.id");
    }
    PgRows rows = q.Rows(sql, absl::StrCat("SELECT ", kResourceCols, " FROM resources r",
                                           q.WhereClause(), order, " LIMIT ", page.size,
                                           " OFFSET ", page.offset));
    if (total != nullptr) {
      *total = PageTotal(sql, q, " FROM resources r", rows.size(), page.size, page.offset);
    }
    out.clear();
    for (const auto& r : rows) out.push_back(ResourceFromRow(r));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<pb::Resource> PostgresResourceRepository::Get(const std::string& id) {
  if (!IsUuid(id)) return NotFoundResource(id);
  absl::StatusOr<pb::Resource> out = NotFoundResource(id);
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    // One round trip (no liveness ping): this is on the appeal-creation hot path.
    static const std::string* query = new std::string(
        absl::StrCat("SELECT ", kResourceCols, " FROM resources r WHERE r.id = CAST($1 AS uuid)"));
    PgRows rows = PgExecPrepared(sql, "sluice_access_get_resource", *query, {id});
    for (const auto& r : rows) out = ResourceFromRow(r);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<pb::Resource> PostgresResourceRepository::Update(
    const std::string& id, const google::protobuf::Struct& details,
    const google::protobuf::Map<std::string, std::string>* labels, const AuditEntry& audit) {
  if (!IsUuid(id)) return NotFoundResource(id);
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    nlohmann::json user = StructToJson(details);
    std::string d = user.dump();
    std::string provider_text;
    soci::indicator ind = soci::i_null;
    sql << "SELECT provider_details::text FROM resources WHERE id = CAST(:id AS uuid)",
        soci::into(provider_text, ind), use(id);
    if (!sql.got_data()) return NotFoundResource(id);
    // What the provider returns is the provider's: refuse instead of silently
    // dropping the change.
    nlohmann::json provider = nlohmann::json::parse(ind == soci::i_ok ? provider_text : "{}",
                                                    nullptr, false);
    if (provider.is_object() && user.is_object()) {
      for (const auto& [key, value] : user.items()) {
        if (provider.contains(key)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "details.", key, ": set by the provider; it cannot be overridden"));
        }
      }
    }
    // User keys never override what the provider owns.
    sql << "UPDATE resources SET user_details = user_details || CAST(:d AS jsonb), "
           "details = (user_details || CAST(:d AS jsonb)) || provider_details, "
           "updated_at = now() WHERE id = CAST(:id AS uuid)",
        use(d, "d"), use(id, "id");
    if (labels != nullptr) {
      nlohmann::json l = nlohmann::json::object();
      for (const auto& kv : *labels) l[kv.first] = kv.second;
      std::string lt = l.dump();
      sql << "UPDATE resources SET labels = CAST(:l AS jsonb) WHERE id = CAST(:id AS uuid)",
          use(lt, "l"), use(id, "id");
    }
    WriteAudit(sql, audit);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return Get(id);
}

absl::Status PostgresResourceRepository::Delete(const std::string& id, const AuditEntry& audit) {
  if (!IsUuid(id)) return NotFoundResource(id);
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    int n = 0;
    sql << "SELECT count(*) FROM resources WHERE id = CAST(:id AS uuid)", soci::into(n), use(id);
    if (n == 0) return NotFoundResource(id);
    sql << "UPDATE resources SET is_deleted = true, updated_at = now() "
           "WHERE id = CAST(:id AS uuid)",
        use(id);
    WriteAudit(sql, audit);
    return absl::OkStatus();
  });
}

absl::StatusOr<pb::Resource> PostgresResourceRepository::Create(const pb::Resource& resource,
                                                                const AuditEntry& audit) {
  std::string id;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    Query q;
    std::string found;
    q.Eq("r.provider_type", resource.provider_type());
    q.Eq("r.provider_urn", resource.provider_urn());
    q.Eq("r.type", resource.type());
    q.Eq("r.urn", resource.urn());
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT r.id::text, r.is_deleted::int FROM "
                                                  "resources r", q.WhereClause()))) {
      found = absl::StrCat("resource ", resource.urn(), " of type ", resource.type(),
                           " already exists: id=\"", r.get<std::string>(0), "\"",
                           r.get<int>(1) != 0 ? " (deleted)" : "");
    }
    if (!found.empty()) return absl::AlreadyExistsError(found);
    std::string details = StructToJson(resource.details()).dump();
    nlohmann::json labels = nlohmann::json::object();
    for (const auto& kv : resource.labels()) labels[kv.first] = kv.second;
    std::string label_text = labels.dump();
    sql << "INSERT INTO resources (provider_type, provider_urn, type, urn, name, details, "
           "user_details, labels) VALUES (:pt, :pu, :t, :u, :n, CAST(:d AS jsonb), "
           "CAST(:d2 AS jsonb), CAST(:l AS jsonb)) RETURNING id::text",
        use(resource.provider_type(), "pt"), use(resource.provider_urn(), "pu"),
        use(resource.type(), "t"), use(resource.urn(), "u"), use(resource.name(), "n"),
        use(details, "d"), use(details, "d2"), use(label_text, "l"), soci::into(id);
    AuditEntry entry = audit;
    entry.data["id"] = id;
    WriteAudit(sql, entry);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return Get(id);
}


}  // namespace sluice::access
