// Wiring of sluice-server: database pool and migrations, metrics, and the
// gRPC server with health, reflection and every API service.
#ifndef SLUICE_SERVER_APP_H_
#define SLUICE_SERVER_APP_H_

#include <memory>
#include <vector>

#include <grpcpp/server.h>

#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"
#include "common/crypto.h"
#include "common/http_client.h"
#include "common/db/migrate.h"
#include "common/db/pool.h"
#include "common/metrics.h"
#include "common/trace/otel_env.h"
#include "server/config.h"
#include "server/jobs.h"
#include "server/module.h"

namespace sluice::server {

// Every component's migrations, in the order they apply.
std::vector<db::MigrationSet> AllMigrations();

// Connects to the configured database, retrying for
// db.connect_timeout_seconds. Unavailable after that.
absl::StatusOr<std::unique_ptr<db::Pool>> ConnectWithRetry(const Config& config);

// "host:port", with brackets around an IPv6 host.
std::string ListenAddress(const std::string& host, int port);

// `sluice-server migrate`: applies pending migrations and returns.
absl::Status RunMigrations(const Config& config);

// `sluice-server job run <name>`: connects to the configured database,
// builds the modules (without serving) and runs job `name` once under its
// lock. InvalidArgument listing the known names for an unknown name; the
// job's or the database's error otherwise. Migrations are not applied.
absl::StatusOr<JobResult> RunJobOnce(const Config& config, const std::string& name);

// A running server. Destroying it without Shutdown() shuts down immediately.
class App {
 public:
  // Connects, migrates (unless db.auto_migrate is false), and starts serving
  // gRPC on config.grpc_host:grpc_port (with config.tls) and /metrics on
  // config.metrics_port. Unavailable when the database or a port cannot be
  // reached/bound; InvalidArgument for unusable auth, TLS or key settings
  // (a missing encryption key outside insecure_dev, header mode without a
  // proxy token or mTLS).
  static absl::StatusOr<std::unique_ptr<App>> Start(const Config& config);

  ~App();

  // Marks health NOT_SERVING, stops accepting RPCs, lets in-flight RPCs
  // finish for up to shutdown_grace_seconds (then cancels them), and stops
  // background jobs. Idempotent.
  void Shutdown();

  // The bound gRPC port (useful with grpc_port 0).
  int grpc_port() const { return grpc_port_; }

 private:
  App() = default;
  Config config_;
  std::unique_ptr<db::Pool> pool_;
  std::unique_ptr<MetricsServer> metrics_;
  std::unique_ptr<Crypter> crypter_;
  std::unique_ptr<HttpClient> http_;  // JWKS fetches
  std::unique_ptr<auth::Authenticator> auth_;
  std::vector<std::unique_ptr<grpc::Service>> services_;
  ModuleLinks links_;  // before modules_: outlives them
  std::vector<std::unique_ptr<Module>> modules_;
  std::unique_ptr<JobRunner> jobs_;  // every module's jobs (periodic + RunJob)
  std::unique_ptr<grpc::Server> server_;
  // The span exporter (OTEL_*); reset last in Shutdown, after the server
  // and the background work have ended their spans.
  std::unique_ptr<trace::Tracing> tracing_;
  int grpc_port_ = 0;
  bool stopped_ = false;
};

}  // namespace sluice::server

#endif  // SLUICE_SERVER_APP_H_
