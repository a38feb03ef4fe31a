#include "server/access/store/postgres_provider_repository.h"

#include <soci/soci.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {
namespace {

using soci::use;

// Column list and row decoder for providers.
constexpr char kProviderCols[] =
    "id::text, type, urn, config::text, credentials, "
    "(extract(epoch from created_at) * 1000000)::bigint, "
    "(extract(epoch from updated_at) * 1000000)::bigint";

template <typename Row>
absl::StatusOr<StoredProvider> ProviderFromRow(const Row& r) {
  StoredProvider s;
  s.provider.set_id(r.template get<std::string>(0));
  s.provider.set_type(r.template get<std::string>(1));
  s.provider.set_urn(r.template get<std::string>(2));
  if (auto st = JsonStringToProto(r.template get<std::string>(3), s.provider.mutable_config()); !st.ok()) {
    return st;
  }
  s.encrypted_credentials = r.template get<std::string>(4);
  *s.provider.mutable_created_at() = FromMicros(r.template get<long long>(5));
  *s.provider.mutable_updated_at() = FromMicros(r.template get<long long>(6));
  return s;
}

std::string ResourcesJson(const std::vector<pb::Resource>& resources) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& r : resources) {
    nlohmann::json labels = nlohmann::json::object();
    for (const auto& kv : r.labels()) labels[kv.first] = kv.second;
    arr.push_back({{"type", r.type()},
                   {"urn", r.urn()},
                   {"name", r.name()},
                   {"details", StructToJson(r.details())},
                   {"labels", labels}});
  }
  return arr.dump();
}

// The sync statements: upsert the fetched set, soft-delete what is gone.
void Sync(soci::session& sql, const std::string& ptype, const std::string& purn,
          const std::vector<pb::Resource>& resources) {
  std::string rs = ResourcesJson(resources);
  sql << "INSERT INTO resources (provider_type, provider_urn, type, urn, name, details, "
         "provider_details, labels) "
         "SELECT :pt, :pu, r.type, r.urn, COALESCE(r.name, ''), COALESCE(r.details, '{}'), "
         "COALESCE(r.details, '{}'), COALESCE(r.labels, '{}') "
         "FROM jsonb_to_recordset(CAST(:rs AS jsonb)) "
         "AS r(type text, urn text, name text, details jsonb, labels jsonb) "
         "ON CONFLICT (provider_type, provider_urn, type, urn) DO UPDATE SET "
         "name = EXCLUDED.name, provider_details = EXCLUDED.provider_details, "
         "details = resources.user_details || EXCLUDED.provider_details, "
         "is_deleted = false, updated_at = now()",
      use(ptype), use(purn), use(rs);
  sql << "UPDATE resources SET is_deleted = true, updated_at = now() "
         "WHERE provider_type = :pt AND provider_urn = :pu AND NOT is_deleted AND "
         "(type, urn) NOT IN (SELECT r.type, r.urn FROM jsonb_to_recordset(CAST(:rs AS jsonb)) "
         "AS r(type text, urn text))",
      use(ptype), use(purn), use(rs);
}

absl::Status NotFoundProvider(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("provider \"", id, "\" not found"));
}

}  // namespace

