#include "server/access/store/postgres_audit_log_repository.h"

#include <soci/soci.h>

#include "absl/strings/str_cat.h"
#include "server/access/core/json.h"
#include "server/access/store/sql_rows.h"

namespace sluice::access {

using soci::use;

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

}  // namespace sluice::access
