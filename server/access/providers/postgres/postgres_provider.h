// The `postgres` provider: access to a real PostgreSQL server. Resources are
// the server's databases (type "database", urn = name) and the tables of the
// credentials' database (type "table", urn = "schema.table"), read from the
// catalog. A role's permissions are privilege keywords (viewer → ["SELECT"]);
// GrantAccess runs GRANT <privileges> ON <object> TO <account> and
// RevokeAccess runs REVOKE, identifiers quoted with QuoteIdent and privileges
// checked against an allowlist, never spliced raw. Accounts are DB roles
// (account_type "user").
//
// credentials: {host, port, user, password, dbname, sslmode}; host, user and
// dbname are required.
#ifndef SLUICE_SERVER_ACCESS_PROVIDERS_POSTGRES_POSTGRES_PROVIDER_H_
#define SLUICE_SERVER_ACCESS_PROVIDERS_POSTGRES_POSTGRES_PROVIDER_H_

#include <memory>
#include <string>

#include "server/access/core/provider_client.h"

namespace sluice::access {

std::unique_ptr<ProviderClient> NewPostgresProvider();

// The libpq keyword DSN for `credentials` (values single-quoted and escaped).
// InvalidArgument naming a missing required key.
absl::StatusOr<std::string> PostgresDsn(const google::protobuf::Struct& credentials);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_PROVIDERS_POSTGRES_POSTGRES_PROVIDER_H_
