#include "server/access/module.h"

#include <set>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/http_client.h"
#include "server/access/api/appeal_services.h"
#include "server/access/api/services.h"
#include "server/access/iam/http_iam_client.h"
#include "server/access/core/validation.h"
#include "server/access/providers/registry.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/postgres_provider_journal.h"
#include "server/access/store/postgres_repositories.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

// Advisory lock keys of the background jobs (one replica runs each).
constexpr int64_t kResourceSyncLock = 0x51ce0001;
constexpr int64_t kGrantExpiryLock = 0x51ce0002;
constexpr int64_t kReconcileLock = 0x51ce0003;
// The periodic run leaves operations younger than this to their request.
constexpr absl::Duration kReconcileMinAge = absl::Seconds(60);
// Settled journal entries are kept this long (for audits of incidents).
constexpr absl::Duration kJournalRetention = absl::Hours(24 * 30);

// Runs `fn` every `interval` on its own thread until Stop().
class PeriodicJob {
 public:
  PeriodicJob(std::string name, absl::Duration interval, std::function<void()> fn)
      : name_(std::move(name)), interval_(interval), fn_(std::move(fn)) {}
  ~PeriodicJob() { Stop(); }
  void Start() {
    thread_ = std::thread([this] {
      absl::MutexLock lock(&mu_);
      while (!stopping_) {
        if (mu_.AwaitWithTimeout(absl::Condition(&stopping_), interval_)) break;
        mu_.Unlock();
        try {
          fn_();
        } catch (const std::exception& e) {
          spdlog::error("msg=\"job failed\" job={} error=\"{}\"", name_, e.what());
        }
        mu_.Lock();
      }
    });
  }
  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::string name_;
  absl::Duration interval_;
  std::function<void()> fn_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

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
        job_lock_(ctx.pool),
        provider_http_(NewCurlHttpClient()),
        registry_(BuiltinProviders(provider_http_.get())),
        policies_(&policy_repo_, ctx.crypter),
        providers_(&provider_repo_, &policy_repo_, &registry_, ctx.crypter),
        resources_(&resource_repo_),
        iam_(NewHttpIamClient()),
        appeals_(&appeal_repo_, &resource_repo_, &policies_, &providers_, &registry_, iam_.get(),
                 &absl::Now, AppealLimits{config_.max_grant_duration}),
        api_auth_{ctx.auth, &config_.admins},
        policy_grpc_(&policies_, api_auth_),
        provider_grpc_(&providers_, api_auth_),
        resource_grpc_(&resources_, api_auth_),
        audit_grpc_(&audit_repo_, api_auth_),
        appeal_grpc_(&appeals_, api_auth_),
        approval_grpc_(&appeals_, api_auth_),
        grant_grpc_(&appeals_, api_auth_) {
    appeals_.set_journal(&journal_);
  }

