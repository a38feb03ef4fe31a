#include "server/config.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sluice::server {
namespace {

template <typename T>
absl::Status Read(const YAML::Node& node, const std::string& key, T* out) {
  if (!node[key]) return absl::OkStatus();
  try {
    *out = node[key].as<T>();
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("config key \"", key, "\": ", e.msg));
  }
  return absl::OkStatus();
}

absl::Status CheckKeys(const YAML::Node& node, const std::string& where,
                       const std::set<std::string>& known) {
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    if (!known.count(key)) {
      return absl::InvalidArgumentError(absl::StrCat("unknown config key \"", where, key, "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Config> ParseConfigYaml(absl::string_view yaml, Config c) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("config: ", e.what()));
  }
  if (root.IsNull()) return c;
  if (!root.IsMap()) return absl::InvalidArgumentError("config: top level must be a mapping");
  if (auto st = CheckKeys(root, "", {"grpc_host", "grpc_port", "metrics_port", "log_level",
                                     "shutdown_grace_seconds", "grpc_threads",
                                     "rpc_deadline_seconds", "db",
                                     "encryption_key", "tls", "auth", "outbound",
                                     "access", "notification"});
      !st.ok()) {
    return st;
  }
  for (auto st : {Read(root, "grpc_host", &c.grpc_host), Read(root, "grpc_port", &c.grpc_port), Read(root, "metrics_port", &c.metrics_port),
                  Read(root, "log_level", &c.log_level),
                  Read(root, "shutdown_grace_seconds", &c.shutdown_grace_seconds),
                  Read(root, "grpc_threads", &c.grpc_threads),
                  Read(root, "rpc_deadline_seconds", &c.rpc_deadline_seconds),
                  Read(root, "encryption_key", &c.encryption_key)}) {
    if (!st.ok()) return st;
  }
  for (const char* module : {"access", "notification"}) {
    if (YAML::Node section = root[module]) {
      if (!section.IsMap()) {
        return absl::InvalidArgumentError(
            absl::StrCat("config key \"", module, "\" must be a mapping"));
      }
      c.modules[module] = YAML::Clone(section);
    }
  }
  if (auto st = ParseAuthSection(root["auth"], &c.auth); !st.ok()) return st;
  if (auto st = ParseTlsSection(root["tls"], &c.tls); !st.ok()) return st;
  c.auth.mtls_allowed_names = c.tls.client_allowed_names;  // checked by the Authenticator
  if (auto st = ParseOutboundSection(root["outbound"], &c.outbound); !st.ok()) return st;
  if (YAML::Node db = root["db"]) {
    if (!db.IsMap()) return absl::InvalidArgumentError("config key \"db\" must be a mapping");
    if (auto st = CheckKeys(db, "db.", {"dsn", "pool_size", "auto_migrate",
                                        "connect_timeout_seconds", "lease_timeout_seconds",
                                        "statement_timeout_ms"});
        !st.ok()) {
      return st;
    }
    for (auto st : {Read(db, "dsn", &c.db.dsn), Read(db, "pool_size", &c.db.pool_size),
                    Read(db, "auto_migrate", &c.db.auto_migrate),
                    Read(db, "connect_timeout_seconds", &c.db.connect_timeout_seconds),
                    Read(db, "lease_timeout_seconds", &c.db.lease_timeout_seconds),
                    Read(db, "statement_timeout_ms", &c.db.statement_timeout_ms)}) {
      if (!st.ok()) return st;
    }
  }
  return c;
}

absl::StatusOr<Config> LoadConfigFile(const std::string& path, Config base) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("config file \"", path, "\" cannot be read"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseConfigYaml(ss.str(), std::move(base));
}

absl::StatusOr<Config> ApplyEnv(Config c) {
  if (const char* v = std::getenv("SLUICE_DB_DSN"); v && *v) c.db.dsn = v;
  if (const char* v = std::getenv("SLUICE_ENCRYPTION_KEY"); v && *v) c.encryption_key = v;
  if (const char* v = std::getenv("SLUICE_LOG_LEVEL"); v && *v) c.log_level = v;
  if (const char* v = std::getenv("SLUICE_GRPC_HOST"); v && *v) c.grpc_host = v;
  if (const char* v = std::getenv("SLUICE_AUTH_MODE"); v && *v) {
    auto mode = ParseAuthMode(v);
    if (!mode.ok()) return mode.status();
    c.auth.mode = *mode;
  }
  if (const char* v = std::getenv("SLUICE_DB_POOL_SIZE"); v && *v) {
    if (!absl::SimpleAtoi(v, &c.db.pool_size)) {
      return absl::InvalidArgumentError(
          absl::StrCat("SLUICE_DB_POOL_SIZE must be an integer, got \"", v, "\""));
    }
  }
  return c;
}

absl::Status Validate(const Config& c) {
  if (c.grpc_port < 0 || c.grpc_port > 65535) {
    return absl::InvalidArgumentError("grpc_port must be 0-65535");
  }
  if (c.metrics_port < 0 || c.metrics_port > 65535) {
    return absl::InvalidArgumentError("metrics_port must be 0-65535");
  }
  if (c.grpc_threads < 1) return absl::InvalidArgumentError("grpc_threads must be at least 1");
  if (c.rpc_deadline_seconds < 1 || c.rpc_deadline_seconds > 3600) {
    return absl::InvalidArgumentError("rpc_deadline_seconds must be between 1 and 3600");
  }
  if (c.db.pool_size < 1) return absl::InvalidArgumentError("db.pool_size must be at least 1");
  if (c.db.lease_timeout_seconds < 1) {
    return absl::InvalidArgumentError("db.lease_timeout_seconds must be at least 1");
  }
  if (c.db.statement_timeout_ms < 0) {
    return absl::InvalidArgumentError("db.statement_timeout_ms must be ≥ 0 (0: no limit)");
  }
  if (c.db.dsn.empty()) {
    return absl::InvalidArgumentError(
        "no database configured: set SLUICE_DB_DSN or db.dsn in the --config file");
  }
  if (c.grpc_host.empty()) return absl::InvalidArgumentError("grpc_host must not be empty");
  if (c.auth.mode == auth::AuthMode::kInsecureDev && !auth::IsLoopbackHost(c.grpc_host)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "auth.mode insecure_dev believes any caller's identity header, so it is allowed only "
        "on a loopback listener; grpc_host is \"", c.grpc_host,
        "\" (use 127.0.0.1, or auth.mode header/jwt)"));
  }
  if (c.shutdown_grace_seconds < 0) {
    return absl::InvalidArgumentError("shutdown_grace_seconds must be ≥ 0");
  }
  return absl::OkStatus();
}

}  // namespace sluice::server
