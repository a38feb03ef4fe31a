// The one table of receiver types.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_

#include <string>

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"

namespace sluice::notification::receivers {

// Server settings some receiver types need.
struct ReceiverOptions {
  // The directory file receivers write under: an absolute, symlink-free path
  // (realpath). Empty: the file type is disabled.
  std::string file_dir;
};

// Every receiver type (http, file, slack, pagerduty), sharing `http` (which
// must outlive them).
ReceiverPlugins NewReceiverPlugins(HttpClient* http, const ReceiverOptions& options = {});

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_
