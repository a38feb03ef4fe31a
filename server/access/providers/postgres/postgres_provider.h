// The `postgres` provider: access to a real PostgreSQL server. Resources are
// the server's databases (type "database", urn = name) and the tables of the
// credentials' database (type "table", urn = "schema.table"), read from the
// catalog. A role's permissions are privilege keywords (viewer → ["SELECT"]);
// GrantAccess runs GRANT <privileges> ON <object> TO <account> and
// RevokeAccess runs REVOKE, identifiers quoted with QuoteIdent and privileges
// checked against an allowlist, never spliced raw. Accounts are DB roles
// (account_type "user").
//
// credentials: {host, port, user, password, dbname, sslmode,
// statement_timeout_ms, lock_timeout_ms}; host, user and dbname are
// required. Every connection to the target sets PostgreSQL's
// statement_timeout (default 10000 ms) and lock_timeout (default 5000 ms;
// 0 disables either): a GRANT/REVOKE or catalog read that hits them fails
// with DeadlineExceeded instead of stalling the approval.
//
// ListAccess (grant import) reads the catalog ACLs of the requested
// databases and tables: one entry per (role, privilege) explicitly granted,
// account_type "user", leaving out the object's owner, PUBLIC and the pg_*
// roles; a privilege is spelled as the config's roles spell it.
//
// ValidateAccount (at appeal creation) accepts only an existing role
// (pg_roles) and refuses `public` in any case (PostgreSQL's PUBLIC even
// when quoted) and the predefined pg_* roles; GRANT and REVOKE refuse those
// two too.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_POSTGRES_POSTGRES_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_POSTGRES_POSTGRES_PROVIDER_H_

#include <memory>
#include <string>

#include "server/access/core/provider_client.h"

namespace sluice::access {

std::unique_ptr<ProviderClient> NewPostgresProvider();

// Defaults of credentials.statement_timeout_ms and lock_timeout_ms.
inline constexpr int kDefaultStatementTimeoutMs = 10000;
inline constexpr int kDefaultLockTimeoutMs = 5000;

// The libpq keyword DSN for `credentials` (values single-quoted and
// escaped), with connect_timeout 10 s and the statement and lock timeouts
// in `options`. InvalidArgument naming a missing required key or a timeout
// that is not a whole number ≥ 0.
absl::StatusOr<std::string> PostgresDsn(const google::protobuf::Struct& credentials);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_POSTGRES_POSTGRES_PROVIDER_H_
