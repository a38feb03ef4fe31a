// Appeal creation (its validation steps are in appeal_prepare.cc),
// activation (granting) and the read paths.
// Cancel and revoke are in appeal_actions.cc.
#include "server/access/core/appeal/appeal_service.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/expr/expr.h"
#include "server/access/core/fault.h"
#include "server/access/core/approval_flow.h"
#include "server/access/core/json.h"
#include "server/access/core/policy_rules.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {

absl::StatusOr<std::vector<pb::Appeal>> AppealService::Create(
    const pb::CreateAppealRequest& request, const std::string& creator) {
  if (request.resources().empty()) return absl::InvalidArgumentError("resources: required");
  if (request.resources_size() > kMaxAppealResources) {
    return absl::InvalidArgumentError(absl::StrCat("resources: at most ", kMaxAppealResources,
                                                   " per appeal request, got ",
                                                   request.resources_size()));
  }
  std::string account_id = request.account_id().empty() ? creator : request.account_id();
  std::string account_type = request.account_type().empty() ? "user" : request.account_type();
  std::vector<Prepared> prepared;
  for (int i = 0; i < request.resources_size(); ++i) {
    auto p = Prepare(request.resources(i), account_id, account_type, request.description(),
                     creator, /*system=*/false);
    if (!p.ok()) {
      return absl::Status(p.status().code(),
                          absl::StrCat("resources[", i, "]: ", p.status().message()));
    }
    if (!request.dry_run() && p->appeal.status() == "approved") {
      p->hard = PrepareHardRequirements(p->appeal, p->policy);
    }
    prepared.push_back(std::move(*p));
  }
  if (request.dry_run()) {
    // Guardian's CreateWithDryRun: everything above ran (the provider's
    // account check and the flow included); nothing below does, so nothing
    // is stored, granted, emitted or audited. Like Guardian, the pending
    // appeal and active grant checks (made by the writes) are skipped.
    std::vector<pb::Appeal> out;
    for (Prepared& p : prepared) out.push_back(std::move(p.appeal));
    return out;
  }
  return CreatePrepared(std::move(prepared), creator);
}

namespace {

AuditEntry CreateAudit(const pb::Appeal& a, const std::string& creator) {
  return AuditEntry{"appeal.create", creator,
                    {{"resource_id", a.resource_id()}, {"account_id", a.account_id()},
                     {"role", a.role()}, {"status", a.status()}}};
}

absl::Status PendingExists(const pb::Appeal& a) {
  return absl::AlreadyExistsError(absl::StrCat("a pending appeal already exists for account ",
                                               a.account_id(), ", resource ", a.resource_id(),
                                               " and role ", a.role()));
}

}  // namespace


absl::StatusOr<bool> AppealService::InsertUnlessGranted(AccessTx* tx, pb::Appeal* a,
                                                        const std::string& creator) {
  AuditEntry audit = CreateAudit(*a, creator);
  // On the fast path the appeal's events go in with it (no extra round trip
  // on the hot path); inside `tx` the caller writes them once activation
  // has decided what happened.
  auto inserted = tx != nullptr ? tx->InsertAppealUnlessActiveGrant(a, std::move(audit))
                                : appeals_->InsertAppealUnlessActiveGrant(
                                      a, std::move(audit),
                                      applier_->event_policy().Filter(CreatedEvents(*a)));
  if (absl::IsAlreadyExists(inserted.status())) return PendingExists(*a);
  return inserted;
}

absl::Status AppealService::CheckExtensionEligibility(const pb::Appeal& a,
                                                     const std::optional<pb::Grant>& active,
                                                     const std::string& extension_window,
                                                     absl::Time now) {
  if (!active.has_value()) return absl::OkStatus();
  const pb::Grant& g = *active;
  bool in_window = false;
  if (!g.is_permanent() && g.has_expiration_date() && !extension_window.empty()) {
    auto window = ParseDurationField("allow_active_access_extension_in", extension_window);
    in_window = window.ok() && FromTimestamp(g.expiration_date()) - now <= *window;
  }
  if (in_window) return absl::OkStatus();
  return absl::AlreadyExistsError(absl::StrCat(
      "account ", a.account_id(), " already has an active grant ", g.id(), " for role ", a.role(),
      " on resource ", a.resource_id(),
      extension_window.empty() ? "" : " (outside the extension window)"));
}

