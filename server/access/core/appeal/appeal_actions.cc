// Approval actions, approver edits, cancel, revoke (single and bulk) and the
// expiry job. Each runs in one transaction with the appeal (or grant) rows
// locked, so concurrent actions serialize: one transition, at most one
// GrantAccess, the losers see the new state (FailedPrecondition).
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/fault.h"
#include "server/access/core/approval/flow.h"
#include "server/access/core/policy_rules.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

absl::Status CheckUuid(const std::string& id) {
  if (!IsUuid(id)) return absl::InvalidArgumentError(absl::StrCat("id: \"", id, "\" is not a UUID"));
  return absl::OkStatus();
}

constexpr char kNoLongerActive[] = "no longer active (revoked or replaced meanwhile)";

pb::Approval* FindApproval(pb::Appeal* appeal, const std::string& key) {
  for (auto& a : *appeal->mutable_approvals()) {
    if (a.name() == key || a.id() == key) return &a;
  }
  return nullptr;
}

// The default blocks self-approval; see AllowsSelfApproval.
bool StepAllowsSelfApproval(const pb::Policy& policy, const std::string& step_name) {
  const pb::Step* step = FindStep(policy, step_name);
  return step != nullptr && AllowsSelfApproval(*step);
}

AccessRequest RequestFor(const pb::Grant& g, const pb::Resource& resource) {
  return AccessRequest{g.account_id(), g.account_type(), resource, g.role(),
                       std::vector<std::string>(g.permissions().begin(), g.permissions().end())};
}

}  // namespace

absl::StatusOr<pb::Appeal> AppealService::Act(const std::string& id,
                                              const std::string& approval_name,
                                              const std::string& action, const std::string& actor,
                                              const std::string& reason) {
  if (auto st = CheckUuid(id); !st.ok()) return st;
  if (action != "approve" && action != "reject") {
    return absl::InvalidArgumentError(
        absl::StrCat("action: \"", action, "\" is not one of \"approve\", \"reject\""));
  }
  // Read what the transaction needs first, so that it never waits for a
  // second pooled connection while holding the row lock.
  auto current = Get(id);
  if (!current.ok()) return current.status();
  auto policy = policies_->Get(current->policy_id(), current->policy_version());
  if (!policy.ok()) return policy.status();
  auto config = providers_->GetPlainConfig(current->resource().provider_type(),
                                           current->resource().provider_urn());
  // Prepared here, outside the transaction, in case this action activates it.
  std::vector<RequiredAppeal> hard;
  if (action == "approve" && current->status() == "pending") {
    hard = PrepareHardRequirements(*current, *policy);
  }
  pb::Appeal result;
  absl::Status st = RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    // The access key first, then the row: the order creation uses too, so
    // the two never wait on each other in a cycle.
    if (auto s = tx.LockAccess(current->account_id(), current->resource_id(), current->role());
        !s.ok()) {
      return s;
    }
    auto appeal = tx.GetAppeal(id, /*for_update=*/true);
    if (!appeal.ok()) return appeal.status();
    *appeal->mutable_resource() = current->resource();
    // Only when present: an empty google.protobuf.Value (no kind) does not
    // serialize to JSON (the gateway answers "nil Value").
    if (current->has_creator()) *appeal->mutable_creator() = current->creator();
    pb::Approval* approval = FindApproval(&*appeal, approval_name);
    if (approval == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("appeal ", id, " has no approval \"", approval_name, "\""));
    }
    const auto& approvers = approval->approvers();
    if (std::find(approvers.begin(), approvers.end(), actor) == approvers.end()) {
      return absl::PermissionDeniedError(
          absl::StrCat(actor, " is not an approver of step \"", approval->name(), "\""));
    }
    // Nobody approves their own access unless the policy says so (finding
    // C2: an approver list edited to include the requester).
    // The account compares ignoring case: Google plugins store it lower-cased
    // (NormalizeAccountId, review F-H2) while the actor keeps its IdP casing.
    if ((absl::EqualsIgnoreCase(actor, appeal->account_id()) || actor == appeal->created_by()) &&
        !StepAllowsSelfApproval(*policy, approval->name())) {
      return absl::PermissionDeniedError(absl::StrCat(
          actor, " requested or created appeal ", id, " and may not act on its step \"",
          approval->name(),
          "\" (the step does not set allow_self_approval, or sets dont_allow_self_approval)"));
    }
    if (appeal->status() != "pending") {
      return absl::FailedPreconditionError(
          absl::StrCat("appeal ", id, " is ", appeal->status(), ", not pending"));
    }
    if (approval->status() != "pending") {
      return absl::FailedPreconditionError(absl::StrCat(
          "approval \"", approval->name(), "\" is ", approval->status(), ", not pending"));
    }
    absl::Time now = clock_();
    approval->set_actor(actor);
    approval->set_reason(reason);
    *approval->mutable_updated_at() = ToTimestamp(now);
    if (action == "approve") {
      approval->set_status("approved");
      if (auto s = AdvanceFlow(&*appeal, *policy); !s.ok()) return s;
    } else {
      approval->set_status("rejected");
      appeal->set_status("rejected");
      SkipUndecided(&*appeal);
    }
    *appeal->mutable_updated_at() = ToTimestamp(now);
    if (auto s = tx.UpdateAppeal(*appeal); !s.ok()) return s;
    if (auto s = tx.Audit({absl::StrCat("appeal.", action), actor,
                           {{"id", id}, {"approval", approval->name()}, {"reason", reason},
                            {"status", appeal->status()}}});
        !s.ok()) {
      return s;
    }
    if (appeal->status() == "approved") {
      if (!config.ok()) return config.status();
      if (auto s = Activate(tx, &*appeal, *config, *policy, ops); !s.ok()) return s;
      if (auto s = InsertHardRequirements(tx, *appeal, &hard, ops); !s.ok()) return s;
    }
    if (auto s = EmitEvents(tx, ActionEvents(*appeal, approval->name(), actor, reason)); !s.ok()) {
      return s;
    }
    result = std::move(*appeal);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  EventsCommitted();
  if (result.status() == "approved") CreateSoftRequirements(&result, *policy, &hard);
  return result;
}

