#include "server/access/module.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/auth/secret.h"
#include "common/http_client.h"
#include "server/access/api/appeal_services.h"
#include "server/access/api/services.h"
#include "server/access/core/access_services.h"
#include "server/access/guardian/guardian_service.h"
#include "server/access/iam/http_iam_client.h"
#include "server/access/core/validation.h"
#include "server/access/event_notifier.h"
#include "server/access/providers/registry.h"
#include "server/access/store/postgres_activity_repository.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/postgres_event_store.h"
#include "server/access/store/postgres_provider_journal.h"
#include "server/access/store/postgres_repositories.h"
#include "server/slack/approval_buttons.h"
#include "server/slack/grpc_service.h"
#include "server/slack/interactions.h"
#include "server/slack/replay_store.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

// Advisory lock keys of the jobs (one replica runs each; server/jobs.h).
constexpr int64_t kResourceSyncLock = 0x51ce0001;
constexpr int64_t kGrantExpiryLock = 0x51ce0002;
constexpr int64_t kReconcileLock = 0x51ce0003;
constexpr int64_t kExpiringGrantLock = 0x51ce0004;
constexpr int64_t kPendingReminderLock = 0x51ce0005;
// The periodic run leaves operations younger than this to their request.
constexpr absl::Duration kReconcileMinAge = absl::Seconds(60);
// Settled journal entries are kept this long (for audits of incidents).
constexpr absl::Duration kJournalRetention = absl::Hours(24 * 30);

using Counts = std::map<std::string, int64_t>;

class AccessModule : public server::Module {
 public:
  AccessModule(const server::ModuleContext& ctx, AccessConfig config,
               std::unique_ptr<db::Pool> journal_pool)
      : config_(config),
        journal_pool_(std::move(journal_pool)),
        journal_(journal_pool_.get()),
        policy_repo_(ctx.pool),
        provider_repo_(ctx.pool),
        resource_repo_(ctx.pool),
        audit_repo_(ctx.pool),
        appeal_repo_(ctx.pool),
        activity_repo_(ctx.pool),
        event_store_(ctx.pool),
        links_(ctx.links),
        event_outcomes_(ctx.registry == nullptr
                            ? nullptr
                            : &prometheus::BuildCounter()
                                   .Name("sluice_access_events_total")
                                   .Help("Access events handled by this replica's dispatcher")
                                   .Register(*ctx.registry)),
        provider_http_(NewCurlHttpClient()),
        registry_(BuiltinProviders(provider_http_.get())),
        policies_(&policy_repo_, ctx.crypter),
        providers_(&provider_repo_, &policy_repo_, &registry_, ctx.crypter),
        resources_(&resource_repo_, &providers_),
        activities_(&activity_repo_, &providers_, &resource_repo_, &registry_),
        iam_(NewHttpIamClient()),
        services_(&appeal_repo_, &resource_repo_, &policies_, &providers_, &registry_, iam_.get(),
                  &absl::Now, AppealLimits{config_.max_grant_duration}),
        api_auth_{ctx.auth, &config_.admins, config_.max_page_size, config_.read_scope_all},
        policy_grpc_(&policies_, api_auth_),
        provider_grpc_(&providers_, api_auth_),
        resource_grpc_(&resources_, api_auth_),
        audit_grpc_(&audit_repo_, api_auth_),
        appeal_grpc_(&services_.appeals(), &services_.grants(), &activities_, api_auth_),
        approval_grpc_(&services_.approvals(), api_auth_),
        grant_grpc_(&services_.grants(), &services_.reconcile(), api_auth_),
        guardian_grpc_({&policy_grpc_, &provider_grpc_, &resource_grpc_, &appeal_grpc_,
                        &approval_grpc_, &grant_grpc_}),
        slack_replay_(ctx.pool),
        slack_interactions_(SlackDeps()),
        slack_grpc_(ctx.auth, &slack_interactions_) {
    if (links_ != nullptr && !config_.slack_signing_secrets.empty()) {
      // Approve and Reject buttons on approver notifications to Slack.
      links_->decorate_payload = [](absl::string_view type, uint64_t receiver_id,
                                    const nlohmann::json& data, nlohmann::json* payload) {
        if (type != "slack" && type != "slack_channel") return;
        auto added = slack::AddApprovalButtons(data, receiver_id, payload);
        if (!added.ok()) {
          spdlog::warn("msg=\"approval buttons left out\" receiver={} error=\"{}\"", receiver_id,
                       std::string(added.status().message()));
        }
      };
    }
    services_.set_journal(&journal_);
    services_.set_events(config_.notifications.events, [this] {
      if (EventDispatcher* d = dispatcher_.load()) d->Wake();
    });
  }
  ~AccessModule() override { Stop(); }

