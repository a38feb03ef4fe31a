// sluicectl: command-line client for sluice-server over gRPC.
//
//   sluicectl [--host 127.0.0.1:8081] [--email me@x.com] [--token JWT]
//             [--tls [--ca ca.pem] [--cert c.pem --key k.pem]] <command> ...
#include <cstdlib>


#include "cli/access_commands.h"
#include "cli/alerting_commands.h"
#include "cli/cli.h"
#include "cli/notification_commands.h"
#include "cli/server_commands.h"

namespace {

// Every command group, in help order. Add a row per API.
constexpr sluice::cli::CommandGroup kGroups[] = {
    &sluice::cli::AddServerCommands,
    &sluice::cli::AddNotificationCommands,
    &sluice::cli::AddAlertingCommands,
    &sluice::cli::AddAccessCommands,
};

}  // namespace

int main(int argc, char** argv) {
  sluice::cli::Options options;
  if (const char* h = std::getenv("SLUICE_HOST")) options.host = h;
  if (const char* e = std::getenv("SLUICE_EMAIL")) options.email = e;
  if (const char* t = std::getenv("SLUICE_TOKEN")) options.token = t;
  if (const char* t = std::getenv("SLUICE_PROXY_TOKEN")) options.proxy_token = t;
  if (const char* h = std::getenv("SLUICE_AUTH_HEADER")) options.auth_header = h;
  CLI::App app{"sluicectl: manage Sluice over gRPC"};
  app.require_subcommand(1);
  app.add_option("--host", options.host, "sluice-server gRPC address (env SLUICE_HOST)");
  app.add_option("--email", options.email,
                 "caller identity for header mode, sent as the identity header (env SLUICE_EMAIL)");
  app.add_option("--auth-header", options.auth_header,
                 "identity header name, default X-Auth-Email (env SLUICE_AUTH_HEADER)");
  app.add_option("--token", options.token,
                 "bearer token sent as Authorization: Bearer (jwt mode; env SLUICE_TOKEN)");
  app.add_option("--proxy-token-file", options.proxy_token_file,
                 "file with the header-mode proxy token (or the token in env SLUICE_PROXY_TOKEN)");
  app.add_flag("--tls", options.tls.enabled, "connect with TLS");
  app.add_option("--ca", options.tls.ca_file, "CA certificate (PEM) to verify the server");
  app.add_option("--cert", options.tls.cert_file, "client certificate (PEM) for mTLS");
  app.add_option("--key", options.tls.key_file, "client key (PEM) for mTLS");
  app.add_flag("--json", options.json, "compact JSON output");
  app.add_option("-o,--output", options.output,
                 "json (default) or table: list responses as aligned columns")
      ->check(CLI::IsMember({"json", "table"}));
  int exit_code = 0;
  for (auto group : kGroups) group(app, options, &exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
