#include "server/access/store/postgres_provider_journal.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "server/access/store/pg_exec.h"

namespace sluice::access {
namespace {

std::string Micros(absl::Time t) { return absl::StrCat(absl::ToUnixMicros(t)); }

}  // namespace

absl::StatusOr<std::string> PostgresProviderJournal::Begin(const ProviderOperation& op) {
  std::string id;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    nlohmann::json perms = op.permissions;
    PgRows rows = PgExec(
        sql,
        "INSERT INTO provider_operations (op, account_id, account_type, resource_id, role, "
        "permissions, provider_type, provider_urn, appeal_id, grant_id, started_at) VALUES ($1, "
        "$2, $3, CAST($4 AS uuid), $5, CAST($6 AS jsonb), $7, $8, $9, $10, "
        "to_timestamp(CAST($11 AS bigint) / 1000000.0)) RETURNING id",
        {op.op, op.account_id, op.account_type, op.resource_id, op.role, perms.dump(),
         op.provider_type, op.provider_urn, op.appeal_id, op.grant_id, Micros(op.started_at)});
    id = rows[0].get<std::string>(0);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return id;
}

absl::Status PostgresProviderJournal::Finish(const std::string& id, const std::string& outcome) {
  return pool_->Run([&](soci::session& sql) -> absl::Status {
    PgExec(sql,
           "UPDATE provider_operations SET status = $2, settled_at = now() "
           "WHERE id = CAST($1 AS uuid) AND status = 'in_flight'",
           {id, outcome});
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<ProviderOperation>> PostgresProviderJournal::InFlight(absl::Time before,
                                                                                int limit) {
  std::vector<ProviderOperation> out;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    PgRows rows = PgExec(
        sql,
        "SELECT id, op, account_id, account_type, resource_id, role, permissions::text, "
        "provider_type, provider_urn, appeal_id, grant_id, "
        "CAST(extract(epoch FROM started_at) * 1000000 AS bigint) FROM provider_operations "
        "WHERE status = 'in_flight' AND started_at <= to_timestamp(CAST($1 AS bigint) / 1000000.0) "
        "ORDER BY started_at LIMIT " + std::to_string(limit),
        {Micros(before)});
    for (const auto& r : rows) {
      ProviderOperation op;
      op.id = r.get<std::string>(0);
      op.op = r.get<std::string>(1);
      op.account_id = r.get<std::string>(2);
      op.account_type = r.get<std::string>(3);
      op.resource_id = r.get<std::string>(4);
      op.role = r.get<std::string>(5);
      nlohmann::json perms = nlohmann::json::parse(r.get<std::string>(6), nullptr, false);
      if (perms.is_array()) {
        for (const auto& p : perms) {
          if (p.is_string()) op.permissions.push_back(p.get<std::string>());
        }
      }
      op.provider_type = r.get<std::string>(7);
      op.provider_urn = r.get<std::string>(8);
      op.appeal_id = r.get<std::string>(9);
      op.grant_id = r.get<std::string>(10);
      op.started_at = absl::FromUnixMicros(r.get<long long>(11));
      out.push_back(std::move(op));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<int> PostgresProviderJournal::Prune(absl::Time before) {
  int n = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) -> absl::Status {
    PgRows rows = PgExec(sql,
                         "WITH d AS (DELETE FROM provider_operations WHERE status <> 'in_flight' "
                         "AND settled_at < to_timestamp(CAST($1 AS bigint) / 1000000.0) "
                         "RETURNING 1) SELECT count(*) FROM d",
                         {Micros(before)});
    n = rows[0].get<int>(0);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return n;
}

}  // namespace sluice::access
