#include "server/access/store/postgres_repositories.h"

#include "server/access/store/sql_rows.h"

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "common/db/advisory_lock.h"
#include "common/db/audit.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"
#include "server/access/store/pg_exec.h"

namespace sluice::access {
namespace {

using soci::use;

void Audit(soci::session& sql, const AuditEntry& a) {
  db::WriteAuditLog(sql, a.action, a.actor, a.data);
}

// Column list and row decoder for providers.
constexpr char kProviderCols[] =
    "id::text, type, urn, config::text, credentials, "
    "(extract(epoch from created_at) * 1000000)::bigint, "
    "(extract(epoch from updated_at) * 1000000)::bigint";

absl::StatusOr<StoredProvider> ProviderFromRow(const soci::row& r) {
  StoredProvider s;
  s.provider.set_id(r.get<std::string>(0));
  s.provider.set_type(r.get<std::string>(1));
  s.provider.set_urn(r.get<std::string>(2));
  if (auto st = JsonStringToProto(r.get<std::string>(3), s.provider.mutable_config()); !st.ok()) {
    return st;
  }
  s.encrypted_credentials = r.get<std::string>(4);
  *s.provider.mutable_created_at() = FromMicros(r.get<long long>(5));
  *s.provider.mutable_updated_at() = FromMicros(r.get<long long>(6));
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

absl::Status NotFoundResource(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("resource \"", id, "\" not found"));
}

}  // namespace

// ---------------------------------------------------------------- policies

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
    Audit(sql, audit);
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

absl::StatusOr<std::vector<pb::Policy>> PostgresPolicyRepository::ListLatest(const Page& page,
                                                                            int64_t* total) {
  std::vector<pb::Policy> out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    long long count = 0;
    sql << "SELECT count(DISTINCT id) FROM policies", soci::into(count);
    *total = count;
    PgRows rows = PgExec(sql,
                         absl::StrCat("SELECT DISTINCT ON (id) data::text FROM policies "
                                      "ORDER BY id, version DESC LIMIT ",
                                      page.size, " OFFSET ", page.offset),
                         {});
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

// ---------------------------------------------------------------- providers

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
    Audit(sql, a);
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
    Audit(sql, audit);
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
    const Page& page, int64_t* total) {
  return Load(&page, total);
}

absl::StatusOr<std::vector<StoredProvider>> PostgresProviderRepository::Load(const Page* page,
                                                                            int64_t* total) {
  std::vector<StoredProvider> out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    if (total != nullptr) {
      long long count = 0;
      sql << "SELECT count(*) FROM providers", soci::into(count);
      *total = count;
    }
    std::string tail =
        page ? absl::StrCat(" LIMIT ", page->size, " OFFSET ", page->offset) : std::string();
    soci::rowset<soci::row> rows =
        (sql.prepare << absl::StrCat("SELECT ", kProviderCols,
                                     " FROM providers ORDER BY created_at, id", tail));
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
    Audit(sql, audit);
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
    Audit(sql, audit);
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------- resources

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
    q.Eq("r.provider_type", f.provider_type);
    q.Eq("r.provider_urn", f.provider_urn);
    q.Eq("r.type", f.type);
    q.Eq("r.urn", f.urn);
    q.Eq("r.name", f.name);
    if (!f.details.empty()) {
      q.Where(absl::StrCat("r.details @> CAST(", q.Param(contains.dump()), " AS jsonb)"));
    }
    if (total != nullptr) {
      *total = q.Count(sql, absl::StrCat("SELECT count(*) FROM resources r", q.WhereClause()));
    }
    PgRows rows = q.Rows(sql, absl::StrCat("SELECT ", kResourceCols, " FROM resources r",
                                           q.WhereClause(),
                                           " ORDER BY r.provider_type, r.provider_urn, r.type, "
                                           "r.urn LIMIT ", page.size, " OFFSET ", page.offset));
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
    Audit(sql, audit);
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
    Audit(sql, audit);
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------- audit log

absl::StatusOr<std::vector<pb::AuditLog>> PostgresAuditLogRepository::List(
    const AuditLogFilter& f, int64_t* total) {
  std::vector<pb::AuditLog> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    std::string where =
        "(:ac = '' OR action = :ac) AND (:who = '' OR actor = :who) "
        "AND (:st = '' OR timestamp >= CAST(NULLIF(:st, '') AS timestamptz)) "
        "AND (:et = '' OR timestamp < CAST(NULLIF(:et, '') AS timestamptz))";
    long long count = 0;
    try {
      sql << absl::StrCat("SELECT count(*) FROM audit_logs WHERE ", where), soci::into(count),
          use(f.action, "ac"), use(f.actor, "who"), use(f.start_time, "st"),
          use(f.end_time, "et");
    } catch (const soci::soci_error& e) {
      if (std::string(e.what()).find("invalid input syntax") != std::string::npos ||
          std::string(e.what()).find("out of range") != std::string::npos) {
        return absl::InvalidArgumentError(
            "start_time/end_time: want RFC 3339 timestamps such as 2026-01-02T15:04:05Z");
      }
      throw;
    }
    *total = count;
    int size = f.size, offset = f.offset;
    soci::rowset<soci::row> rows =
        (sql.prepare << absl::StrCat(
             "SELECT id, (extract(epoch from timestamp) * 1000000)::bigint, action, actor, "
             "data::text FROM audit_logs WHERE ",
             where, " ORDER BY timestamp DESC, id DESC LIMIT :lim OFFSET :off"),
         use(f.action, "ac"), use(f.actor, "who"), use(f.start_time, "st"),
         use(f.end_time, "et"), use(size, "lim"), use(offset, "off"));
    for (const auto& r : rows) {
      pb::AuditLog log;
      log.set_id(r.get<long long>(0));
      *log.mutable_timestamp() = FromMicros(r.get<long long>(1));
      log.set_action(r.get<std::string>(2));
      log.set_actor(r.get<std::string>(3));
      (void)JsonStringToProto(r.get<std::string>(4), log.mutable_data());
      out.push_back(std::move(log));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<bool> PostgresJobLock::RunExclusive(int64_t key, const std::function<void()>& fn) {
  return db::RunExclusive(*pool_, key, fn);
}

}  // namespace sluice::access
