// What a receiver type is built from: the shared HTTP client and the server
// settings. Each type's folder provides `static std::unique_ptr<ReceiverPlugin>
// Create(const ReceiverContext&)`, listed by one row in registry.cc.
#ifndef SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONTEXT_H_
#define SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONTEXT_H_

#include <memory>
#include <string>

#include "common/http_client.h"
#include "server/notification/core/receiver_plugin.h"

namespace sluice::notification::receivers {

// Server settings some receiver types need (the `notification:` section).
struct ReceiverOptions {
  // The directory file receivers write under: an absolute, symlink-free path
  // (realpath). Empty: the file type is disabled.
  std::string file_dir;
  // Slack's Web API base URL (`notification.slack_api_url`, an http(s) URL
  // without a trailing slash), used unless a receiver names its own api_url.
  std::string slack_api_url = "https://slack.com/api";
  // Lark's open platform base URL (`notification.lark_api_url`, http(s), no
  // trailing slash), used unless a receiver names its own api_url.
  std::string lark_api_url = "https://open.larksuite.com";
};

// Everything a receiver type's Create may use. `http` is not owned and
// outlives the receivers.
struct ReceiverContext {
  HttpClient* http = nullptr;
  ReceiverOptions options;
};

// A registry row's factory: T::Create(ctx).
template <typename T>
std::unique_ptr<ReceiverPlugin> Create(const ReceiverContext& ctx) {
  return T::Create(ctx);
}

}  // namespace sluice::notification::receivers

#endif  // SLUICE_SERVER_NOTIFICATION_RECEIVERS_CONTEXT_H_
