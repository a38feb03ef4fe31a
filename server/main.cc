// sluice-server: the gRPC server hosting Sluice's APIs.
//
//   sluice-server [--grpc_port 8081] [--metrics_port 9091] [--config file.yaml]
//   sluice-server migrate [--config file.yaml]
//   sluice-server job run <name> [--config file.yaml]   run one job once and exit
//     (prints "<name>: done k=v ..." or "<name>: skipped: ..."; exit 0, 2 for an
//     unknown name or bad config, 1 when the job or the database failed)
//
// The database comes from env SLUICE_DB_DSN or `db.dsn` in the config file.
#include <csignal>
#include <pthread.h>

#include <CLI/CLI.hpp>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "server/app.h"
#include "spdlog/spdlog.h"

namespace {

// `sluice-server job run <name>`.
int RunJob(const sluice::server::Config& config, const std::string& name) {
  auto result = sluice::server::RunJobOnce(config, name);
  if (!result.ok()) {
    spdlog::critical("msg=\"job run failed\" job={} error=\"{}\"", name,
                     std::string(result.status().message()));
    fprintf(stderr, "sluice-server: %s\n", std::string(result.status().message()).c_str());
    return absl::IsInvalidArgument(result.status()) ? 2 : 1;
  }
  std::string counts = sluice::server::FormatCounts(*result);
  printf("%s: %s%s%s\n", name.c_str(), result->message.c_str(), counts.empty() ? "" : " ",
         counts.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Block termination signals in every thread; the main thread waits for
  // them with sigwait and drains the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App cli{"sluice-server: Sluice's access-management and notification APIs over gRPC"};
  std::string config_path;
  std::string grpc_host;
  int grpc_port = -1, metrics_port = -1;
  std::string auto_migrate;
  cli.add_option("--config", config_path, "YAML config file (optional)");
  cli.add_option("--grpc_host", grpc_host, "gRPC listen address (default 127.0.0.1)");
  cli.add_option("--grpc_port", grpc_port, "gRPC port (default 8081)");
  cli.add_option("--metrics_port", metrics_port, "Prometheus /metrics port, 0 disables (default 9091)");
  cli.add_option("--auto_migrate", auto_migrate, "apply pending migrations at start: true|false");
  // Subcommands accept the global flags after them too (`job run x --config f`).
  cli.fallthrough();
  CLI::App* migrate = cli.add_subcommand("migrate", "apply pending database migrations and exit");
  CLI::App* job = cli.add_subcommand("job", "background jobs");
  CLI::App* job_run = job->add_subcommand("run", "run one job once against the database and exit");
  std::string job_name;
  job_run->add_option("name", job_name,
                      "fetch_resources | revoke_expired_grants | reconcile | cleanup_queue")
      ->required();
  job->require_subcommand(1);
  CLI11_PARSE(cli, argc, argv);

  sluice::server::Config config;
  if (!config_path.empty()) {
    auto loaded = sluice::server::LoadConfigFile(config_path);
    if (!loaded.ok()) {
      fprintf(stderr, "sluice-server: %s\n", std::string(loaded.status().message()).c_str());
      return 2;
    }
    config = *loaded;
  }
  auto with_env = sluice::server::ApplyEnv(config);
  if (!with_env.ok()) {
    fprintf(stderr, "sluice-server: %s\n", std::string(with_env.status().message()).c_str());
    return 2;
  }
  config = *with_env;
  if (!grpc_host.empty()) config.grpc_host = grpc_host;
  if (grpc_port >= 0) config.grpc_port = grpc_port;
  if (metrics_port >= 0) config.metrics_port = metrics_port;
  if (!auto_migrate.empty()) {
    if (auto_migrate != "true" && auto_migrate != "false") {
      fprintf(stderr, "sluice-server: --auto_migrate must be true or false\n");
      return 2;
    }
    config.db.auto_migrate = auto_migrate == "true";
  }
  if (auto st = sluice::InitLogging("sluice-server", config.log_level); !st.ok()) {
    fprintf(stderr, "sluice-server: %s\n", std::string(st.message()).c_str());
    return 2;
  }
  if (auto st = sluice::server::Validate(config); !st.ok()) {
    spdlog::critical("msg=\"invalid configuration\" error=\"{}\"", std::string(st.message()));
    return 2;
  }

  if (migrate->parsed()) {
    auto st = sluice::server::RunMigrations(config);
    if (!st.ok()) {
      spdlog::critical("msg=\"migrate failed\" error=\"{}\"", std::string(st.message()));
      return 1;
    }
    return 0;
  }

  if (job_run->parsed()) return RunJob(config, job_name);

  auto app = sluice::server::App::Start(config);
  if (!app.ok()) {
    spdlog::critical("msg=\"start failed\" error=\"{}\"", std::string(app.status().message()));
    return 1;
  }
  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("msg=\"signal received, draining\" signal={}", sig);
  (*app)->Shutdown();
  spdlog::info("msg=\"stopped\"");
  return 0;
}
