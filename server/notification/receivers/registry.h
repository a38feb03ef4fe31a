// The one table of receiver types.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"

namespace sluice::notification::receivers {

// Every receiver type (http, file, slack, pagerduty), sharing `http` (which
// must outlive them).
ReceiverPlugins NewReceiverPlugins(HttpClient* http);

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_REGISTRY_H_
