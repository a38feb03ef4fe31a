#include "common/db/audit.h"

#include <string>

#include "common/trace/trace_context.h"

namespace sluice::db {

void WriteAuditLog(soci::session& sql, absl::string_view action, absl::string_view actor,
                   const nlohmann::json& data) {
  std::string a(action), who(actor), d = data.dump(), t = trace::CurrentTraceId();
  sql << "INSERT INTO audit_logs (action, actor, data, trace_id) "
         "VALUES (:a, :w, CAST(:d AS jsonb), NULLIF(:t, ''))",
      soci::use(a), soci::use(who), soci::use(d), soci::use(t);
}

}  // namespace sluice::db