  // Seeds the default event templates and starts delivering access events
  // through the notification module (when it is hosted).
  void StartBackground() override {
    if (links_ == nullptr || links_->notifications == nullptr) {
      spdlog::warn("msg=\"no notification module: access events are not delivered\"");
      return;
    }
    auto seeded = SeedEventTemplates(links_->templates);
    if (!seeded.ok()) {
      spdlog::warn("msg=\"access event templates not seeded\" error=\"{}\"",
                   std::string(seeded.status().message()));
    }
    notifier_ = std::make_unique<NotificationEventNotifier>(links_->notifications);
    owned_dispatcher_ = std::make_unique<EventDispatcher>(&event_store_, notifier_.get(),
                                                          config_.notifications.dispatch);
    if (event_outcomes_ != nullptr) {
      owned_dispatcher_->set_observer([this](const DispatchReport& r) {
        for (const auto& [outcome, n] : {std::pair<const char*, int>{"sent", r.sent},
                                         {"no_receiver", r.no_receiver},
                                         {"retried", r.retried},
                                         {"failed", r.failed}}) {
          if (n > 0) event_outcomes_->Add({{"outcome", outcome}}).Increment(n);
        }
      });
    }
    owned_dispatcher_->Start();
    dispatcher_.store(owned_dispatcher_.get());
  }
  void Stop() override {
    dispatcher_.store(nullptr);
    if (owned_dispatcher_) owned_dispatcher_->Stop();
  }

  std::vector<std::string> ServiceNames() const override {
    return {"sluice.access.v1beta1.PolicyService", "sluice.access.v1beta1.ProviderService",
            "sluice.access.v1beta1.ResourceService", "sluice.access.v1beta1.AuditLogService",
            "sluice.access.v1beta1.AppealService", "sluice.access.v1beta1.ApprovalService",
            "sluice.access.v1beta1.GrantService", "gotocompany.guardian.v1beta1.GuardianService",
            "sluice.slack.v1.SlackInteractionService"};
  }
  std::vector<grpc::Service*> Services() override {
    return {&policy_grpc_, &provider_grpc_, &resource_grpc_, &audit_grpc_,   &appeal_grpc_,
            &approval_grpc_, &grant_grpc_,   &guardian_grpc_, &slack_grpc_};
  }
  // Guardian's job names (`guardian job run <name>`); reconcile is Sluice's.
  std::vector<server::Job> Jobs() override {
    return {Job("fetch_resources", "re-fetch every provider's resources", kResourceSyncLock,
                config_.resource_sync_interval, [this] { return SyncResources(); }),
            Job("revoke_expired_grants", "revoke grants past their expiration date",
                kGrantExpiryLock, config_.grant_expiry_interval,
                [this] { return RevokeExpiredGrants(); }),
            Job("reconcile", "settle provider calls a crash left in flight", kReconcileLock,
                config_.reconcile_interval, [this] { return ReconcileOperations(); }),
            Job("expiring_grant_notification",
                "remind holders of grants expiring within access.notifications.expiring_grant_days",
                kExpiringGrantLock, config_.notifications.expiring_grant_interval,
                [this] { return RemindExpiring(); }),
            Job("pending_approvals_reminder",
                "remind approvers of appeals pending longer than "
                "access.notifications.pending_approval_age",
                kPendingReminderLock, config_.notifications.pending_reminder_interval,
                [this] { return RemindPending(); })};
  }

