// Requirements (issue 17): the additional appeals an approved appeal
// triggers. AdditionalAppeal.policy overrides the policy; a "hard"
// requirement's appeals are created in the activating transaction and fail
// it, a "soft" one's (the default, Guardian's behaviour) are created after
// the commit and their failures are recorded on the appeal.
#include "absl/strings/str_cat.h"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/policy_rules.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

std::string Where(int requirement, int index) {
  return absl::StrCat("requirements[", requirement, "].appeals[", index, "]");
}

// The error of a hard requirement: the approval cannot proceed because of
// the policy's configuration or the additional appeal's state; outages keep
// their code.
absl::Status HardFailure(int requirement, int index, const absl::Status& st) {
  absl::StatusCode code = st.code();
  if (code == absl::StatusCode::kNotFound || code == absl::StatusCode::kInvalidArgument ||
      code == absl::StatusCode::kPermissionDenied || code == absl::StatusCode::kAlreadyExists) {
    code = absl::StatusCode::kFailedPrecondition;
  }
  return absl::Status(code, absl::StrCat(Where(requirement, index),
                                         " (on_failure \"hard\") failed: ", st.message()));
}

// Whether `a`'s account already has a pending appeal for its resource and
// role. Checked before the transaction: inside it, the insert's unique
// violation would abort the whole transaction.
absl::StatusOr<bool> PendingAppealExists(AppealRepository* appeals, const pb::Appeal& a) {
  AppealFilter f;
  f.account_ids = {a.account_id()};
  f.statuses = {"pending"};
  f.role = a.role();
  f.provider_types = {a.resource().provider_type()};
  f.provider_urns = {a.resource().provider_urn()};
  f.resource_types = {a.resource().type()};
  f.resource_urns = {a.resource().urn()};
  int total = 0;
  auto found = appeals->ListAppeals(f, &total);
  if (!found.ok()) return found.status();
  for (const auto& x : *found) {
    if (x.status() == "pending" && x.account_id() == a.account_id() &&
        x.resource_id() == a.resource_id() && x.role() == a.role()) {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<AppealService::Prepared> AppealService::PrepareAdditional(
    const pb::AdditionalAppeal& add, const pb::Appeal& appeal) {
  std::string resource_id = add.resource().id();
  if (resource_id.empty()) {
    ResourceFilter f;
    f.provider_type = add.resource().provider_type();
    f.provider_urn = add.resource().provider_urn();
    f.type = add.resource().type();
    f.urn = add.resource().urn();
    auto found = resources_->List(f, Page{1, 0}, nullptr);
    if (!found.ok()) return found.status();
    if (found->empty()) return absl::NotFoundError("requirement resource not found");
    resource_id = (*found)[0].id();
  }
  pb::AppealResourceRequest r;
  r.set_id(resource_id);
  r.set_role(add.role());
  *r.mutable_options() = add.options();
  // Created by whoever created the appeal that requires it, as Guardian's
  // additional appeals are (CreatedBy: a.CreatedBy): their /me lists and
  // grant owner are the requester's.
  return Prepare(r, appeal.account_id(), appeal.account_type(),
                 absl::StrCat("required by appeal ", appeal.id()), appeal.created_by(),
                 /*system=*/true,
                 add.has_policy() ? &add.policy() : nullptr);
}

std::vector<AppealService::RequiredAppeal> AppealService::PrepareHardRequirements(
    const pb::Appeal& appeal, const pb::Policy& policy) {
  std::vector<RequiredAppeal> out;
  for (int i = 0; i < policy.requirements_size(); ++i) {
    const pb::Requirement& req = policy.requirements(i);
    if (!IsHardRequirement(req) || !RequirementMatches(req, appeal)) continue;
    for (int j = 0; j < req.appeals_size(); ++j) {
      RequiredAppeal ra{i, j, absl::OkStatus(), nullptr};
      auto p = PrepareAdditional(req.appeals(j), appeal);
      absl::StatusOr<bool> pending = p.ok() ? PendingAppealExists(appeals_, p->appeal) : false;
      if (!p.ok()) {
        ra.error = p.status();
      } else if (!pending.ok()) {
        ra.error = pending.status();
      } else if (!*pending) {  // a pending appeal satisfies it: nothing to create
        ra.prepared = std::make_shared<Prepared>(std::move(*p));
      }
      out.push_back(std::move(ra));
    }
  }
  return out;
}

absl::Status AppealService::InsertHardRequirements(AccessTx& tx, const pb::Appeal& appeal,
                                                   std::vector<RequiredAppeal>* hard,
                                                   std::vector<PendingOp>* ops) {
  for (RequiredAppeal& ra : *hard) {
    if (!ra.error.ok()) return HardFailure(ra.requirement, ra.index, ra.error);
    if (ra.prepared == nullptr) continue;
    Prepared& p = *ra.prepared;
    pb::Appeal& a = p.appeal;
    a.set_description(absl::StrCat("required by appeal ", appeal.id()));
    if (a.status() == "rejected") {
      return HardFailure(ra.requirement, ra.index,
                         absl::FailedPreconditionError(absl::StrCat(
                             "policy ", p.policy.id(), " rejects the additional appeal")));
    }
    if (auto st = tx.LockAccess(a.account_id(), a.resource_id(), a.role()); !st.ok()) return st;
    auto inserted = tx.InsertAppealUnlessActiveGrant(
        &a, AuditEntry{"appeal.create", "system",
                       {{"resource_id", a.resource_id()}, {"account_id", a.account_id()},
                        {"role", a.role()}, {"status", a.status()}, {"required_by", appeal.id()}}});
    // An active grant for the same access satisfies it (Guardian skips
    // duplicates too). A pending appeal created since PrepareHardRequirements
    // looked is AlreadyExists here, and fails the transaction.
    if (!inserted.ok()) return HardFailure(ra.requirement, ra.index, inserted.status());
    if (!*inserted) {
      ra.prepared.reset();
      continue;
    }
    if (a.status() == "approved") {
      if (auto st = applier_->Activate(tx, &a, p.config, ops); !st.ok()) {
        return HardFailure(ra.requirement, ra.index, st);
      }
    }
  }
  return absl::OkStatus();
}

void AppealService::CreateSoftRequirements(pb::Appeal* appeal, const pb::Policy& policy,
                                           std::vector<RequiredAppeal>* hard) {
  int failures_before = appeal->requirement_failures_size();
  for (int i = 0; i < policy.requirements_size(); ++i) {
    const pb::Requirement& req = policy.requirements(i);
    if (IsHardRequirement(req) || !RequirementMatches(req, *appeal)) continue;
    for (int j = 0; j < req.appeals_size(); ++j) {
      const pb::AdditionalAppeal& add = req.appeals(j);
      absl::Status st = [&]() -> absl::Status {
        auto p = PrepareAdditional(add, *appeal);
        if (!p.ok()) return p.status();
        std::vector<Prepared> one;
        one.push_back(std::move(*p));
        return CreatePrepared(std::move(one), "system").status();
      }();
      // An existing pending appeal or grant already gives what is required.
      if (st.ok() || absl::IsAlreadyExists(st)) continue;
      spdlog::warn("msg=\"requirement appeal not created\" appeal={} requirement={} role={} "
                   "error=\"{}\"",
                   appeal->id(), Where(i, j), add.role(), st.ToString());
      pb::RequirementFailure* f = appeal->add_requirement_failures();
      f->set_requirement(i);
      f->set_appeal(j);
      f->set_role(add.role());
      f->set_error(st.ToString());
    }
  }
  if (appeal->requirement_failures_size() > failures_before) RecordRequirementFailures(*appeal);
  // The requirements of hard additional appeals activated with this one.
  for (RequiredAppeal& ra : *hard) {
    if (ra.prepared == nullptr || ra.prepared->appeal.status() != "approved") continue;
    std::vector<RequiredAppeal> none;
    CreateSoftRequirements(&ra.prepared->appeal, ra.prepared->policy, &none);
  }
}

void AppealService::RecordRequirementFailures(const pb::Appeal& appeal) {
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto row = tx.GetAppeal(appeal.id(), /*for_update=*/true);
    if (!row.ok()) return row.status();
    *row->mutable_requirement_failures() = appeal.requirement_failures();
    return tx.UpdateAppeal(*row);
  });
  if (!st.ok()) {
    spdlog::warn("msg=\"requirement failures not recorded\" appeal={} error=\"{}\"", appeal.id(),
                 st.ToString());
  }
}

}  // namespace sluice::access
