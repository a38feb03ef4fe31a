#include "server/notification/receivers/registry.h"

#include "server/notification/receivers/file/file_receiver.h"
#include "server/notification/receivers/http/http_receiver.h"
#include "server/notification/receivers/pagerduty/pagerduty_receiver.h"
#include "server/notification/receivers/slack/slack_receiver.h"

namespace sluice::notification::receivers {

ReceiverPlugins NewReceiverPlugins(HttpClient* http, const ReceiverOptions& options) {
  ReceiverPlugins p;
  p["file"] = std::make_unique<FileReceiver>(options.file_dir);
  p["http"] = std::make_unique<HttpReceiver>(http);
  p["pagerduty"] = std::make_unique<PagerDutyReceiver>(http);
  p["slack"] = std::make_unique<SlackReceiver>(http);
  return p;
}

}  // namespace sluice::notification::receivers
