// The audit log (table `audit_logs`, core migration 0001): one row per
// mutating call, written in the caller's transaction so that the record and
// the change commit or roll back together.
#ifndef SLUICE_COMMON_DB_AUDIT_H_
#define SLUICE_COMMON_DB_AUDIT_H_

#include <soci/soci.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace sluice::db {

// The actor recorded for background jobs.
inline constexpr char kSystemActor[] = "system";

// Inserts {action (e.g. "policy.create"), actor (an email or "system"),
// data, trace_id} into audit_logs on `sql` (use inside a transaction);
// trace_id is the current thread's trace (common/trace/trace_context.h,
// core migration 0002), NULL outside a traced request. Database errors
// are thrown as soci::soci_error, like any statement in the transaction.
void WriteAuditLog(soci::session& sql, absl::string_view action, absl::string_view actor,
                   const nlohmann::json& data);

}  // namespace sluice::db

#endif  // SLUICE_COMMON_DB_AUDIT_H_
