// The one table of receiver types (one row per folder, no static
// self-registration; the same shape as sink/sinks/registry.cc).
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_

#include <string>
#include <vector>

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"
#include "server/notification/receivers/context.h"

namespace sluice::notification::receivers {

// The registered type names, sorted.
std::vector<std::string> ReceiverTypes();

// Every receiver type (see ReceiverTypes), sharing `http` (which must
// outlive them).
ReceiverPlugins NewReceiverPlugins(HttpClient* http, const ReceiverOptions& options = {});

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_