absl::StatusOr<pb::Appeal> AppealService::Cancel(const std::string& id, const std::string& actor) {
  if (auto st = CheckUuid(id); !st.ok()) return st;
  pb::Appeal result;
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto appeal = tx.GetAppeal(id, true);
    if (!appeal.ok()) return appeal.status();
    if (appeal->created_by() != actor) {
      return absl::PermissionDeniedError(
          absl::StrCat("only the creator (", appeal->created_by(), ") can cancel appeal ", id));
    }
    if (appeal->status() != "pending") {
      return absl::FailedPreconditionError(
          absl::StrCat("appeal ", id, " is ", appeal->status(), ", not pending"));
    }
    appeal->set_status("canceled");  // Guardian's spelling
    SkipUndecided(&*appeal);
    *appeal->mutable_updated_at() = ToTimestamp(clock_());
    if (auto s = tx.UpdateAppeal(*appeal); !s.ok()) return s;
    if (auto s = tx.Audit({"appeal.cancel", actor, {{"id", id}}}); !s.ok()) return s;
    result = std::move(*appeal);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return Expand(std::move(result));
}

absl::Status AppealService::Deactivate(AccessTx& tx, pb::Grant* grant,
                                       const pb::ProviderConfig& config, const std::string& actor,
                                       const std::string& reason,
                                       const std::string& audit_action,
                                       std::vector<PendingOp>* ops, RevokeOptions opts) {
  if (!opts.skip_revoke_in_provider) {
    auto client = registry_->Find(config.type());
    if (!client.ok()) return client.status();
    AccessRequest req = RequestFor(*grant, grant->resource());
    req.provider_state = grant->provider_state();
    if (auto st = AddOtherGrants(tx, **client, config, grant->id(), &req); !st.ok()) return st;
    auto op_id = JournalBegin({"", "revoke", req.account_id, req.account_type,
                               grant->resource_id(), req.role, req.permissions, config.type(),
                               config.urn(), grant->appeal_id(), grant->id(), absl::Time()});
    if (!op_id.ok()) return op_id.status();
    if (auto st = (*client)->RevokeAccess(config, req); !st.ok()) {
      JournalFinish(*op_id, kOpFailed);
      return absl::Status(st.code(), absl::StrCat("revoking access in provider ", config.urn(),
                                                  " failed: ", st.message()));
    }
    FaultPoint("crash_after_provider_revoke");
    // If the records below do not commit, the access comes back: the grant
    // stays active here, so it must stay active in the provider too.
    ProviderClient* plugin = *client;
    ops->push_back({*op_id, [plugin, config, req] { return plugin->GrantAccess(config, req); }});
    grant->set_status_in_provider("inactive");
  }
  auto now = ToTimestamp(clock_());
  grant->set_status("inactive");
  grant->set_revoked_by(actor);
  *grant->mutable_revoked_at() = now;
  grant->set_revoke_reason(reason);
  *grant->mutable_updated_at() = now;
  if (auto st = tx.UpdateGrant(*grant); !st.ok()) return st;
  // Every revoke (single, bulk, expiry) tells the holder, as Guardian's
  // grant Revoke does (also for its expiry job).
  if (!opts.skip_notification) {
    if (auto st = EmitEvents(tx, {RevokedEvent(*grant)}); !st.ok()) return st;
  }
  // An imported grant has no appeal (and an empty id is no UUID to look up).
  absl::StatusOr<pb::Appeal> appeal = absl::NotFoundError("no appeal");
  if (!grant->appeal_id().empty()) appeal = tx.GetAppeal(grant->appeal_id(), true);
  // The appeal stays "approved", as in Guardian (RevokeGrant leaves it so);
  // the grant now inactive is what says the access is gone.
  if (appeal.ok() && appeal->status() == "approved") {
    appeal->set_revoked_by(actor);
    *appeal->mutable_revoked_at() = now;
    appeal->set_revoke_reason(reason);
    *appeal->mutable_updated_at() = now;
    if (auto st = tx.UpdateAppeal(*appeal); !st.ok()) return st;
  }
  AuditEntry audit{audit_action, actor,
                   {{"grant_id", grant->id()}, {"appeal_id", grant->appeal_id()},
                    {"reason", reason}}};
  if (opts.skip_revoke_in_provider) audit.data["skip_revoke_in_provider"] = true;
  if (opts.skip_notification) audit.data["skip_notification"] = true;
  return tx.Audit(std::move(audit));
}

