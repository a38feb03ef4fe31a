// sluicectl server-info and job run.
#ifndef SLUICE_CLI_SERVER_COMMANDS_H_
#define SLUICE_CLI_SERVER_COMMANDS_H_

#include "cli/cli.h"

namespace sluice::cli {

// Adds `server-info`: prints the server's version, start time, services and
// the caller identity it saw; and `job run <name>`: runs a server job once
// (ServerService.RunJob, admins only) and prints its RunJobResponse.
void AddServerCommands(CLI::App& app, const Options& options, int* exit_code);

}  // namespace sluice::cli

#endif  // SLUICE_CLI_SERVER_COMMANDS_H_
