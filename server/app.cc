#include "server/app.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/server_builder.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/db/advisory_lock.h"
#include "common/trace/grpc_server_tracing.h"
#include "server/server_service.h"
#include "spdlog/spdlog.h"

namespace sluice::db {
const MigrationSet& CoreMigrations();
}  // namespace sluice::db

namespace sluice::server {

std::vector<db::MigrationSet> AllMigrations() {
  std::vector<db::MigrationSet> sets = {db::CoreMigrations()};
  for (const ModuleEntry& m : Modules()) sets.push_back(m.migrations());
  return sets;
}

absl::StatusOr<std::unique_ptr<db::Pool>> ConnectWithRetry(const Config& config) {
  absl::Time deadline = absl::Now() + absl::Seconds(config.db.connect_timeout_seconds);
  absl::Duration backoff = absl::Milliseconds(200);
  while (true) {
    db::PoolOptions options;
    options.size = config.db.pool_size;
    options.lease_timeout = absl::Seconds(config.db.lease_timeout_seconds);
    options.statement_timeout = absl::Milliseconds(config.db.statement_timeout_ms);
    auto pool = db::Pool::Create(config.db.dsn, options);
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

std::string ListenAddress(const std::string& host, int port) {
  bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  return v6 ? absl::StrCat("[", host, "]:", port) : absl::StrCat(host, ":", port);
}

namespace {

// What an operator must know at start: the mode, and what is not protected.
void LogSecurityPosture(const Config& config) {
  bool loopback = auth::IsLoopbackHost(config.grpc_host);
  switch (config.auth.mode) {
    case auth::AuthMode::kInsecureDev:
      for (int i = 0; i < 3; ++i) {
        spdlog::warn("msg=\"AUTH MODE insecure_dev: any local process can act as anyone by "
                     "setting {}; for development on this machine only\"",
                     config.auth.identity_header);
      }
      break;
    case auth::AuthMode::kHeader:
      if (!config.tls.enabled() && !loopback) {
        spdlog::warn("msg=\"auth.mode header without tls on a non-loopback listener: the proxy "
                     "token travels in clear\"");
      }
      break;
    case auth::AuthMode::kJwt:
      if (!config.tls.enabled() && !loopback) {
        spdlog::warn("msg=\"auth.mode jwt without tls on a non-loopback listener: bearer tokens "
                     "travel in clear\"");
      }
      break;
  }
}

// Builds every module of the table with its config section.
absl::StatusOr<std::vector<std::unique_ptr<Module>>> CreateModules(
    const Config& config, db::Pool* pool, const Crypter* crypter,
    const auth::Authenticator* authenticator, prometheus::Registry* registry, ModuleLinks* links) {
  static const YAML::Node kNull;
  std::vector<std::unique_ptr<Module>> out;
  for (const ModuleEntry& entry : Modules()) {
    auto section = config.modules.find(entry.name);
    ModuleContext ctx{&config, section == config.modules.end() ? &kNull : &section->second,
                      pool, crypter, authenticator, registry, links};
    auto module = entry.create(ctx);
    if (!module.ok()) return module.status();
    out.push_back(std::move(*module));
  }
  return out;
}

// One registry of every module's jobs, locked with advisory locks on `pool`.
absl::StatusOr<std::unique_ptr<JobRunner>> CollectJobs(
    const std::vector<std::unique_ptr<Module>>& modules, db::Pool* pool) {
  auto runner = std::make_unique<JobRunner>(
      [pool](int64_t key, const std::function<void()>& body) {
        return db::RunExclusive(*pool, key, body);
      });
  for (const auto& module : modules) {
    for (auto& job : module->Jobs()) {
      if (auto st = runner->Add(std::move(job)); !st.ok()) return st;
    }
  }
  return runner;
}

// The crypter of the config: the key, or the development key in insecure_dev.
absl::StatusOr<std::unique_ptr<Crypter>> MakeCrypter(const Config& config) {
  if (!config.encryption_key.empty()) return Crypter::Create(config.encryption_key);
  if (config.auth.mode != auth::AuthMode::kInsecureDev) {
    return absl::InvalidArgumentError(
        "no encryption key: set SLUICE_ENCRYPTION_KEY or encryption_key (32 bytes as 64 hex "
        "characters, e.g. `openssl rand -hex 32`); stored secrets are encrypted with it");
  }
  return Crypter::Development();
}

}  // namespace

absl::StatusOr<JobResult> RunJobOnce(const Config& config, const std::string& name) {
  auto crypter = MakeCrypter(config);
  if (!crypter.ok()) return crypter.status();
  auto http = NewCurlHttpClient();
  auto authenticator = auth::Authenticator::Create(config.auth, config.tls.mutual(), http.get());
  if (!authenticator.ok()) return authenticator.status();
  auto pool = ConnectWithRetry(config);
  if (!pool.ok()) return pool.status();
  ModuleLinks links;  // outlives the modules
  auto modules =
      CreateModules(config, pool->get(), crypter->get(), authenticator->get(), nullptr, &links);
  if (!modules.ok()) return modules.status();
  auto jobs = CollectJobs(*modules, pool->get());
  if (!jobs.ok()) return jobs.status();
  return (*jobs)->Run(name);
}

absl::StatusOr<std::unique_ptr<App>> App::Start(const Config& config) {
  std::unique_ptr<App> app(new App());
  app->config_ = config;
  absl::Time started_at = absl::Now();

  // A mistyped OTEL_* variable stops the start-up, naming the variable,
  // before anything else happens.
  auto tracing_config = trace::TracingConfigFromEnv("sluice-server");
  if (!tracing_config.ok()) return tracing_config.status();

  // Security settings first: a server that cannot run safely stops before
  // it touches the database.
  SetOutboundPolicy(config.outbound);
  const bool dev = config.auth.mode == auth::AuthMode::kInsecureDev;
  if (config.encryption_key.empty()) {
    if (!dev) {
      return absl::InvalidArgumentError(
          "no encryption key: set SLUICE_ENCRYPTION_KEY or encryption_key (32 bytes as 64 hex "
          "characters, e.g. `openssl rand -hex 32`); stored secrets are encrypted with it");
    }
    spdlog::warn("msg=\"no encryption key configured (SLUICE_ENCRYPTION_KEY); secrets are "
                 "encrypted with the public development key (auth.mode insecure_dev only)\"");
    app->crypter_ = Crypter::Development();
  } else {
    auto crypter = Crypter::Create(config.encryption_key);
    if (!crypter.ok()) return crypter.status();
    app->crypter_ = std::move(*crypter);
  }

  auto creds = auth::MakeServerCredentials(config.tls);
  if (!creds.ok()) return creds.status();
  app->http_ = NewCurlHttpClient();
  auto authenticator =
      auth::Authenticator::Create(config.auth, config.tls.mutual(), app->http_.get());
  if (!authenticator.ok()) return authenticator.status();
  app->auth_ = std::move(*authenticator);
  app->auth_->set_call_deadline(absl::Seconds(config.rpc_deadline_seconds));
  LogSecurityPosture(config);

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
  app->tracing_ = trace::Tracing::Start(*tracing_config, app->metrics_->registry().get());

  // Every hosted API: the server's own service, then each module's.
  auto modules = CreateModules(app->config_, app->pool_.get(), app->crypter_.get(),
                               app->auth_.get(), app->metrics_->registry().get(), &app->links_);
  if (!modules.ok()) return modules.status();
  app->modules_ = std::move(*modules);
  auto jobs = CollectJobs(app->modules_, app->pool_.get());
  if (!jobs.ok()) return jobs.status();
  app->jobs_ = std::move(*jobs);
  std::vector<std::string> names = {"sluice.server.v1beta1.ServerService"};
  std::vector<grpc::Service*> module_services;
  for (auto& module : app->modules_) {
    for (auto& n : module->ServiceNames()) names.push_back(n);
    for (auto* s : module->Services()) module_services.push_back(s);
  }
  app->services_.push_back(std::make_unique<ServerServiceImpl>(started_at, names,
                                                               app->auth_.get(), app->jobs_.get()));

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(ListenAddress(config.grpc_host, config.grpc_port), *creds,
                           &app->grpc_port_);
  builder.SetMaxReceiveMessageSize(16 << 20);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS,
                              std::min(4, config.grpc_threads));
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS,
                              config.grpc_threads);
  for (auto& s : app->services_) builder.RegisterService(s.get());
  for (auto* s : module_services) builder.RegisterService(s);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  // Tracing first: the span and its context then cover the other interceptors.
  interceptors.push_back(trace::NewServerTracingInterceptorFactory());
  interceptors.push_back(app->metrics_->NewGrpcInterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  app->server_ = builder.BuildAndStart();
  if (!app->server_ || app->grpc_port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for gRPC on ", ListenAddress(config.grpc_host, config.grpc_port)));
  }
  app->server_->GetHealthCheckService()->SetServingStatus(true);
  for (auto& m : app->modules_) m->StartBackground();
  app->jobs_->StartPeriodic();
  spdlog::info("msg=\"serving\" grpc_host={} grpc_port={} tls={} auth={} metrics_port={}",
               config.grpc_host, app->grpc_port_,
               config.tls.mutual() ? "mtls" : config.tls.enabled() ? "tls" : "off",
               std::string(auth::AuthModeName(config.auth.mode)), app->metrics_->port());
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
  if (jobs_) jobs_->Stop();
  for (auto& m : modules_) m->Stop();
  tracing_.reset();  // flushes the last spans (bounded by OTEL_BSP_EXPORT_TIMEOUT)
}

App::~App() {
  if (!stopped_) {
    config_.shutdown_grace_seconds = 0;
    Shutdown();
  }
}

}  // namespace sluice::server
