#include "server/notification/module.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "common/http_client.h"
#include "server/notification/api/grpc_service.h"
#include "server/notification/core/delivery.h"
#include "server/notification/receivers/registry.h"
#include "spdlog/spdlog.h"

namespace sluice::notification {
namespace {

struct Settings {
  DeliveryOptions delivery;
  QueuePolicy policy;
  receivers::ReceiverOptions receivers;
};

// notification.file_receiver_dir: an existing directory, kept as its
// realpath so that file receivers compare and open symlink-free paths.
absl::StatusOr<std::string> FileReceiverDir(const YAML::Node& value) {
  std::string dir;
  if (value.IsNull()) return dir;  // `file_receiver_dir:` with no value: disabled
  try {
    dir = value.as<std::string>();
  } catch (const YAML::Exception&) {
    return absl::InvalidArgumentError("notification.file_receiver_dir: must be a string");
  }
  if (dir.empty()) return dir;  // disabled
  if (dir[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("notification.file_receiver_dir: \"", dir, "\" must be an absolute path"));
  }
  char real[PATH_MAX];
  struct stat st;
  if (realpath(dir.c_str(), real) == nullptr || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("notification.file_receiver_dir: \"", dir, "\" is not an existing directory"));
  }
  return std::string(real);
}

absl::StatusOr<Settings> ParseSettings(const YAML::Node* node) {
  Settings s;
  if (node == nullptr || !node->IsDefined() || node->IsNull()) return s;
  if (!node->IsMap()) return absl::InvalidArgumentError("notification: must be a mapping");
  for (auto it = node->begin(); it != node->end(); ++it) {
    std::string key = it->first.as<std::string>();
    if (key == "file_receiver_dir") {
      auto dir = FileReceiverDir(it->second);
      if (!dir.ok()) return dir.status();
      s.receivers.file_dir = *dir;
      continue;
    }
    long long v = 0;
    try {
      v = it->second.as<long long>();
    } catch (const YAML::Exception&) {
      return absl::InvalidArgumentError(absl::StrCat("notification.", key, ": must be an integer"));
    }
    if (v < 0) return absl::InvalidArgumentError(absl::StrCat("notification.", key, ": must be ≥ 0"));
    if (key == "workers") {
      s.delivery.workers = static_cast<int>(v);
    } else if (key == "batch_size") {
      s.delivery.batch_size = std::max(1, static_cast<int>(v));
    } else if (key == "poll_interval_ms") {
      s.delivery.poll_interval = absl::Milliseconds(std::max(1LL, v));
    } else if (key == "max_tries") {
      s.policy.max_tries = std::max(1, static_cast<int>(v));
    } else if (key == "retry_backoff_ms") {
      s.delivery.backoff_base = absl::Milliseconds(v);
    } else if (key == "retry_backoff_max_ms") {
      s.delivery.backoff_max = absl::Milliseconds(v);
    } else if (key == "message_validity_seconds") {
      s.policy.validity = absl::Seconds(v);
    } else if (key == "lease_seconds") {
      s.delivery.lease = absl::Seconds(std::max(1LL, v));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("notification.", key, ": unknown key"));
    }
  }
  return s;
}

class NotificationModule : public server::Module {
 public:
  NotificationModule(const server::ModuleContext& ctx, Settings settings)
      : http_(NewCurlHttpClient()),
        plugins_(receivers::NewReceiverPlugins(http_.get(), settings.receivers)),
        codec_(&plugins_, ctx.crypter),
        receiver_repo_(ctx.pool),
        subscription_repo_(ctx.pool),
        template_repo_(ctx.pool),
        notification_repo_(ctx.pool),
        alert_repo_(ctx.pool),
        outcomes_(ctx.registry == nullptr
                      ? nullptr
                      : &prometheus::BuildCounter()
                             .Name("sluice_notification_messages_total")
                             .Help("Delivery outcomes of notification messages")
                             .Register(*ctx.registry)),
        workers_(&notification_repo_, &plugins_, &codec_, settings.delivery,
                 [this](absl::string_view outcome, int n) {
                   if (outcomes_ != nullptr) {
                     outcomes_->Add({{"outcome", std::string(outcome)}}).Increment(n);
                   }
                 }),
        receivers_(&receiver_repo_, &plugins_, &codec_),
        subscriptions_(&subscription_repo_, &receiver_repo_, &plugins_, &codec_),
        templates_(&template_repo_),
        notifications_(&receiver_repo_, &subscription_repo_, &template_repo_, &notification_repo_,
                       settings.policy, [this] { workers_.Wake(); }),
        alerts_(&notifications_, &alert_repo_),
        grpc_(api::Services{&receivers_, &subscriptions_, &templates_, &notifications_, &alerts_}),
        settings_(settings) {}

  std::vector<std::string> ServiceNames() const override {
    return {"sluice.notification.v1beta1.NotificationService"};
  }
  std::vector<grpc::Service*> Services() override { return {&grpc_}; }
  void StartBackground() override {
    spdlog::info("notification delivery: {} workers, batch {}, poll {}, file receivers {}",
                 settings_.delivery.workers, settings_.delivery.batch_size,
                 absl::FormatDuration(settings_.delivery.poll_interval),
                 settings_.receivers.file_dir.empty() ? std::string("disabled")
                                                      : "under " + settings_.receivers.file_dir);
    workers_.Start();
  }
  void Stop() override { workers_.Stop(); }

 private:
  std::unique_ptr<HttpClient> http_;
  ReceiverPlugins plugins_;
  SecretCodec codec_;
  PostgresReceiverRepository receiver_repo_;
  PostgresSubscriptionRepository subscription_repo_;
  PostgresTemplateRepository template_repo_;
  PostgresNotificationRepository notification_repo_;
  PostgresAlertRepository alert_repo_;
  prometheus::Family<prometheus::Counter>* outcomes_;  // owned by the registry
  DeliveryWorkerPool workers_;
  ReceiverService receivers_;
  SubscriptionService subscriptions_;
  TemplateService templates_;
  NotificationService notifications_;
  AlertService alerts_;
  api::NotificationGrpcService grpc_;
  Settings settings_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<server::Module>> CreateModule(const server::ModuleContext& ctx) {
  auto settings = ParseSettings(ctx.module_config);
  if (!settings.ok()) return settings.status();
  return std::unique_ptr<server::Module>(new NotificationModule(ctx, *settings));
}

}  // namespace sluice::notification