absl::StatusOr<pb::Appeal> AppealService::Revoke(const std::string& id, const Actor& who,
                                                 const std::string& reason) {
  if (auto st = CheckUuid(id); !st.ok()) return st;
  auto current = Get(id);
  if (!current.ok()) return current.status();
  // An email account compares ignoring case (Google plugins store it
  // lower-cased, review F-H2); other account ids exactly.
  bool own = current->account_id() == who.identity ||
             (absl::StrContains(current->account_id(), '@') &&
              absl::EqualsIgnoreCase(current->account_id(), who.identity));
  if (!who.admin && !own) {
    return absl::PermissionDeniedError(absl::StrCat(
        who.identity, " may not revoke appeal ", id,
        ": only admins and the grant's own account (", current->account_id(), ") may"));
  }
  const std::string& actor = who.identity;
  auto config = providers_->GetPlainConfig(current->resource().provider_type(),
                                           current->resource().provider_urn());
  absl::Status st = RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    if (auto l = tx.LockAccess(current->account_id(), current->resource_id(), current->role());
        !l.ok()) {
      return l;
    }
    auto appeal = tx.GetAppeal(id, true);
    if (!appeal.ok()) return appeal.status();
    if (appeal->status() != "approved") {
      return absl::FailedPreconditionError(
          absl::StrCat("appeal ", id, " is ", appeal->status(), ", not approved"));
    }
    // An approved appeal holds access only while its grant is active (a
    // revoked or replaced one keeps "approved", as in Guardian).
    auto grant = tx.FindActiveGrant(appeal->account_id(), appeal->resource_id(), appeal->role(), true);
    if (!grant.ok()) return grant.status();
    if (!grant->has_value() || (*grant)->appeal_id() != id) {
      return absl::FailedPreconditionError(absl::StrCat(
          "appeal ", id, " has no active grant (already revoked, expired or replaced)"));
    }
    if (!config.ok()) return config.status();
    pb::Grant g = **grant;
    *g.mutable_resource() = current->resource();
    return Deactivate(tx, &g, *config, actor, reason, "appeal.revoke", ops);
  });
  if (!st.ok()) return st;
  EventsCommitted();
  return Get(id);
}

