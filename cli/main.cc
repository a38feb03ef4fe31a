// sluicectl: command-line client for sluice-server over gRPC.
//
//   sluicectl [--host 127.0.0.1:8081] [--email me@x.com] <command> ...
#include <cstdlib>

#include "cli/access_commands.h"
#include "cli/cli.h"
#include "cli/notification_commands.h"
#include "cli/server_commands.h"

namespace {

// Every command group, in help order. Add a row per API.
constexpr sluice::cli::CommandGroup kGroups[] = {
    &sluice::cli::AddServerCommands,
    &sluice::cli::AddNotificationCommands,
    &sluice::cli::AddAccessCommands,
};

}  // namespace

int main(int argc, char** argv) {
  sluice::cli::Options options;
  if (const char* h = std::getenv("SLUICE_HOST")) options.host = h;
  if (const char* e = std::getenv("SLUICE_EMAIL")) options.email = e;
  CLI::App app{"sluicectl: manage Sluice over gRPC"};
  app.require_subcommand(1);
  app.add_option("--host", options.host, "sluice-server gRPC address (env SLUICE_HOST)");
  app.add_option("--email", options.email, "caller identity sent as x-auth-email (env SLUICE_EMAIL)");
  app.add_flag("--json", options.json, "compact JSON output");
  int exit_code = 0;
  for (auto group : kGroups) group(app, options, &exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
