// The access module's PostgreSQL store: its migrations, and every repository
// of the access core (one file each; the appeal repository in
// postgres_appeal_repository.h).
#ifndef SLUICE_SERVER_ACCESS_STORE_POSTGRES_REPOSITORIES_H_
#define SLUICE_SERVER_ACCESS_STORE_POSTGRES_REPOSITORIES_H_

#include "common/db/migrate.h"
#include "server/access/store/postgres_audit_log_repository.h"
#include "server/access/store/postgres_job_lock.h"
#include "server/access/store/postgres_policy_repository.h"
#include "server/access/store/postgres_provider_repository.h"
#include "server/access/store/postgres_resource_repository.h"

namespace sluice::db {
// The access module's migrations (store/migrations/*.up.sql).
const MigrationSet& AccessMigrations();
}  // namespace sluice::db

#endif  // SLUICE_SERVER_ACCESS_STORE_POSTGRES_REPOSITORIES_H_
