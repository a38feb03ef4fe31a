#include "server/notification/receivers/registry.h"

#include "absl/strings/string_view.h"
#include "server/notification/receivers/file/file_receiver.h"
#include "server/notification/receivers/http/http_receiver.h"
#include "server/notification/receivers/lark/lark_receiver.h"
#include "server/notification/receivers/lark_channel/lark_channel_receiver.h"
#include "server/notification/receivers/pagerduty/pagerduty_receiver.h"
#include "server/notification/receivers/slack/slack_receiver.h"
#include "server/notification/receivers/slack_channel/slack_channel_receiver.h"

namespace sluice::notification::receivers {
namespace {

using Factory = std::unique_ptr<ReceiverPlugin> (*)(const ReceiverContext&);

struct Entry {
  absl::string_view type;  // the receiver's `type`
  Factory create;
};

// The registry: one row per folder under server/notification/receivers/.
// Keep sorted by type.
constexpr Entry kReceivers[] = {
    {"file", &Create<FileReceiver>},
    {"http", &Create<HttpReceiver>},
    {"lark", &Create<LarkReceiver>},
    {"lark_channel", &Create<LarkChannelReceiver>},
    {"pagerduty", &Create<PagerDutyReceiver>},
    {"slack", &Create<SlackReceiver>},
    {"slack_channel", &Create<SlackChannelReceiver>},
};

}  // namespace

std::vector<std::string> ReceiverTypes() {
  std::vector<std::string> out;
  for (const Entry& e : kReceivers) out.emplace_back(e.type);
  return out;
}

ReceiverPlugins NewReceiverPlugins(HttpClient* http, const ReceiverOptions& options) {
  ReceiverContext ctx{http, options};
  ReceiverPlugins p;
  for (const Entry& e : kReceivers) p[std::string(e.type)] = e.create(ctx);
  return p;
}

}  // namespace sluice::notification::receivers
