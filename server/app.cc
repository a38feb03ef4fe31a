#include "server/app.h"

#include <chrono>
#include <thread>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/server_builder.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/server_service.h"
#include "spdlog/spdlog.h"

namespace sluice::db {
const MigrationSet& CoreMigrations();
}  // namespace sluice::db

namespace sluice::server {

std::vector<db::MigrationSet> AllMigrations() { return {db::CoreMigrations()}; }

absl::StatusOr<std::unique_ptr<db::Pool>> ConnectWithRetry(const Config& config) {
  absl::Time deadline = absl::Now() + absl::Seconds(config.db.connect_timeout_seconds);
  absl::Duration backoff = absl::Milliseconds(200);
  while (true) {
    auto pool = db::Pool::Create(config.db.dsn, config.db.pool_size);
    if (pool.ok() || !absl::IsUnavailable(pool.status()) || absl::Now() + backoff > deadline) {
      return pool;
    }
    spdlog::warn("msg=\"database not reachable, retrying\" error=\"{}\"",
                 std::string(pool.status().message()));
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Seconds(5));
  }
}

absl::Status RunMigrations(const Config& config) {
  auto pool = ConnectWithRetry(config);
  if (!pool.ok()) return pool.status();
  auto applied = db::Migrate(**pool, AllMigrations());
  if (!applied.ok()) return applied.status();
  spdlog::info("msg=\"migrations done\" applied={}", *applied);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<App>> App::Start(const Config& config) {
  std::unique_ptr<App> app(new App());
  app->config_ = config;
  absl::Time started_at = absl::Now();

  auto pool = ConnectWithRetry(config);
  if (!pool.ok()) return pool.status();
  app->pool_ = std::move(*pool);
  if (config.db.auto_migrate) {
    auto applied = db::Migrate(*app->pool_, AllMigrations());
    if (!applied.ok()) return applied.status();
    spdlog::info("msg=\"migrations done\" applied={}", *applied);
  }

  auto metrics = MetricsServer::Create(config.metrics_port);
  if (!metrics.ok()) return metrics.status();
  app->metrics_ = std::move(*metrics);

  // Every hosted API service. Later APIs append theirs here.
  std::vector<std::string> names = {"sluice.server.v1beta1.ServerService"};
  app->services_.push_back(std::make_unique<ServerServiceImpl>(started_at, names));

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::StrCat("0.0.0.0:", config.grpc_port),
                           grpc::InsecureServerCredentials(), &app->grpc_port_);
  builder.SetMaxReceiveMessageSize(16 << 20);
  for (auto& s : app->services_) builder.RegisterService(s.get());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(app->metrics_->NewGrpcInterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  app->server_ = builder.BuildAndStart();
  if (!app->server_ || app->grpc_port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for gRPC on port ", config.grpc_port));
  }
  app->server_->GetHealthCheckService()->SetServingStatus(true);
  spdlog::info("msg=\"serving\" grpc_port={} metrics_port={}", app->grpc_port_,
               app->metrics_->port());
  return app;
}

void App::Shutdown() {
  if (stopped_) return;
  stopped_ = true;
  if (server_) {
    server_->GetHealthCheckService()->SetServingStatus(false);
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(config_.shutdown_grace_seconds));
    server_->Wait();
  }
}

App::~App() {
  if (!stopped_) {
    config_.shutdown_grace_seconds = 0;
    Shutdown();
  }
}

}  // namespace sluice::server