absl::Status AppealService::InsertBesideGrant(AccessTx& tx, Prepared& p,
                                              const std::string& creator, absl::Time now) {
  pb::Appeal& a = p.appeal;
  auto existing = tx.FindActiveGrant(a.account_id(), a.resource_id(), a.role(), true);
  if (!existing.ok()) return existing.status();
  if (auto s = CheckExtensionEligibility(a, *existing, p.extension_window, now); !s.ok()) return s;
  auto ins = tx.InsertAppealAudited(&a, CreateAudit(a, creator));
  if (absl::IsAlreadyExists(ins)) return PendingExists(a);
  if (!ins.ok()) return ins;
  if (existing->has_value() && a.status() == "pending") {
    pb::Grant g = **existing;
    g.set_pending_appeal_id(a.id());
    return tx.UpdateGrant(g);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<pb::Appeal>> AppealService::CreatePrepared(
    std::vector<Prepared> prepared, const std::string& creator) {
  // The most common request, one appeal that stays pending, is a single
  // atomic write when no active grant exists: no explicit transaction.
  if (prepared.size() == 1 && prepared[0].appeal.status() == "pending") {
    auto inserted = InsertUnlessGranted(nullptr, &prepared[0].appeal, creator);
    if (!inserted.ok()) return inserted.status();
    if (*inserted) {
      applier_->EventsCommitted();
      return std::vector<pb::Appeal>{std::move(prepared[0].appeal)};
    }
    // An active grant exists: the transaction below decides on extension.
  }
  absl::Time now = applier_->Now();
  // Every access the request touches, in one global order: requests naming
  // the same resources in another order cannot deadlock.
  std::set<std::tuple<std::string, std::string, std::string>> keys;
  for (const Prepared& p : prepared) {
    keys.emplace(p.appeal.account_id(), p.appeal.resource_id(), p.appeal.role());
  }
  absl::Status st =
      applier_->RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    // Identical requests racing (a double click, a retry) queue here; the
    // later ones then find the first one's pending appeal or grant.
    for (const auto& [account, resource, role] : keys) {
      if (auto s = tx.LockAccess(account, resource, role); !s.ok()) return s;
    }
    std::vector<AccessEvent> events;
    for (Prepared& p : prepared) {
      // Common case first: no active grant, so the appeal, its approvals and
      // its audit row go in at once (one statement in the PostgreSQL store).
      auto inserted = InsertUnlessGranted(&tx, &p.appeal, creator);
      if (!inserted.ok()) return inserted.status();
      if (!*inserted) {
        if (auto b = InsertBesideGrant(tx, p, creator, now); !b.ok()) return b;
      }
      if (p.appeal.status() == "approved") {
        if (auto ac = applier_->Activate(tx, &p.appeal, p.config, ops); !ac.ok()) return ac;
        if (auto h = InsertHardRequirements(tx, p.appeal, &p.hard, ops); !h.ok()) return h;
      }
      for (AccessEvent& e : CreatedEvents(p.appeal)) events.push_back(std::move(e));
    }
    return applier_->EmitEvents(tx, std::move(events));  // one multi-row INSERT
  });
  if (!st.ok()) return st;  // RunAndSettle undid the provider calls: no access without a record
  applier_->EventsCommitted();
  std::vector<pb::Appeal> out;
  for (Prepared& p : prepared) {
    if (p.appeal.status() == "approved") CreateSoftRequirements(&p.appeal, p.policy, &p.hard);
    out.push_back(std::move(p.appeal));
  }
  return out;
}

absl::StatusOr<pb::Appeal> AppealService::Get(const std::string& id) {
  return applier_->GetAppeal(id);
}

namespace {

bool IsApproverOf(const pb::Appeal& a, const std::string& identity) {
  for (const auto& p : a.approvals()) {
    for (const auto& e : p.approvers()) {
      if (e == identity) return true;
    }
  }
  return false;
}


}  // namespace


absl::StatusOr<std::vector<pb::Appeal>> AppealService::List(const AppealFilter& filter,
                                                            int* total) {
  return appeals_->ListAppeals(filter, total);
}

absl::StatusOr<pb::Appeal> AppealService::GetFor(const std::string& id, const Actor& actor) {
  auto appeal = Get(id);
  if (!appeal.ok() || actor.admin) return appeal;
  if (appeal->created_by() == actor.identity || appeal->account_id() == actor.identity ||
      IsApproverOf(*appeal, actor.identity)) {
    return appeal;
  }
  return absl::PermissionDeniedError(absl::StrCat(
      actor.identity, " may not read appeal ", id,
      ": only admins, its creator, its account and its approvers may"));
}

}  // namespace sluice::access
