#include "server/notification/module.h"

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/auth/secret.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "common/http_client.h"
#include "common/outbound.h"
#include "server/notification/alerting/cortex_backend.h"
#include "server/notification/alerting/prometheus_backend.h"
#include "server/notification/api/grpc_service.h"
#include "server/notification/core/cleanup.h"
#include "server/notification/core/delivery.h"
#include "server/notification/receivers/config_util.h"
#include "server/notification/receivers/registry.h"
#include "server/notification/receivers/slack/slack_web_api.h"
#include "server/notification/siren/siren_service.h"
#include "spdlog/spdlog.h"

namespace sluice::notification {
namespace {

// Advisory lock key of the cleanup_queue job (access's jobs use 0x51ce0001..3).
constexpr int64_t kCleanupQueueLock = 0x51ce0101;

struct Settings {
  DeliveryOptions delivery;
  // cleanup_queue: how often, and how long published messages are kept.
  absl::Duration cleanup_interval = absl::Hours(1);
  absl::Duration queue_retention = kDefaultQueueRetention;
  QueuePolicy policy;
  auth::AdminList admins;          // admins, admin_groups
  SendPolicy senders;              // senders, sender_groups (F-M1)
  api::AlertHookTokens hook_tokens;  // alert_hook_tokens
  AlertHookSecrets hook_secrets;     // alert_hook_secrets
  receivers::ReceiverOptions receivers;
  alerting::PrometheusOptions prometheus;  // prometheus, alert_hook_base_url
};

// An absolute path without "." or ".." components; InvalidArgument naming
// `where` otherwise.
absl::Status CheckPlainPath(const std::string& where, const std::string& path) {
  if (path.empty() || path[0] != '/' || path.find("/../") != std::string::npos ||
      path.find("/./") != std::string::npos || absl::EndsWith(path, "/..") ||
      absl::EndsWith(path, "/.")) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": \"", path, "\" must be an absolute path without . or .."));
  }
  return absl::OkStatus();
}

absl::Status CheckBaseUrl(const std::string& where, const std::string& url) {
  if (absl::StartsWith(url, "http://") || absl::StartsWith(url, "https://")) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(where, ": \"", url, "\" must be an http(s) URL"));
}

// prometheus: {rules_dir, alertmanager_config_file, alertmanager_url,
// group_wait, group_interval, repeat_interval}
absl::Status ParsePrometheus(const YAML::Node& node, alerting::PrometheusOptions* o) {
  if (!node.IsMap()) return absl::InvalidArgumentError("notification.prometheus: must be a mapping");
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string key = it->first.as<std::string>();
    std::string where = "notification.prometheus." + key;
    if (!it->second.IsScalar()) return absl::InvalidArgumentError(where + ": must be a string");
    std::string v = it->second.Scalar();
    if (key == "rules_dir") {
      if (auto st = CheckPlainPath(where, v); !st.ok()) return st;
      struct stat st;
      if (lstat(v.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": \"", v, "\" is not an existing directory (not a symlink)"));
      }
      o->rules_dir = v;
    } else if (key == "alertmanager_config_file") {
      if (auto st = CheckPlainPath(where, v); !st.ok()) return st;
      o->alertmanager_config_file = v;
    } else if (key == "alertmanager_url") {
      if (auto st = CheckBaseUrl(where, v); !st.ok()) return st;
      o->alertmanager_url = v;
    } else if (key == "group_wait") {
      o->group_wait = v;
    } else if (key == "group_interval") {
      o->group_interval = v;
    } else if (key == "repeat_interval") {
      o->repeat_interval = v;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": unknown key (known: ",
          server::KnownConfigKeys(kNotificationConfigKeys, "prometheus."), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseStringList(const YAML::Node& node, const std::string& key,
                             std::set<std::string>* out) {
  if (!node.IsSequence()) {
    return absl::InvalidArgumentError(absl::StrCat("notification.", key, ": want a list of strings"));
  }
  for (const auto& item : node) {
    if (!item.IsScalar() || item.Scalar().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("notification.", key, ": want a list of non-empty strings"));
    }
    out->insert(item.Scalar());
  }
  return absl::OkStatus();
}