  std::vector<std::string> ServiceNames() const override {
    return {"sluice.access.v1beta1.PolicyService", "sluice.access.v1beta1.ProviderService",
            "sluice.access.v1beta1.ResourceService", "sluice.access.v1beta1.AuditLogService",
            "sluice.access.v1beta1.AppealService", "sluice.access.v1beta1.ApprovalService",
            "sluice.access.v1beta1.GrantService"};
  }
  std::vector<grpc::Service*> Services() override {
    return {&policy_grpc_, &provider_grpc_, &resource_grpc_, &audit_grpc_,
            &appeal_grpc_, &approval_grpc_, &grant_grpc_};
  }
  void StartBackground() override {
    sync_job_ = std::make_unique<PeriodicJob>(
        "resource-sync", config_.resource_sync_interval, [this] {
          auto ran = job_lock_.RunExclusive(kResourceSyncLock, [this] {
            int failures = providers_.SyncAll();
            spdlog::info("msg=\"resource sync done\" failures={}", failures);
          });
          if (!ran.ok()) {
            spdlog::warn("msg=\"resource sync skipped\" error=\"{}\"",
                         std::string(ran.status().message()));
          }
        });
    sync_job_->Start();
    expiry_job_ = std::make_unique<PeriodicJob>(
        "grant-expiry", config_.grant_expiry_interval, [this] {
          // Several replicas may run this: the advisory lock picks one, and
          // the job's FOR UPDATE SKIP LOCKED would keep them apart anyway.
          auto ran = job_lock_.RunExclusive(kGrantExpiryLock, [this] {
            auto expired = appeals_.ExpireGrants();
            if (!expired.ok()) {
              spdlog::warn("msg=\"grant expiry failed\" error=\"{}\"",
                           std::string(expired.status().message()));
            } else if (*expired > 0) {
              spdlog::info("msg=\"grants expired\" count={}", *expired);
            }
          });
          if (!ran.ok()) {
            spdlog::warn("msg=\"grant expiry skipped\" error=\"{}\"",
                         std::string(ran.status().message()));
          }
        });
    expiry_job_->Start();
    reconcile_job_ = std::make_unique<PeriodicJob>(
        "reconcile", config_.reconcile_interval, [this] {
          auto ran = job_lock_.RunExclusive(kReconcileLock, [this] {
            auto report = appeals_.Reconcile(kReconcileMinAge);
            if (!report.ok()) {
              spdlog::warn("msg=\"reconciliation failed\" error=\"{}\"",
                           std::string(report.status().message()));
            } else if (report->examined > 0) {
              spdlog::warn("msg=\"reconciled provider operations left in flight\" examined={} "
                           "confirmed={} revoked={} completed={} regranted={} failed={}",
                           report->examined, report->confirmed, report->revoked,
                           report->completed, report->regranted, report->failed);
            }
            (void)journal_.Prune(absl::Now() - kJournalRetention);
          });
          if (!ran.ok()) {
            spdlog::warn("msg=\"reconciliation skipped\" error=\"{}\"",
                         std::string(ran.status().message()));
          }
        });
    reconcile_job_->Start();
  }
  void Stop() override {
    if (sync_job_) sync_job_->Stop();
    if (expiry_job_) expiry_job_->Stop();
    if (reconcile_job_) reconcile_job_->Stop();
  }

 private:
  AccessConfig config_;
  std::unique_ptr<db::Pool> journal_pool_;  // one connection of its own (see the journal)
  PostgresProviderJournal journal_;
  PostgresPolicyRepository policy_repo_;
  PostgresProviderRepository provider_repo_;
  PostgresResourceRepository resource_repo_;
  PostgresAuditLogRepository audit_repo_;
  PostgresAppealRepository appeal_repo_;
  PostgresJobLock job_lock_;
  // The provider plugins' outbound HTTP (metabase, grafana, tableau).
  std::unique_ptr<HttpClient> provider_http_;
  ProviderRegistry registry_;
  PolicyService policies_;
  ProviderService providers_;
  ResourceService resources_;
  std::unique_ptr<IamClient> iam_;
  AppealService appeals_;
  ApiAuth api_auth_;
  PolicyGrpcService policy_grpc_;
  ProviderGrpcService provider_grpc_;
  ResourceGrpcService resource_grpc_;
  AuditLogGrpcService audit_grpc_;
  AppealGrpcService appeal_grpc_;
  ApprovalGrpcService approval_grpc_;
  GrantGrpcService grant_grpc_;
  std::unique_ptr<PeriodicJob> sync_job_;
  std::unique_ptr<PeriodicJob> expiry_job_;
  std::unique_ptr<PeriodicJob> reconcile_job_;
};

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
      return absl::InvalidArgumentError(absl::StrCat(
          "access.", key,
          ": unknown key (known: resource_sync_interval, grant_expiry_interval, "
          "reconcile_interval, max_grant_duration, admins, admin_groups)"));
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