 private:
  server::Job Job(std::string name, std::string description, int64_t lock_key,
                  absl::Duration interval, std::function<absl::StatusOr<Counts>()> run) {
    server::Job job;
    job.name = std::move(name);
    job.description = std::move(description);
    job.lock_key = lock_key;
    job.interval = interval;
    job.admins = &config_.admins;
    job.admin_setting = "access.admins";
    job.run = std::move(run);
    return job;
  }
  absl::StatusOr<Counts> SyncResources() {
    auto report = providers_.SyncAll();
    return Counts{{"providers_synced", report.providers_synced},
                  {"providers_failed", report.providers_failed},
                  {"resources", report.resources}};
  }
  absl::StatusOr<Counts> RevokeExpiredGrants() {
    // The advisory lock picks one replica; the job's FOR UPDATE SKIP LOCKED
    // would keep two apart anyway.
    auto expired = services_.reconcile().ExpireGrants();
    if (!expired.ok()) return expired.status();
    return Counts{{"grants_expired", *expired}};
  }
  absl::StatusOr<Counts> RemindExpiring() {
    auto n = WriteExpiringReminders(event_store_, config_.notifications.events,
                                    config_.notifications.reminders, absl::Now());
    if (!n.ok()) return n.status();
    services_.EventsCommitted();
    return Counts{{"reminders_written", *n}};
  }
  absl::StatusOr<Counts> RemindPending() {
    auto n = WritePendingReminders(event_store_, config_.notifications.events,
                                   config_.notifications.reminders, absl::Now());
    if (!n.ok()) return n.status();
    services_.EventsCommitted();
    return Counts{{"reminders_written", *n}};
  }
  absl::StatusOr<Counts> ReconcileOperations() {
    auto report = services_.reconcile().Reconcile(kReconcileMinAge);
    if (!report.ok()) return report.status();
    if (report->examined > 0) {
      spdlog::warn("msg=\"reconciled provider operations left in flight\" examined={} "
                   "confirmed={} revoked={} completed={} regranted={} failed={}",
                   report->examined, report->confirmed, report->revoked, report->completed,
                   report->regranted, report->failed);
    }
    auto pruned = journal_.Prune(absl::Now() - kJournalRetention);
    auto events_pruned =
        event_store_.Prune(absl::Now() - EventRetention(config_.notifications.reminders));
    return Counts{{"examined", report->examined},   {"confirmed", report->confirmed},
                  {"revoked", report->revoked},     {"completed", report->completed},
                  {"regranted", report->regranted}, {"failed", report->failed},
                  {"journal_pruned", pruned.ok() ? *pruned : 0},
                  {"events_pruned", events_pruned.ok() ? *events_pruned : 0}};
  }

  AccessConfig config_;
  std::unique_ptr<db::Pool> journal_pool_;  // one connection of its own (see the journal)
  PostgresProviderJournal journal_;
  PostgresPolicyRepository policy_repo_;
  PostgresProviderRepository provider_repo_;
  PostgresResourceRepository resource_repo_;
  PostgresAuditLogRepository audit_repo_;
  PostgresAppealRepository appeal_repo_;
  PostgresActivityRepository activity_repo_;
  PostgresAccessEventStore event_store_;
  server::ModuleLinks* links_;  // may be null
  prometheus::Family<prometheus::Counter>* event_outcomes_;  // owned by the registry; may be null
  std::unique_ptr<NotificationEventNotifier> notifier_;
  std::unique_ptr<EventDispatcher> owned_dispatcher_;
  std::atomic<EventDispatcher*> dispatcher_{nullptr};  // set once it runs
  // The provider plugins' outbound HTTP (metabase, grafana, tableau).
  std::unique_ptr<HttpClient> provider_http_;
  ProviderRegistry registry_;
  PolicyService policies_;
  ProviderService providers_;
  ResourceService resources_;
  ActivityService activities_;  // provider activity import (Guardian's activities)
  std::unique_ptr<IamClient> iam_;
  AccessServices services_;  // appeals, approvals, grants, reconcile
  ApiAuth api_auth_;
  PolicyGrpcService policy_grpc_;
  ProviderGrpcService provider_grpc_;
  ResourceGrpcService resource_grpc_;
  AuditLogGrpcService audit_grpc_;
  AppealGrpcService appeal_grpc_;
  ApprovalGrpcService approval_grpc_;
  GrantGrpcService grant_grpc_;
  guardian::GuardianGrpcService guardian_grpc_;  // Guardian's rpcs over the six above
  // Approve or reject from Slack (issue 44).
  slack::PostgresReplayStore slack_replay_;
  slack::SlackInteractions slack_interactions_;
  slack::SlackInteractionGrpcService slack_grpc_;

  // What the Slack interactions use: the configured signing secrets, the
  // notification module's Slack receivers, the approval service and the
  // replay store.
  slack::InteractionDeps SlackDeps() {
    slack::InteractionDeps deps;
    deps.signing_secrets = config_.slack_signing_secrets;
    deps.slack = [this](uint64_t id)
        -> absl::StatusOr<std::unique_ptr<notification::receivers::SlackWebApi>> {
      if (links_ == nullptr || !links_->slack_api) {
        return absl::FailedPreconditionError(
            "Slack interactions need the notification module (its slack receivers)");
      }
      return links_->slack_api(id);
    };
    deps.act = [this](const std::string& id, const std::string& step, const std::string& action,
                      const std::string& actor, const std::string& reason,
                      const nlohmann::json& extra) {
      return services_.approvals().Act(id, step, action, actor, reason, extra);
    };
    deps.remember = [this](const std::string& signature, absl::Time expires) {
      return slack_replay_.Remember(signature, expires);
    };
    return deps;
  }
};

}  // namespace