// alert_hook_tokens: [{provider: "<type>/<id>" | "*", token_file: path | token_env: NAME}]
// alert_hook_secrets: [{provider: "<type>/<id>" | "*", secret_file: path | secret_env: NAME}]
// `kind` is "token" or "secret" (the keys' prefix); a secret, an HMAC key,
// needs `min_size` bytes or more.
absl::Status ParseProviderSecrets(const YAML::Node& node, const std::string& key,
                                  const std::string& kind, size_t min_size,
                                  std::map<std::string, std::string>* out) {
  std::string where = "notification." + key;
  std::string file_key = kind + "_file", env_key = kind + "_env";
  if (!node.IsSequence()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": want a list of {provider, ", file_key, "|", env_key, "}"));
  }
  for (const auto& item : node) {
    if (!item.IsMap() || !item["provider"] || !item["provider"].IsScalar()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": each entry needs provider"));
    }
    auth::SecretSource src;
    for (const auto& kv : item) {
      std::string k = kv.first.as<std::string>();
      if (k == file_key) {
        src.file = kv.second.as<std::string>();
      } else if (k == env_key) {
        src.env = kv.second.as<std::string>();
      } else if (k != "provider") {
        return absl::InvalidArgumentError(absl::StrCat(where, ": unknown key \"", k, "\""));
      }
    }
    std::string provider = item["provider"].Scalar();
    if (provider != "*" && std::count(provider.begin(), provider.end(), '/') != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": provider \"", provider, "\" must be <provider_type>/<provider_id> or *"));
    }
    if (src.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", provider, " needs ", file_key, " or ", env_key));
    }
    auto value = auth::LoadSecret(src, absl::StrCat(where, " ", provider));
    if (!value.ok()) return value.status();
    if (value->size() < min_size) {
      return absl::InvalidArgumentError(absl::StrCat(where, " ", provider, ": the ", kind,
                                                     " must be at least ", min_size,
                                                     " bytes (openssl rand -hex 32)"));
    }
    (*out)[provider] = *value;
  }
  return absl::OkStatus();
}

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
    if (key == "admins" || key == "admin_groups") {
      auto* out = key == "admins" ? &s.admins.identities : &s.admins.groups;
      if (auto st = ParseStringList(it->second, key, out); !st.ok()) return st;
      continue;
    }
    if (key == "senders" || key == "sender_groups") {
      auto* out = key == "senders" ? &s.senders.senders : &s.senders.sender_groups;
      if (auto st = ParseStringList(it->second, key, out); !st.ok()) return st;
      if (key == "sender_groups" && out->count(kAnySender) > 0) {
        return absl::InvalidArgumentError(
            "notification.sender_groups: \"*\" is not a group (notification.senders: [\"*\"] "
            "lets every caller send)");
      }
      continue;
    }
    if (key == "alert_hook_tokens") {
      if (auto st = ParseProviderSecrets(it->second, key, "token", 16, &s.hook_tokens); !st.ok()) {
        return st;
      }
      continue;
    }
    if (key == "alert_hook_secrets") {
      if (auto st = ParseProviderSecrets(it->second, key, "secret", 32, &s.hook_secrets);
          !st.ok()) {
        return st;
      }
      continue;
    }
    if (key == "slack_api_url" || key == "lark_api_url") {
      std::string url;
      try {
        url = it->second.as<std::string>();
      } catch (const YAML::Exception&) {
        return absl::InvalidArgumentError(absl::StrCat("notification.", key, ": must be a string"));
      }
      if (auto st = ValidateHttpUrl(absl::StrCat("notification.", key), url); !st.ok()) return st;
      while (!url.empty() && url.back() == '/') url.pop_back();
      (key == "slack_api_url" ? s.receivers.slack_api_url : s.receivers.lark_api_url) = url;
      continue;
    }
    if (key == "prometheus") {
      if (auto st = ParsePrometheus(it->second, &s.prometheus); !st.ok()) return st;
      continue;
    }
    if (key == "alert_hook_base_url") {
      std::string v = it->second.IsScalar() ? it->second.Scalar() : "";
      if (auto st = CheckBaseUrl("notification.alert_hook_base_url", v); !st.ok()) return st;
      s.prometheus.hook_base_url = v;
      continue;
    }
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
    } else if (key == "cleanup_interval_seconds") {
      s.cleanup_interval = absl::Seconds(v);  // 0: on demand only
    } else if (key == "queue_retention_seconds") {
      if (v == 0) {
        return absl::InvalidArgumentError("notification.queue_retention_seconds: must be > 0");
      }
      s.queue_retention = absl::Seconds(v);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("notification.", key, ": unknown key (known: ",
                       server::KnownConfigKeys(kNotificationConfigKeys, ""), ")"));
    }
  }
  return s;
}

