// sluice-server configuration: defaults, then the optional YAML file given by
// --config, then environment variables, then command-line flags (each layer
// overrides the previous one).
#ifndef SLUICE_SERVER_CONFIG_H_
#define SLUICE_SERVER_CONFIG_H_

#include <map>
#include <string>

#include <yaml-cpp/yaml.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/auth/authenticator.h"
#include "common/auth/tls.h"
#include "common/outbound.h"

namespace sluice::server {

// Every setting of sluice-server. YAML keys are the field names below
// (nested under `db:` for Db).
struct Config {
  // gRPC listen address. Loopback by default: the gateway runs beside the
  // server, and the gRPC port is never meant to be open to the world.
  std::string grpc_host = "127.0.0.1";
  int grpc_port = 8081;     // gRPC listen port
  int metrics_port = 9091;  // Prometheus /metrics port; 0 disables it
  std::string log_level = "info";
  int shutdown_grace_seconds = 30;  // in-flight RPCs get this long on SIGTERM
  // RPC threads kept alive between requests (gRPC sync-server MAX_POLLERS).
  // More start under load; with too few, every burst creates and destroys
  // threads, which cost a third of the CPU of a create-appeal storm.
  int grpc_threads = 64;
  // The longest an authenticated RPC may wait on the database pool or on
  // outbound HTTP (review M4); a client's earlier deadline wins. 1-3600.
  int rpc_deadline_seconds = 30;
  struct Db {
    std::string dsn;           // libpq DSN or postgres:// URL (env SLUICE_DB_DSN)
    int pool_size = 8;         // connections kept open
    bool auto_migrate = true;  // apply pending migrations at start
    int connect_timeout_seconds = 30;  // keep retrying the first connection this long
    // A call waits at most this long for a free pooled connection, then fails
    // with RESOURCE_EXHAUSTED (≥ 1).
    int lease_timeout_seconds = 10;
    // PostgreSQL statement_timeout of every pooled session: a statement
    // running longer fails with DEADLINE_EXCEEDED. 0 keeps the server's
    // setting. Migrations are not bound by it.
    int statement_timeout_ms = 30000;
  } db;
  // 32-byte key (64 hex chars or base64) for AES-256-GCM encryption of stored
  // secrets (env SLUICE_ENCRYPTION_KEY). Empty: a fixed development key is
  // used and a warning logged.
  std::string encryption_key;
  // `tls:` the gRPC listener's certificate and, with client_ca_file, mTLS.
  auth::TlsServerOptions tls;
  // `auth:` who may call (see common/auth/authenticator.h and the README's
  // "Security model"). Default: header mode, which needs a proxy token or mTLS.
  auth::AuthOptions auth;
  // `outbound:` where outbound HTTP calls may connect (deny_cidrs).
  OutboundPolicy outbound;
  // Each API module's own section (`access:`, `notification:`), kept as
  // YAML for the module to parse (see server/module.h). Absent → Null node.
  std::map<std::string, YAML::Node> modules;
};

// Parses YAML text into `base` (keys absent from the text keep base's value).
// InvalidArgument naming the key on a wrong type or an unknown key.
absl::StatusOr<Config> ParseConfigYaml(absl::string_view yaml, Config base = {});

// Loads `path` (YAML); NotFound when it does not exist.
absl::StatusOr<Config> LoadConfigFile(const std::string& path, Config base = {});

// Applies SLUICE_DB_DSN, SLUICE_DB_POOL_SIZE, SLUICE_ENCRYPTION_KEY,
// SLUICE_LOG_LEVEL, SLUICE_GRPC_HOST and SLUICE_AUTH_MODE from the process
// environment.
absl::StatusOr<Config> ApplyEnv(Config config);

// Checks ranges (ports 0-65535, pool ≥ 1, lease timeout ≥ 1 s, statement
// timeout ≥ 0, grpc_threads ≥ 1, a DSN present)
// and that auth mode insecure_dev listens on loopback only. InvalidArgument
// naming the setting.
absl::Status Validate(const Config& config);

// Parses the `auth:`, `tls:` and `outbound:` sections (server/config_security.cc).
// InvalidArgument naming the key.
absl::Status ParseAuthSection(const YAML::Node& node, auth::AuthOptions* out);
absl::Status ParseTlsSection(const YAML::Node& node, auth::TlsServerOptions* out);
absl::Status ParseOutboundSection(const YAML::Node& node, OutboundPolicy* out);

// "header" → kHeader etc.; InvalidArgument naming the modes otherwise.
absl::StatusOr<auth::AuthMode> ParseAuthMode(absl::string_view name);

}  // namespace sluice::server

#endif  // SLUICE_SERVER_CONFIG_H_
