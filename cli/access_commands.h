// sluicectl commands of the access API:
//   policy create|update -f policy.yaml, policy list, policy get <id> [--version N]
//   provider create -f provider.yaml, provider update <id> -f provider.yaml,
//   provider list, provider get <id>
//   appeal create -f appeal.yaml | list | get <id> | cancel <id> | revoke <id>
//   provider import <id> [--apply] [--resource-type T] [--resource-urn U]
//   approval approve|reject <appeal id> <step>, grant list [--mine] | get <id>
//   grant update <id> --owner O | revoke <id> [--reason R] |
//   revoke --account A ... (bulk) | restore <id> --reason R [--expiration T]
// Files are YAML or JSON with proto field names (the REST body shapes).
#ifndef SLUICE_CLI_ACCESS_COMMANDS_H_
#define SLUICE_CLI_ACCESS_COMMANDS_H_

#include "cli/cli.h"

namespace sluice::cli {

// Adds the `policy`, `provider`, `appeal`, `approval` and `grant` groups.
void AddAccessCommands(CLI::App& app, const Options& options, int* exit_code);

// The `appeal`, `approval` and `grant` groups (appeal_commands.cc).
void AddAppealCommands(CLI::App& app, const Options& options, int* exit_code);

// `grant update|revoke|restore` under the `grant` group (grant_commands.cc).
void AddGrantLifecycleCommands(CLI::App& grant, const Options& options, int* exit_code);

}  // namespace sluice::cli

#endif  // SLUICE_CLI_ACCESS_COMMANDS_H_
