// The access API's domain services wired together (issue 28 item 7): one
// GrantApplier shared by AppealService (core/appeal), ApprovalService
// (core/approval), GrantService (core/grant) and ReconcileService
// (core/reconcile), as Guardian's server wires its core services. Used by
// the access module, the fuzz harness and the tests.
#ifndef SLUICE_SERVER_ACCESS_CORE_ACCESS_SERVICES_H_
#define SLUICE_SERVER_ACCESS_CORE_ACCESS_SERVICES_H_

#include <functional>
#include <utility>

#include "absl/time/clock.h"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/approval/approval_service.h"
#include "server/access/core/grant/grant_service.h"
#include "server/access/core/grant_applier.h"
#include "server/access/core/reconcile/reconcile_service.h"

namespace sluice::access {

class AccessServices {
 public:
  // Borrowed pointers must outlive this object. `iam` may be null (policies
  // with an iam config then fail with FailedPrecondition). `clock` is every
  // service's time; `limits` caps appeal durations and new grant
  // expirations.
  AccessServices(AppealRepository* appeals, ResourceRepository* resources, PolicyService* policies,
                 ProviderService* providers, const ProviderRegistry* registry, IamClient* iam,
                 std::function<absl::Time()> clock = &absl::Now, AppealLimits limits = {})
      : applier_(appeals, resources, registry, std::move(clock)),
        appeal_(&applier_, appeals, resources, policies, providers, registry, iam, limits),
        approval_(&applier_, &appeal_, appeals, policies, providers),
        grant_(&applier_, appeals, resources, policies, providers, registry, limits),
        reconcile_(&applier_, appeals, resources, providers, registry) {}
  AccessServices(const AccessServices&) = delete;
  AccessServices& operator=(const AccessServices&) = delete;

  GrantApplier& applier() { return applier_; }
  AppealService& appeals() { return appeal_; }
  ApprovalService& approvals() { return approval_; }
  GrantService& grants() { return grant_; }
  ReconcileService& reconcile() { return reconcile_; }

  // See GrantApplier::set_journal.
  void set_journal(ProviderJournal* journal) { applier_.set_journal(journal); }
  // See GrantApplier::set_events.
  void set_events(EventPolicy policy, std::function<void()> committed) {
    applier_.set_events(std::move(policy), std::move(committed));
  }
  // See GrantApplier::EventsCommitted.
  void EventsCommitted() { applier_.EventsCommitted(); }

 private:
  GrantApplier applier_;
  AppealService appeal_;
  ApprovalService approval_;
  GrantService grant_;
  ReconcileService reconcile_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_ACCESS_SERVICES_H_
