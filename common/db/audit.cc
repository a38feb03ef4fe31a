#include "common/db/audit.h"

#include <string>

namespace sluice::db {

void WriteAuditLog(soci::session& sql, absl::string_view action, absl::string_view actor,
                   const nlohmann::json& data) {
  std::string a(action), who(actor), d = data.dump();
  sql << "INSERT INTO audit_logs (action, actor, data) VALUES (:a, :w, CAST(:d AS jsonb))",
      soci::use(a), soci::use(who), soci::use(d);
}

}  // namespace sluice::db
