#include "server/access/store/postgres_activity_repository.h"

#include <map>
#include <utility>

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"
#include "server/access/store/pg_exec.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {
namespace {

std::string Cols() {
  return absl::StrCat(
      "a.id::text, a.provider_id::text, COALESCE(a.resource_id::text, ''), "
      "a.provider_activity_id, a.account_type, a.account_id, ",
      Micros("a.timestamp"),
      ", array_to_json(a.authorizations)::text, array_to_json(a.related_permissions)::text, "
      "a.type, a.metadata::text, ",
      Micros("a.created_at"));
}

std::vector<std::string> Strings(const std::string& json_array) {
  std::vector<std::string> out;
  auto j = nlohmann::json::parse(json_array, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

pb::ProviderActivity FromRow(const PgRows::Row& r) {
  pb::ProviderActivity a;
  a.set_id(r.get<std::string>(0));
  a.set_provider_id(r.get<std::string>(1));
  a.set_resource_id(r.get<std::string>(2));
  a.set_provider_activity_id(r.get<std::string>(3));
  a.set_account_type(r.get<std::string>(4));
  a.set_account_id(r.get<std::string>(5));
  *a.mutable_timestamp() = FromMicros(r.get<long long>(6));
  for (auto& s : Strings(r.get<std::string>(7))) a.add_authorizations(std::move(s));
  for (auto& s : Strings(r.get<std::string>(8))) a.add_related_permissions(std::move(s));
  a.set_type(r.get<std::string>(9));
  if (!r.IsEmptyJson(10)) (void)JsonStringToProto(r.get<std::string>(10), a.mutable_metadata());
  *a.mutable_created_at() = FromMicros(r.get<long long>(11));
  return a;
}

}  // namespace

absl::Status PostgresActivityRepository::BulkUpsert(std::vector<pb::ProviderActivity>* activities) {
  if (activities->empty()) return absl::OkStatus();
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::pair<std::string, std::string>, size_t> last;  // key -> index in `rows`
  for (const pb::ProviderActivity& a : *activities) {
    if (!IsUuid(a.provider_id())) {
      return absl::InvalidArgumentError(absl::StrCat("provider_id: not a UUID: ", a.provider_id()));
    }
    nlohmann::json row = {
        {"provider_id", a.provider_id()},
        {"provider_activity_id", a.provider_activity_id()},
        {"provider_type", a.resource().provider_type()},
        {"provider_urn", a.resource().provider_urn()},
        {"rtype", a.resource().type()},
        {"rurn", a.resource().urn()},
        {"account_type", a.account_type()},
        {"account_id", a.account_id()},
        {"ts", ToMicros(a.timestamp())},
        {"authorizations", std::vector<std::string>(a.authorizations().begin(),
                                                    a.authorizations().end())},
        {"related_permissions", std::vector<std::string>(a.related_permissions().begin(),
                                                         a.related_permissions().end())},
        {"type", a.type()},
        {"metadata", StructToJson(a.metadata())}};
    auto key = std::make_pair(a.provider_id(), a.provider_activity_id());
    auto it = last.find(key);
    if (it != last.end()) {
      rows[it->second] = std::move(row);  // ON CONFLICT may not touch a row twice
    } else {
      last[key] = rows.size();
      rows.push_back(std::move(row));
    }
  }
  std::map<std::pair<std::string, std::string>, pb::ProviderActivity> stored;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    stored.clear();
    Query q;
    std::string records = q.Param(rows.dump());
    PgRows out = q.Rows(sql, absl::StrCat(
        "WITH x AS (SELECT * FROM jsonb_to_recordset(CAST(", records, " AS jsonb)) AS x("
        "provider_id uuid, provider_activity_id text, provider_type text, provider_urn text, "
        "rtype text, rurn text, account_type text, account_id text, ts bigint, "
        "authorizations jsonb, related_permissions jsonb, type text, metadata jsonb)) "
        "INSERT INTO activities AS a (provider_id, provider_activity_id, resource_id, "
        "account_type, account_id, timestamp, authorizations, related_permissions, type, "
        "metadata) SELECT x.provider_id, x.provider_activity_id, "
        "(SELECT r.id FROM resources r WHERE r.provider_type = x.provider_type AND "
        "r.provider_urn = x.provider_urn AND r.type = x.rtype AND r.urn = x.rurn LIMIT 1), "
        "x.account_type, x.account_id, "
        "timestamptz 'epoch' + x.ts * interval '1 microsecond', "
        "ARRAY(SELECT jsonb_array_elements_text(x.authorizations)), "
        "ARRAY(SELECT jsonb_array_elements_text(x.related_permissions)), x.type, "
        "COALESCE(x.metadata, '{}'::jsonb) FROM x "
        "ON CONFLICT (provider_id, provider_activity_id) DO UPDATE SET "
        "resource_id = EXCLUDED.resource_id, account_type = EXCLUDED.account_type, "
        "account_id = EXCLUDED.account_id, timestamp = EXCLUDED.timestamp, "
        "authorizations = EXCLUDED.authorizations, "
        "related_permissions = EXCLUDED.related_permissions, type = EXCLUDED.type, "
        "metadata = EXCLUDED.metadata RETURNING ", Cols()));
    for (const auto& r : out) {
      pb::ProviderActivity a = FromRow(r);
      stored[{a.provider_id(), a.provider_activity_id()}] = std::move(a);
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  for (pb::ProviderActivity& a : *activities) {
    auto it = stored.find({a.provider_id(), a.provider_activity_id()});
    if (it == stored.end()) continue;
    pb::Resource resource = std::move(*a.mutable_resource());
    a = it->second;
    if (!a.resource_id().empty()) resource.set_id(a.resource_id());
    *a.mutable_resource() = std::move(resource);  // as the provider named it
  }
  return absl::OkStatus();
}

absl::StatusOr<pb::ProviderActivity> PostgresActivityRepository::Get(const std::string& id) {
  if (!IsUuid(id)) return absl::NotFoundError("activity not found");
  std::optional<pb::ProviderActivity> found;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    Query q;
    q.Where(absl::StrCat("a.id = CAST(", q.Param(id), " AS uuid)"));
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", Cols(), " FROM activities a",
                                                  q.WhereClause()))) {
      found = FromRow(r);
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (!found) return absl::NotFoundError("activity not found");
  return std::move(*found);
}

absl::StatusOr<std::vector<pb::ProviderActivity>> PostgresActivityRepository::List(
    const ActivityFilter& f) {
  std::vector<pb::ProviderActivity> out;
  absl::Status st = pool_->RunIdempotent([&](soci::session& sql) -> absl::Status {
    out.clear();
    Query q;
    // Compared as text: an id that is not a UUID matches nothing rather
    // than failing the cast.
    q.In("a.provider_id::text", f.provider_ids);
    q.In("a.resource_id::text", f.resource_ids);
    q.In("a.account_id", f.account_ids);
    q.In("a.type", f.types);
    q.Within("a.timestamp", f.timestamp);
    for (const auto& r : q.Rows(sql, absl::StrCat("SELECT ", Cols(), " FROM activities a",
                                                  q.WhereClause(),
                                                  " ORDER BY a.timestamp DESC, a.id DESC"))) {
      out.push_back(FromRow(r));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace sluice::access