// The effective settings, one "key=value" per line (DescribeNotificationConfig).
std::string Describe(const Settings& s) {
  auto ms = [](absl::Duration d) { return absl::ToInt64Milliseconds(d); };
  auto secs = [](absl::Duration d) { return absl::ToInt64Seconds(d); };
  std::string out;
  absl::StrAppend(&out, "workers=", s.delivery.workers, "\nbatch_size=", s.delivery.batch_size,
                  "\npoll_interval_ms=", ms(s.delivery.poll_interval),
                  "\nmax_tries=", s.policy.max_tries,
                  "\nretry_backoff_ms=", ms(s.delivery.backoff_base),
                  "\nretry_backoff_max_ms=", ms(s.delivery.backoff_max),
                  "\nmessage_validity_seconds=", secs(s.policy.validity),
                  "\nlease_seconds=", secs(s.delivery.lease),
                  "\ncleanup_interval_seconds=", secs(s.cleanup_interval),
                  "\nqueue_retention_seconds=", secs(s.queue_retention));
  absl::StrAppend(&out, "\nfile_receiver_dir=", s.receivers.file_dir,
                  "\nslack_api_url=", s.receivers.slack_api_url,
                  "\nlark_api_url=", s.receivers.lark_api_url,
                  "\nadmins=", absl::StrJoin(s.admins.identities, ","),
                  "\nadmin_groups=", absl::StrJoin(s.admins.groups, ","),
                  "\nsenders=", absl::StrJoin(s.senders.senders, ","),
                  "\nsender_groups=", absl::StrJoin(s.senders.sender_groups, ","),
                  "\nalert_hook_tokens=", s.hook_tokens.size(), " entries",
                  "\nalert_hook_secrets=", s.hook_secrets.size(), " entries",
                  "\nalert_hook_base_url=", s.prometheus.hook_base_url);
  absl::StrAppend(&out, "\nprometheus.rules_dir=", s.prometheus.rules_dir,
                  "\nprometheus.alertmanager_config_file=", s.prometheus.alertmanager_config_file,
                  "\nprometheus.alertmanager_url=", s.prometheus.alertmanager_url,
                  "\nprometheus.group_wait=", s.prometheus.group_wait,
                  "\nprometheus.group_interval=", s.prometheus.group_interval,
                  "\nprometheus.repeat_interval=", s.prometheus.repeat_interval, "\n");
  return out;
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
        silence_repo_(ctx.pool),
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
                       settings.policy, [this] { workers_.Wake(); }, settings.senders),
        alerts_(&notifications_, &alert_repo_, &silence_repo_),
        silences_(&silence_repo_, &subscription_repo_),
        alerting_repo_(ctx.pool),
        prometheus_backend_(settings.prometheus, http_.get(), &settings_.hook_secrets),
        cortex_backend_(settings.prometheus, http_.get(), &settings_.hook_secrets),
        alerting_(&alerting_repo_, &templates_, ctx.crypter,
                  RuleBackends{{"prometheus", &prometheus_backend_}, {"cortex", &cortex_backend_}}),
        settings_(std::move(settings)),
        grpc_(api::Services{&receivers_, &subscriptions_, &templates_, &notifications_, &alerts_,
                            ctx.auth, &settings_.admins, &settings_.hook_tokens, &silences_,
                            &alerting_, &settings_.hook_secrets}),
        // Siren's API at Siren's paths, on the same core.
        siren_(api::Services{&receivers_, &subscriptions_, &templates_, &notifications_,
                             &alerts_, ctx.auth, &settings_.admins, &settings_.hook_tokens,
                             &silences_, &alerting_, &settings_.hook_secrets}),
        siren_v1_(api::Services{&receivers_, &subscriptions_, &templates_, &notifications_,
                                &alerts_, ctx.auth, &settings_.admins, &settings_.hook_tokens,
                                &silences_}) {
    if (ctx.links != nullptr) {
      ctx.links->notifications = &notifications_;
      ctx.links->templates = &templates_;
      ctx.links->slack_api = [this](uint64_t id) { return SlackApi(id); };
    }
  }

  std::vector<std::string> ServiceNames() const override {
    return {"sluice.notification.v1beta1.NotificationService", "gotocompany.siren.v1beta1.SirenService",
            "gotocompany.siren.v1.SirenService"};
  }
  std::vector<grpc::Service*> Services() override { return {&grpc_, &siren_, &siren_v1_}; }
  void StartBackground() override {
    spdlog::info("notification delivery: {} workers, batch {}, poll {}, file receivers {}",
                 settings_.delivery.workers, settings_.delivery.batch_size,
                 absl::FormatDuration(settings_.delivery.poll_interval),
                 settings_.receivers.file_dir.empty() ? std::string("disabled")
                                                      : "under " + settings_.receivers.file_dir);
    if (settings_.senders.senders.count(kAnySender) > 0) {
      spdlog::warn("notification.senders contains \"*\": every authenticated caller may send "
                   "notifications (a development setting)");
    }
    workers_.Start();
  }
  void Stop() override { workers_.Stop(); }
  // Siren's `cleanup_queue` job.
  std::vector<server::Job> Jobs() override {
    server::Job job;
    job.name = "cleanup_queue";
    job.description = "delete published messages older than notification.queue_retention_seconds";
    job.lock_key = kCleanupQueueLock;
    job.interval = settings_.cleanup_interval;
    job.admins = &settings_.admins;
    job.admin_setting = "notification.admins";
    job.run = [this]() -> absl::StatusOr<std::map<std::string, int64_t>> {
      auto deleted = CleanupQueue(notification_repo_, absl::Now(), settings_.queue_retention);
      if (!deleted.ok()) return deleted.status();
      return std::map<std::string, int64_t>{{"messages_deleted", *deleted}};
    };
    return {std::move(job)};
  }

 private:
  // ModuleLinks::slack_api: the receiver's (or its slack parent's) opened
  // configuration, with the server's Slack API URL unless it names one.
  absl::StatusOr<std::unique_ptr<receivers::SlackWebApi>> SlackApi(uint64_t id) {
    auto r = receiver_repo_.Get(id);
    if (!r.ok()) return r.status();
    if (r->type == "slack_channel") {
      r = receiver_repo_.Get(r->parent_id);
      if (!r.ok()) return r.status();
    }
    if (r->type != "slack") {
      return absl::FailedPreconditionError(
          absl::StrCat("receiver ", id, " is of type \"", r->type, "\", not slack or slack_channel"));
    }
    auto opened = codec_.Open(r->type, r->configurations, ReceiverPlace(r->id));
    if (!opened.ok()) return opened.status();
    std::string token = receivers::StringOr(*opened, "token", "");
    std::string api = receivers::StringOr(*opened, "api_url", settings_.receivers.slack_api_url);
    while (!api.empty() && api.back() == '/') api.pop_back();
    if (token.empty()) {
      return absl::FailedPreconditionError(absl::StrCat("receiver ", r->id, " has no token"));
    }
    return std::make_unique<receivers::SlackWebApi>(http_.get(), std::move(api), std::move(token));
  }

  std::unique_ptr<HttpClient> http_;
  ReceiverPlugins plugins_;
  SecretCodec codec_;
  PostgresReceiverRepository receiver_repo_;
  PostgresSubscriptionRepository subscription_repo_;
  PostgresTemplateRepository template_repo_;
  PostgresNotificationRepository notification_repo_;
  PostgresAlertRepository alert_repo_;
  PostgresSilenceRepository silence_repo_;
  prometheus::Family<prometheus::Counter>* outcomes_;  // owned by the registry
  DeliveryWorkerPool workers_;
  ReceiverService receivers_;
  SubscriptionService subscriptions_;
  TemplateService templates_;
  NotificationService notifications_;
  AlertService alerts_;
  SilenceService silences_;
  PostgresAlertingRepository alerting_repo_;
  alerting::PrometheusBackend prometheus_backend_;  // reads settings_.hook_secrets
  alerting::CortexBackend cortex_backend_;          // same
  AlertingService alerting_;
  Settings settings_;
  api::NotificationGrpcService grpc_;
  siren::SirenGrpcService siren_;
  siren::SirenV1GrpcService siren_v1_;
};

}  // namespace

absl::StatusOr<std::string> DescribeNotificationConfig(const YAML::Node& node) {
  auto settings = ParseSettings(&node);
  if (!settings.ok()) return settings.status();
  return Describe(*settings);
}

absl::StatusOr<std::unique_ptr<server::Module>> CreateModule(const server::ModuleContext& ctx) {
  auto settings = ParseSettings(ctx.module_config);
  if (!settings.ok()) return settings.status();
  // What the other modules add to a payload (ModuleLinks::decorate_payload,
  // e.g. the access module's Slack approval buttons), read when a message is
  // delivered, once every module exists.
  if (server::ModuleLinks* links = ctx.links) {
    settings->delivery.decorate_payload = [links](absl::string_view type, uint64_t receiver_id,
                                                  const nlohmann::json& data,
                                                  nlohmann::json* payload) {
      if (links->decorate_payload) links->decorate_payload(type, receiver_id, data, payload);
    };
  }
  return std::unique_ptr<server::Module>(new NotificationModule(ctx, *settings));
}

}  // namespace sluice::notification