absl::StatusOr<StoredProvider> PostgresProviderRepository::Create(
    const StoredProvider& provider, const std::vector<pb::Resource>& resources,
    const AuditEntry& audit) {
  StoredProvider out = provider;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    std::string type = provider.provider.type(), urn = provider.provider.urn();
    std::string config = ProtoToJsonString(provider.provider.config());
    std::string creds = provider.encrypted_credentials, id;
    try {
      sql << "INSERT INTO providers (type, urn, config, credentials) "
             "VALUES (:t, :u, CAST(:c AS jsonb), :cr) RETURNING id::text",
          use(type), use(urn), use(config), use(creds), soci::into(id);
    } catch (const soci::soci_error& e) {
      return db::FromSociError(e, "insert provider");
    }
    out.provider.set_id(id);
    Sync(sql, type, urn, resources);
    AuditEntry a = audit;
    a.data["id"] = id;
    WriteAudit(sql, a);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<StoredProvider> PostgresProviderRepository::Update(
    const StoredProvider& provider, const std::vector<pb::Resource>& resources,
    const AuditEntry& audit) {
  const std::string& id = provider.provider.id();
  if (!IsUuid(id)) return NotFoundProvider(id);
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    std::string config = ProtoToJsonString(provider.provider.config());
    std::string creds = provider.encrypted_credentials;
    long long updated = ToMicros(provider.provider.updated_at());
    sql << "UPDATE providers SET config = CAST(:c AS jsonb), credentials = :cr, "
           "updated_at = to_timestamp(:u / 1000000.0) WHERE id = CAST(:id AS uuid)",
        use(config), use(creds), use(updated), use(id);
    int n = 0;
    sql << "SELECT count(*) FROM providers WHERE id = CAST(:id AS uuid)", soci::into(n), use(id);
    if (n == 0) return NotFoundProvider(id);
    Sync(sql, provider.provider.type(), provider.provider.urn(), resources);
    WriteAudit(sql, audit);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return Get(id);
}

absl::StatusOr<StoredProvider> PostgresProviderRepository::Get(const std::string& id) {
  if (!IsUuid(id)) return NotFoundProvider(id);
  absl::StatusOr<StoredProvider> out = NotFoundProvider(id);
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    soci::rowset<soci::row> rows =
        (sql.prepare << absl::StrCat("SELECT ", kProviderCols,
                                     " FROM providers WHERE id = CAST(:id AS uuid)"),
         use(id));
    for (const auto& r : rows) out = ProviderFromRow(r);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<StoredProvider> PostgresProviderRepository::GetByTypeUrn(const std::string& type,
                                                                        const std::string& urn) {
  absl::StatusOr<StoredProvider> out =
      absl::NotFoundError(absl::StrCat("provider ", type, "/", urn, " not found"));
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    soci::rowset<soci::row> rows =
        (sql.prepare << absl::StrCat("SELECT ", kProviderCols,
                                     " FROM providers WHERE type = :t AND urn = :u"),
         use(type), use(urn));
    for (const auto& r : rows) out = ProviderFromRow(r);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<StoredProvider>> PostgresProviderRepository::List() {
  return Load(nullptr, nullptr);
}

absl::StatusOr<std::vector<StoredProvider>> PostgresProviderRepository::ListPage(
    const Page& page, int64_t* total, const ProviderFilter& filter) {
  return Load(&page, total, &filter);
}

absl::StatusOr<std::vector<StoredProvider>> PostgresProviderRepository::Load(
    const Page* page, int64_t* total, const ProviderFilter* filter) {
  std::vector<StoredProvider> out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    Query q;
    if (filter != nullptr) {
      q.In("id::text", filter->ids);
      q.In("type", filter->types);
      // Guardian: "<urn>" matches the urn, "<urn>:<type>" both; entries with
      // more colons or an empty part are skipped.
      std::vector<std::string> conds;
      for (const std::string& raw : filter->urns) {
        std::vector<std::string> parts = absl::StrSplit(raw, ':');
        if (parts.size() > 2) continue;
        std::string urn(absl::StripAsciiWhitespace(parts[0]));
        if (urn.empty()) continue;
        if (parts.size() == 1) {
          conds.push_back(absl::StrCat("urn = ", q.Param(urn)));
          continue;
        }
        std::string type(absl::StripAsciiWhitespace(parts[1]));
        if (type.empty()) continue;
        conds.push_back(absl::StrCat("(urn = ", q.Param(urn), " AND type = ", q.Param(type), ")"));
      }
      if (!conds.empty()) q.Where(absl::StrCat("(", absl::StrJoin(conds, " OR "), ")"));
    }
    if (total != nullptr) {
      *total = q.Count(sql, absl::StrCat("SELECT count(*) FROM providers", q.WhereClause()));
    }
    std::string tail =
        page ? absl::StrCat(" LIMIT ", page->size, " OFFSET ", page->offset) : std::string();
    PgRows rows = q.Rows(sql, absl::StrCat("SELECT ", kProviderCols, " FROM providers",
                                           q.WhereClause(), " ORDER BY created_at, id", tail));
    for (const auto& r : rows) {
      auto p = ProviderFromRow(r);
      if (!p.ok()) return p.status();
      out.push_back(std::move(*p));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status PostgresProviderRepository::Delete(const std::string& id, const AuditEntry& audit) {
  if (!IsUuid(id)) return NotFoundProvider(id);
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    std::string type, urn;
    soci::indicator ind = soci::i_null;
    sql << "DELETE FROM providers WHERE id = CAST(:id AS uuid) RETURNING type, urn",
        soci::into(type, ind), soci::into(urn), use(id);
    if (!sql.got_data()) return NotFoundProvider(id);
    sql << "UPDATE resources SET is_deleted = true, updated_at = now() "
           "WHERE provider_type = :t AND provider_urn = :u AND NOT is_deleted",
        use(type), use(urn);
    WriteAudit(sql, audit);
    return absl::OkStatus();
  });
}

absl::Status PostgresProviderRepository::SyncResources(const pb::Provider& provider,
                                                       const std::vector<pb::Resource>& resources,
                                                       const AuditEntry& audit) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    // Skip providers deleted since the fetch started.
    int n = 0;
    std::string type = provider.type(), urn = provider.urn();
    sql << "SELECT count(*) FROM providers WHERE type = :t AND urn = :u", soci::into(n),
        use(type), use(urn);
    if (n == 0) return NotFoundProvider(provider.id());
    Sync(sql, type, urn, resources);
    WriteAudit(sql, audit);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::map<std::string, std::vector<std::string>>>
PostgresProviderRepository::ResourceTypes() {
  std::map<std::string, std::vector<std::string>> out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    Query q;
    for (const auto& r : q.Rows(sql, "SELECT DISTINCT provider_type, type FROM resources "
                                     "WHERE NOT is_deleted ORDER BY provider_type, type")) {
      out[r.get<std::string>(0)].push_back(r.get<std::string>(1));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}


}  // namespace sluice::access
