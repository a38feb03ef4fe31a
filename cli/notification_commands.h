// sluicectl commands of the notification API:
//   notification send -f file.yaml [--idempotency-key K]   (root key `payload`)
//   notification messages <id>
//   receiver|subscription create|update|list|get|delete
//   template create|list|get|delete|render
#ifndef SLUICE_CLI_NOTIFICATION_COMMANDS_H_
#define SLUICE_CLI_NOTIFICATION_COMMANDS_H_

#include "cli/cli.h"

namespace sluice::cli {

// Adds the `notification`, `receiver`, `subscription` and `template` groups.
void AddNotificationCommands(CLI::App& app, const Options& options, int* exit_code);

}  // namespace sluice::cli

#endif  // SLUICE_CLI_NOTIFICATION_COMMANDS_H_
