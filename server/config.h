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

namespace sluice::server {

// Every setting of sluice-server. YAML keys are the field names below
// (nested under `db:` for Db).
struct Config {
  int grpc_port = 8081;     // gRPC listen port (all interfaces)
  int metrics_port = 9091;  // Prometheus /metrics port; 0 disables it
  std::string log_level = "info";
  int shutdown_grace_seconds = 30;  // in-flight RPCs get this long on SIGTERM
  // RPC threads kept alive between requests (gRPC sync-server MAX_POLLERS).
  // More start under load; with too few, every burst creates and destroys
  // threads, which cost a third of the CPU of a create-appeal storm.
  int grpc_threads = 64;
  struct Db {
    std::string dsn;           // libpq DSN or postgres:// URL (env SLUICE_DB_DSN)
    int pool_size = 8;         // connections kept open
    bool auto_migrate = true;  // apply pending migrations at start
    int connect_timeout_seconds = 30;  // keep retrying the first connection this long
  } db;
  // 32-byte key (64 hex chars or base64) for AES-256-GCM encryption of stored
  // secrets (env SLUICE_ENCRYPTION_KEY). Empty: a fixed development key is
  // used and a warning logged.
  std::string encryption_key;
  // Each API module's own section (`access:`, `notification:`), kept as
  // YAML for the module to parse (see server/module.h). Absent → Null node.
  std::map<std::string, YAML::Node> modules;
};

// Parses YAML text into `base` (keys absent from the text keep base's value).
// InvalidArgument naming the key on a wrong type or an unknown key.
absl::StatusOr<Config> ParseConfigYaml(absl::string_view yaml, Config base = {});

// Loads `path` (YAML); NotFound when it does not exist.
absl::StatusOr<Config> LoadConfigFile(const std::string& path, Config base = {});

// Applies SLUICE_DB_DSN, SLUICE_DB_POOL_SIZE, SLUICE_ENCRYPTION_KEY and
// SLUICE_LOG_LEVEL from the process environment.
absl::StatusOr<Config> ApplyEnv(Config config);

// Checks ranges (ports 0-65535, pool ≥ 1, grpc_threads ≥ 1, a DSN present). InvalidArgument
// naming the setting.
absl::Status Validate(const Config& config);

}  // namespace sluice::server

#endif  // SLUICE_SERVER_CONFIG_H_
