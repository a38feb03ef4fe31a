// End-to-end test harness: HTTP calls through libcurl, and a Stack that
// brings up a fresh database + sluice-server + sluice-gateway (real child
// processes, see process.h) for one test.
#ifndef SLUICE_INTEGRATION_HARNESS_H_
#define SLUICE_INTEGRATION_HARNESS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/db/testing/test_database.h"
#include "integration/process.h"
#include "nlohmann/json.hpp"

namespace sluice::integration {

// One HTTP exchange.
struct HttpResponse {
  long status = 0;  // 0 when the request failed at transport level
  std::string body;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string error;                           // libcurl error when status == 0
  // The body parsed as JSON (null when it is not JSON).
  nlohmann::json Json() const;
};

// Performs `method` on `url` with an optional body (sent as application/json
// unless `headers` set a Content-Type of their own) and extra request headers
// ("Name: value").
HttpResponse Http(absl::string_view method, absl::string_view url, absl::string_view body = "",
                  const std::vector<std::string>& headers = {});

// Identities the test stack makes admins by default (`access.admins`,
// `notification.admins`), unless the test's config sets its own.
inline const std::vector<std::string> kTestAccessAdmins = {
    "alice@example.com", "admin@example.com", "bench@example.com", "cli@example.com",
    "seed@example.com", "auditor@example.com"};
// The alert hook token the test stack accepts for every hook URL (as
// `Authorization: Bearer <token>`), unless the test's config sets its own.
inline constexpr char kTestAlertToken[] = "test-alert-hook-token-0123456789";
// The hook secret ("*": every alert provider) from which the test stack
// derives each namespace's hook token, unless the test's config sets its own
// `notification.alert_hook_secrets`.
inline constexpr char kTestAlertHookSecret[] = "test-alert-hook-secret-0123456789abcdef";
inline const std::vector<std::string> kTestNotificationAdmins = {
    "tester@example.com", "admin@example.com", "cli@example.com", "bench@example.com"};

// The postgres provider's `credentials` object for a libpq keyword DSN
// ("host=... port=... dbname=..." → {"host": ..., ...}).
nlohmann::json ProviderCredentials(const std::string& dsn);

// A fresh database, sluice-server and sluice-gateway on free ports, deployed
// the production way: auth mode `header`, the gateway proving itself with a
// random proxy token, an encryption key, and admin lists.
class Stack {
 public:
  // Extra flags/env for the server (e.g. job intervals).
  struct Options {
    std::vector<std::string> server_args;
    std::map<std::string, std::string> server_env;
    // sluice-server's YAML config. Sections it leaves out get the stack's
    // defaults: `auth` (header mode, proxy token from SLUICE_PROXY_TOKEN),
    // `access.admins` and `notification.admins` (kTest*Admins).
    std::string config_yaml;
    // Extra flags for the gateway.
    std::vector<std::string> gateway_args;
    // The gateway's environment beyond the proxy token (e.g. OTEL_*).
    std::map<std::string, std::string> gateway_env;
    // Start the gateway without the proxy token (to show the server refusing it).
    bool gateway_without_token = false;
  };
  static absl::StatusOr<std::unique_ptr<Stack>> Start(Options options);
  static absl::StatusOr<std::unique_ptr<Stack>> Start() { return Start(Options{}); }
  ~Stack();

  // "http://127.0.0.1:<port>" of the gateway.
  const std::string& http_base() const { return http_base_; }
  // "127.0.0.1:<port>" of the server's gRPC endpoint.
  const std::string& grpc_target() const { return grpc_target_; }
  int metrics_port() const { return metrics_port_; }
  // The gateway's /metrics port (--metrics_port).
  int gateway_metrics_port() const { return gateway_metrics_port_; }
  // The shared secret the gateway sends as x-sluice-proxy-token.
  const std::string& proxy_token() const { return proxy_token_; }
  // A gRPC context for a direct call as `email` (with the proxy token, as a
  // trusted hop would send it) and a 30 s deadline.
  std::unique_ptr<grpc::ClientContext> GrpcContext(const std::string& email) const;
  // The environment that lets sluicectl call the server directly as a
  // trusted hop (SLUICE_PROXY_TOKEN).
  std::map<std::string, std::string> ClientEnv() const { return {{"SLUICE_PROXY_TOKEN", proxy_token_}}; }
  const db::TestDatabase& database() const { return *db_; }
  Process& server() { return *server_; }
  Process& gateway() { return *gateway_; }

  // The server config actually written: Options::config_yaml plus defaults.
  std::string EffectiveConfig() const;
  // The environment the server runs with: Options::server_env plus the
  // database DSN, proxy token, alert hook token and secret, and encryption
  // key that EffectiveConfig() refers to (for another server process, e.g.
  // a replica or `sluice-server job run`, on the same config).
  std::map<std::string, std::string> ServerEnv() const;

  // Restarts sluice-server on the same ports and database; a non-empty
  // `config_yaml` replaces Options::config_yaml first.
  absl::Status RestartServer(std::string config_yaml = "");
  // Options::server_env, e.g. to drop a fault injection before a restart.
  std::map<std::string, std::string>& server_env() { return options_.server_env; }

 private:
  Stack() = default;
  absl::Status StartServer();
  Options options_;
  std::unique_ptr<db::TestDatabase> db_;
  std::unique_ptr<Process> server_;
  std::unique_ptr<Process> gateway_;
  std::string http_base_, grpc_target_, log_dir_, proxy_token_;
  int grpc_port_ = 0, http_port_ = 0, metrics_port_ = 0, server_starts_ = 0;
  int gateway_metrics_port_ = 0;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_HARNESS_H_