namespace {

// `allow_zero`: "0" or "0s" is accepted (a job interval: on demand only).
absl::Status ParseDurationKey(const std::string& key, const YAML::Node& value,
                              absl::Duration* out, bool allow_zero = false) {
  if (!value.IsScalar()) return absl::InvalidArgumentError(absl::StrCat(key, ": want a duration"));
  if (allow_zero && (value.Scalar() == "0" || value.Scalar() == "0s")) {
    *out = absl::ZeroDuration();
    return absl::OkStatus();
  }
  auto d = ParseDurationField(key, value.Scalar());
  if (!d.ok()) return d.status();
  *out = *d;
  return absl::OkStatus();
}

absl::Status ParseDisabledEvents(const YAML::Node& value, EventPolicy* out) {
  const std::string key = "access.notifications.disabled_events";
  const auto& known = AllEventTypes();
  if (!value.IsSequence()) return absl::InvalidArgumentError(key + ": want a list of event types");
  for (const auto& item : value) {
    std::string type = item.IsScalar() ? item.Scalar() : "";
    if (std::find(known.begin(), known.end(), type) == known.end()) {
      return absl::InvalidArgumentError(absl::StrCat(key, ": unknown event type \"", type,
                                                     "\" (known: ", absl::StrJoin(known, ", "),
                                                     ")"));
    }
    out->disabled.insert(type);
  }
  return absl::OkStatus();
}

absl::Status ParsePositiveInts(const std::string& key, const YAML::Node& value,
                               std::vector<int>* out) {
  if (!value.IsSequence()) return absl::InvalidArgumentError(key + ": want a list of days");
  out->clear();
  for (const auto& item : value) {
    int n = 0;
    if (!item.IsScalar() || !absl::SimpleAtoi(item.Scalar(), &n) || n <= 0) {
      return absl::InvalidArgumentError(key + ": want positive whole days, e.g. [7, 3, 1]");
    }
    out->push_back(n);
  }
  return absl::OkStatus();
}

// The `access.notifications:` section.
absl::Status ParseNotifications(const YAML::Node& node, AccessNotificationConfig* c) {
  if (node.IsNull()) return absl::OkStatus();
  if (!node.IsMap()) return absl::InvalidArgumentError("access.notifications: must be a mapping");
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>(), full = "access.notifications." + key;
    absl::Status st;
    if (key == "disabled_events") {
      st = ParseDisabledEvents(kv.second, &c->events);
    } else if (key == "expiring_grant_days") {
      st = ParsePositiveInts(full, kv.second, &c->reminders.expiring_grant_days);
    } else if (key == "expiring_grant_interval") {
      st = ParseDurationKey(full, kv.second, &c->expiring_grant_interval, true);
    } else if (key == "pending_approval_age") {
      st = ParseDurationKey(full, kv.second, &c->reminders.pending_approval_age);
    } else if (key == "pending_reminder_interval") {
      st = ParseDurationKey(full, kv.second, &c->pending_reminder_interval, true);
    } else if (key == "poll_interval") {
      st = ParseDurationKey(full, kv.second, &c->dispatch.poll_interval);
      if (st.ok() && c->dispatch.poll_interval <= absl::ZeroDuration()) {
        st = absl::InvalidArgumentError(full + ": must be positive");
      }
    } else if (key == "max_attempts") {
      if (!kv.second.IsScalar() || !absl::SimpleAtoi(kv.second.Scalar(), &c->dispatch.max_attempts) ||
          c->dispatch.max_attempts <= 0) {
        st = absl::InvalidArgumentError(full + ": want a positive integer");
      }
    } else {
      st = absl::InvalidArgumentError(
          absl::StrCat(full, ": unknown key (known: ", server::KnownConfigKeys(kAccessConfigKeys, "notifications."), ")"));
    }
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

// access.slack_interactions: [{team_id, signing_secret_file | signing_secret_env}].
absl::Status ParseSlackInteractions(const YAML::Node& node, std::map<std::string, std::string>* out) {
  const std::string where = "access.slack_interactions";
  if (node.IsNull()) return absl::OkStatus();
  if (!node.IsSequence()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": want a list of {team_id, signing_secret_file|signing_secret_env}"));
  }
  for (const auto& item : node) {
    if (!item.IsMap() || !item["team_id"] || !item["team_id"].IsScalar() ||
        item["team_id"].Scalar().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": each entry needs team_id (the workspace's id, T…)"));
    }
    const std::string team = item["team_id"].Scalar();
    auth::SecretSource src;
    for (const auto& kv : item) {
      std::string k = kv.first.as<std::string>();
      if (k == "signing_secret_file" && kv.second.IsScalar()) {
        src.file = kv.second.Scalar();
      } else if (k == "signing_secret_env" && kv.second.IsScalar()) {
        src.env = kv.second.Scalar();
      } else if (k != "team_id") {
        return absl::InvalidArgumentError(absl::StrCat(
            where, " ", team, ": unknown key \"", k,
            "\" (known: team_id, signing_secret_file, signing_secret_env)"));
      }
    }
    if (src.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " ", team, ": needs signing_secret_file or signing_secret_env"));
    }
    if (out->count(team) > 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": team_id ", team, " is listed twice"));
    }
    auto value = auth::LoadSecret(src, absl::StrCat(where, " ", team));
    if (!value.ok()) return value.status();
    (*out)[team] = *value;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AccessConfig> ParseAccessConfig(const YAML::Node& node) {
  AccessConfig config;
  if (!node || node.IsNull()) return config;
  if (!node.IsMap()) return absl::InvalidArgumentError("access: must be a mapping");
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    if (key == "admins" || key == "admin_groups") {
      std::set<std::string>* out =
          key == "admins" ? &config.admins.identities : &config.admins.groups;
      if (!kv.second.IsSequence()) {
        return absl::InvalidArgumentError(absl::StrCat("access.", key, ": want a list of strings"));
      }
      for (const auto& item : kv.second) {
        if (!item.IsScalar() || item.Scalar().empty()) {
          return absl::InvalidArgumentError(
              absl::StrCat("access.", key, ": want a list of non-empty strings"));
        }
        out->insert(item.Scalar());
      }
      continue;
    }
    if (key == "notifications") {
      if (auto st = ParseNotifications(kv.second, &config.notifications); !st.ok()) return st;
      continue;
    }
    if (key == "slack_interactions") {
      if (auto st = ParseSlackInteractions(kv.second, &config.slack_signing_secrets); !st.ok()) {
        return st;
      }
      continue;
    }
    if (key == "max_page_size") {
      int n = 0;
      if (!kv.second.IsScalar() || !absl::SimpleAtoi(kv.second.Scalar(), &n) || n < 1 ||
          n > kMaxListPageSize) {
        return absl::InvalidArgumentError(
            absl::StrCat("access.max_page_size: want an integer from 1 to ", kMaxListPageSize));
      }
      config.max_page_size = n;
      continue;
    }
    if (key == "read_scope") {
      std::string v = kv.second.IsScalar() ? kv.second.Scalar() : "";
      if (v != "own" && v != "all") {
        return absl::InvalidArgumentError("access.read_scope: want own or all");
      }
      config.read_scope_all = v == "all";
      continue;
    }
    absl::Duration* target = nullptr;
    if (key == "resource_sync_interval") {
      target = &config.resource_sync_interval;
    } else if (key == "grant_expiry_interval") {
      target = &config.grant_expiry_interval;
    } else if (key == "reconcile_interval") {
      target = &config.reconcile_interval;
    } else if (key == "max_grant_duration") {
      target = &config.max_grant_duration;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("access.", key, ": unknown key (known: ", server::KnownConfigKeys(kAccessConfigKeys, ""), ")"));
    }
    if (!kv.second.IsScalar()) {
      return absl::InvalidArgumentError(absl::StrCat("access.", key, ": want a duration"));
    }
    auto d = ParseDurationField(absl::StrCat("access.", key), kv.second.Scalar());
    if (!d.ok()) return d.status();
    *target = *d;
  }
  return config;
}

absl::StatusOr<std::unique_ptr<server::Module>> CreateModule(const server::ModuleContext& ctx) {
  auto config = ParseAccessConfig(ctx.module_config ? *ctx.module_config : YAML::Node());
  if (!config.ok()) return config.status();
  // The journal commits on its own connection while a transaction of the
  // main pool is open (see PostgresProviderJournal).
  auto journal_pool = db::Pool::Create(ctx.pool->dsn(), 1);
  if (!journal_pool.ok()) return journal_pool.status();
  if (config->admins.identities.empty() && config->admins.groups.empty()) {
    spdlog::warn("msg=\"access.admins is empty: nobody can change policies, providers or "
                 "resources\"");
  }
  return std::unique_ptr<server::Module>(
      new AccessModule(ctx, *config, std::move(*journal_pool)));
}

}  // namespace sluice::access