absl::Status AppealService::RevokeOne(const pb::Grant& candidate,
                                      const std::map<std::string, pb::ProviderConfig>& configs,
                                      const std::string& actor, const std::string& reason,
                                      const std::string& audit_action, RevokeOptions opts) {
  absl::Status st = RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    if (auto l = tx.LockAccess(candidate.account_id(), candidate.resource_id(), candidate.role());
        !l.ok()) {
      return l;
    }
    auto current = tx.FindActiveGrant(candidate.account_id(), candidate.resource_id(),
                                      candidate.role(), /*for_update=*/true);
    if (!current.ok()) return current.status();
    if (!current->has_value() || (*current)->id() != candidate.id()) {
      return absl::FailedPreconditionError(kNoLongerActive);
    }
    auto it = configs.find(absl::StrCat(candidate.resource().provider_type(), "/",
                                        candidate.resource().provider_urn()));
    if (it == configs.end()) return absl::FailedPreconditionError("its provider is not registered");
    pb::Grant g = **current;
    *g.mutable_resource() = candidate.resource();
    return Deactivate(tx, &g, it->second, actor, reason, audit_action, ops, opts);
  });
  if (st.ok()) EventsCommitted();
  return st;
}

absl::StatusOr<RevokeManyResult> AppealService::RevokeMany(const GrantSelector& s,
                                                           const std::string& actor,
                                                           const std::string& reason) {
  if (s.account_ids.empty()) {
    return absl::InvalidArgumentError(
        "account_ids: required for bulk revoke (as in Guardian); provider_types, "
        "provider_urns, resource_types and resource_urns narrow it");
  }
  if (s.account_ids.size() > 1000) return absl::InvalidArgumentError("account_ids: at most 1000");
  return RevokeSelected(s, actor, reason);
}

absl::StatusOr<RevokeManyResult> AppealService::RevokeSelected(const GrantSelector& s,
                                                               const std::string& actor,
                                                               const std::string& reason) {
  auto configs = providers_->PlainConfigs();
  if (!configs.ok()) return configs.status();
  std::vector<pb::Grant> candidates;
  absl::Status found = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto grants = tx.FindActiveGrants(s, kMaxBulkRevoke);
    if (!grants.ok()) return grants.status();
    candidates = std::move(*grants);
    return absl::OkStatus();
  });
  if (!found.ok()) return found;
  RevokeManyResult result;
  for (const pb::Grant& candidate : candidates) {
    // One transaction per grant: the provider call and the grant's row
    // commit or fail together, and never hold up the other grants.
    absl::Status st = RevokeOne(candidate, *configs, actor, reason, "appeal.revoke");
    if (!st.ok()) {
      pb::RevokeFailure* f = &result.failed.emplace_back();
      f->set_grant_id(candidate.id());
      f->set_appeal_id(candidate.appeal_id());
      f->set_account_id(candidate.account_id());
      f->set_error(std::string(st.message()));
      spdlog::warn("msg=\"bulk revoke: grant not revoked\" grant={} error=\"{}\"", candidate.id(),
                   std::string(st.message()));
      continue;
    }
    if (auto g = appeals_->GetGrant(candidate.id()); g.ok()) result.grants.push_back(std::move(*g));
    if (candidate.appeal_id().empty()) continue;
    auto a = Get(candidate.appeal_id());
    if (a.ok()) result.revoked.push_back(std::move(*a));
  }
  return result;
}

