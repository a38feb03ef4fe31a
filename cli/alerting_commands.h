// sluicectl commands of Siren's alerting side (issue #31), over
// gotocompany.siren.v1beta1.SirenService (`provider` is taken by the access API):
//   alerting provider  create|update <id>|list|get <id>|delete <id>   (-f file)
//   alerting namespace create|update <id>|list|get <id>|delete <id>   (-f file)
//   alerting rule      upsert -f file | list [--namespace N] [--group G]
//                      [--template T] [--provider-namespace ID]
// Lists print as tables with -o table.
#ifndef SLUICE_CLI_ALERTING_COMMANDS_H_
#define SLUICE_CLI_ALERTING_COMMANDS_H_

#include "cli/cli.h"

namespace sluice::cli {

// Adds the `alerting` group.
void AddAlertingCommands(CLI::App& app, const Options& options, int* exit_code);

}  // namespace sluice::cli

#endif  // SLUICE_CLI_ALERTING_COMMANDS_H_