absl::StatusOr<pb::Appeal> AppealService::EditApprovers(const std::string& appeal_id,
                                                        const std::string& approval,
                                                        const std::string& email,
                                                        const std::string& actor, bool add) {
  if (auto st = CheckUuid(appeal_id); !st.ok()) return st;
  if (!IsEmailAddress(email)) {
    return absl::InvalidArgumentError(absl::StrCat("email: \"", email, "\" is not an email"));
  }
  pb::Appeal result;
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto appeal = tx.GetAppeal(appeal_id, true);
    if (!appeal.ok()) return appeal.status();
    pb::Approval* a = FindApproval(&*appeal, approval);
    if (a == nullptr) {
      return absl::NotFoundError(absl::StrCat("appeal ", appeal_id, " has no approval \"", approval, "\""));
    }
    if (appeal->status() != "pending" || a->status() != "pending") {
      return absl::FailedPreconditionError(absl::StrCat(
          "approvers can change only while appeal and step are pending (appeal ", appeal->status(),
          ", approval ", a->status(), ")"));
    }
    auto* list = a->mutable_approvers();
    auto it = std::find(list->begin(), list->end(), email);
    if (add) {
      if (it != list->end()) return absl::AlreadyExistsError(absl::StrCat(email, " is already an approver"));
      a->add_approvers(email);
    } else {
      if (it == list->end()) return absl::NotFoundError(absl::StrCat(email, " is not an approver"));
      if (list->size() == 1) {
        return absl::FailedPreconditionError("cannot remove the last approver of a step");
      }
      list->erase(it);
    }
    *appeal->mutable_updated_at() = ToTimestamp(clock_());
    if (auto s = tx.UpdateAppeal(*appeal); !s.ok()) return s;
    if (auto s = tx.Audit({add ? "appeal.add_approver" : "appeal.delete_approver", actor,
                           {{"id", appeal_id}, {"approval", a->name()}, {"email", email}}});
        !s.ok()) {
      return s;
    }
    result = std::move(*appeal);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return Expand(std::move(result));
}

absl::StatusOr<pb::Appeal> AppealService::AddApprover(const std::string& appeal_id,
                                                      const std::string& approval,
                                                      const std::string& email,
                                                      const std::string& actor) {
  return EditApprovers(appeal_id, approval, email, actor, true);
}

absl::StatusOr<pb::Appeal> AppealService::DeleteApprover(const std::string& appeal_id,
                                                         const std::string& approval,
                                                         const std::string& email,
                                                         const std::string& actor) {
  return EditApprovers(appeal_id, approval, email, actor, false);
}

absl::StatusOr<int> AppealService::ExpireGrants() {
  auto configs = providers_->PlainConfigs();
  if (!configs.ok()) return configs.status();
  absl::Time now = clock_();
  std::vector<pb::Grant> candidates;
  absl::Status found = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    auto grants = tx.LockExpiredGrants(now, 500);
    if (!grants.ok()) return grants.status();
    candidates = std::move(*grants);
    return absl::OkStatus();
  });
  if (!found.ok()) return found;
  int expired = 0;
  for (const pb::Grant& candidate : candidates) {
    // One transaction per grant, as in bulk revoke: a failure leaves that
    // grant active in both places, never the others half done.
    absl::Status st = RevokeOne(candidate, *configs, "system", "expired", "grant.expire");
    if (!st.ok()) {
      if (absl::IsFailedPrecondition(st) && st.message() == kNoLongerActive) {
        continue;
      }
      // Left active: the next run retries it.
      spdlog::warn("msg=\"grant expiry failed; will retry\" grant={} error=\"{}\"", candidate.id(),
                   std::string(st.message()));
      continue;
    }
    ++expired;
  }
  return expired;
}

}  // namespace sluice::access
