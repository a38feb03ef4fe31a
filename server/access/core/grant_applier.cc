// The shared grant/revoke machinery of the access services (see the header):
// the settle loop and journal of provider calls, granting and revoking in the
// provider with their records, and events.
#include "server/access/core/grant_applier.h"

#include "absl/strings/str_cat.h"
#include "server/access/core/fault.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

AccessRequest RequestFor(const pb::Grant& g, const pb::Resource& resource) {
  return AccessRequest{g.account_id(), g.account_type(), resource, g.role(),
                       std::vector<std::string>(g.permissions().begin(), g.permissions().end())};
}

}  // namespace

absl::StatusOr<std::string> GrantApplier::JournalBegin(ProviderOperation op) {
  if (journal_ == nullptr) return std::string();
  op.started_at = clock_();
  auto id = journal_->Begin(op);
  if (!id.ok()) {
    // No provider call without a record of it.
    return absl::Status(id.status().code(),
                        absl::StrCat("cannot journal the provider call: ", id.status().message()));
  }
  return id;
}

void GrantApplier::JournalFinish(const std::string& id, const char* outcome) {
  if (journal_ == nullptr || id.empty()) return;
  if (auto st = journal_->Finish(id, outcome); !st.ok()) {
    // The reconciler will find it in flight and settle it the same way.
    spdlog::warn("msg=\"provider operation not settled\" op={} outcome={} error=\"{}\"", id,
                 outcome, std::string(st.message()));
  }
}

absl::Status GrantApplier::RunAndSettle(
    const std::function<absl::Status(AccessTx&, std::vector<PendingOp>*)>& body) {
  std::vector<PendingOp> ops;
  bool body_ok = false;
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    ops.clear();  // a store may run the body again after a reconnect
    absl::Status s = body(tx, &ops);
    body_ok = s.ok();
    return s;
  });
  for (PendingOp& op : ops) {
    if (st.ok()) {
      JournalFinish(op.id, kOpCommitted);
    } else if (body_ok) {
      // The COMMIT failed: it may have committed. Only the reconciler, which
      // reads what the database holds, can tell.
      spdlog::warn("msg=\"commit failed after a provider call; left to reconciliation\" op={}",
                   op.id);
    } else if (!op.compensate) {
      JournalFinish(op.id, kOpCompensated);  // nothing to undo (an extension)
    } else if (absl::Status c = op.compensate(); c.ok()) {
      JournalFinish(op.id, kOpCompensated);
    } else {
      spdlog::error("msg=\"compensation failed; left to reconciliation\" op={} error=\"{}\"", op.id,
                    std::string(c.message()));
    }
  }
  return st;
}

absl::Status GrantApplier::AddOtherGrants(AccessTx& tx, const ProviderClient& client,
                                          const pb::ProviderConfig& config,
                                          const std::string& exclude_grant_id,
                                          AccessRequest* req) {
  if (!client.UsesOtherGrants()) return absl::OkStatus();
  GrantSelector sel;
  sel.account_ids = {req->account_id};
  sel.provider_types = {config.type()};
  sel.provider_urns = {config.urn()};
  auto grants = tx.FindActiveGrants(sel, 10000);
  if (!grants.ok()) return grants.status();
  for (const pb::Grant& g : *grants) {
    if (g.id() == exclude_grant_id || g.account_type() != req->account_type) continue;
    req->other_grants.push_back({g.resource().type(), g.resource().urn(),
                                 {g.permissions().begin(), g.permissions().end()},
                                 g.provider_state()});
  }
  return absl::OkStatus();
}

absl::Status GrantApplier::Activate(AccessTx& tx, pb::Appeal* appeal,
                                    const pb::ProviderConfig& config,
                                    std::vector<PendingOp>* ops) {
  auto client = registry_->Find(config.type());
  if (!client.ok()) return client.status();
  absl::Time now = clock_();
  auto existing = tx.FindActiveGrant(appeal->account_id(), appeal->resource_id(), appeal->role(),
                                     true);
  if (!existing.ok()) return existing.status();
  AccessRequest req{appeal->account_id(), appeal->account_type(), appeal->resource(),
                    appeal->role(),
                    std::vector<std::string>(appeal->permissions().begin(),
                                             appeal->permissions().end())};
  if (auto st = AddOtherGrants(tx, **client, config, "", &req); !st.ok()) return st;
  auto op_id = JournalBegin({"", "grant", req.account_id, req.account_type, appeal->resource_id(),
                             req.role, req.permissions, config.type(), config.urn(),
                             appeal->id(), "", absl::Time()});
  if (!op_id.ok()) return op_id.status();
  auto provider_state = (*client)->GrantAccessWithState(config, req);
  if (!provider_state.ok()) {
    const absl::Status& st = provider_state.status();
    JournalFinish(*op_id, kOpFailed);
    return absl::Status(st.code(), absl::StrCat("granting access in provider ", config.urn(),
                                                " failed: ", st.message()));
  }
  req.provider_state = *provider_state;  // what the compensating revoke needs
  FaultPoint("crash_after_provider_grant");
  ProviderClient* plugin = *client;
  // Compensation if the records below do not commit. An extension keeps the
  // previous access, so nothing is revoked for it.
  PendingOp op{*op_id, nullptr};
  if (!existing->has_value()) {
    op.compensate = [plugin, config, req] { return plugin->RevokeAccess(config, req); };
  }
  ops->push_back(std::move(op));
  if (existing->has_value()) {
    pb::Grant old = **existing;
    old.set_status("inactive");
    old.set_revoked_by("system");
    *old.mutable_revoked_at() = ToTimestamp(now);
    old.set_revoke_reason(absl::StrCat("extended by appeal ", appeal->id()));
    old.clear_pending_appeal_id();
    if (auto st = tx.UpdateGrant(old); !st.ok()) return st;
    auto old_appeal = tx.GetAppeal(old.appeal_id(), true);
    // The replaced appeal stays "approved" (as in Guardian); its grant,
    // inactive now, says the access moved to the new appeal.
    if (old_appeal.ok() && old_appeal->status() == "approved") {
      old_appeal->set_revoked_by("system");
      *old_appeal->mutable_revoked_at() = ToTimestamp(now);
      old_appeal->set_revoke_reason(old.revoke_reason());
      *old_appeal->mutable_updated_at() = ToTimestamp(now);
      if (auto st = tx.UpdateAppeal(*old_appeal); !st.ok()) return st;
    }
  }
  pb::Grant grant;
  grant.set_status("active");
  grant.set_status_in_provider("active");
  grant.set_account_id(appeal->account_id());
  grant.set_account_type(appeal->account_type());
  grant.set_resource_id(appeal->resource_id());
  grant.set_role(appeal->role());
  *grant.mutable_permissions() = appeal->permissions();
  grant.set_appeal_id(appeal->id());
  grant.set_source("appeal");
  grant.set_owner(appeal->created_by());
  grant.set_provider_state(*provider_state);
  if (appeal->options().duration().empty()) {
    grant.set_is_permanent(true);
  } else {
    auto d = ParseDurationField("options.duration", appeal->options().duration());
    if (!d.ok()) return d.status();
    *grant.mutable_expiration_date() = ToTimestamp(now + *d);
    // Guardian's domain.ExpirationDateReasonFromAppeal, word for word.
    grant.set_expiration_date_reason("Expiration date is set based on the appeal options");
    // Guardian's Appeal.Approve records the expiration in the appeal's
    // options too (approval time + duration).
    *appeal->mutable_options()->mutable_expiration_date() = grant.expiration_date();
    if (auto st = tx.UpdateAppeal(*appeal); !st.ok()) return st;
  }
  *grant.mutable_created_at() = ToTimestamp(now);
  *grant.mutable_updated_at() = ToTimestamp(now);
  if (auto st = tx.InsertGrant(&grant); !st.ok()) return st;
  if (auto st = tx.Audit({"grant.create", "system",
                          {{"id", grant.id()}, {"appeal_id", appeal->id()},
                           {"account_id", grant.account_id()}, {"role", grant.role()}}});
      !st.ok()) {
    return st;
  }
  *appeal->mutable_grant() = grant;
  // The answer's grant names its resource, as Guardian's does.
  *appeal->mutable_grant()->mutable_resource() = appeal->resource();
  return absl::OkStatus();
}

absl::Status GrantApplier::EmitEvents(AccessTx& tx, std::vector<AccessEvent> events) {
  events = event_policy_.Filter(std::move(events));
  if (events.empty()) return absl::OkStatus();
  return tx.InsertEvents(events);
}

absl::Status GrantApplier::Deactivate(AccessTx& tx, pb::Grant* grant,
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

absl::Status GrantApplier::RevokeOne(const pb::Grant& candidate,
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

absl::StatusOr<pb::Appeal> GrantApplier::Expand(pb::Appeal appeal) {
  if (!appeal.has_resource()) {
    auto r = resources_->Get(appeal.resource_id());
    if (r.ok()) *appeal.mutable_resource() = *r;
  }
  return appeal;
}

absl::StatusOr<pb::Appeal> GrantApplier::GetAppeal(const std::string& id) {
  if (!IsUuid(id)) return absl::InvalidArgumentError(absl::StrCat("id: \"", id, "\" is not a UUID"));
  absl::StatusOr<pb::Appeal> out = absl::NotFoundError("");
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    out = tx.GetAppeal(id, false);
    return out.status();
  });
  if (!st.ok()) return st;
  return Expand(std::move(*out));
}

}  // namespace sluice::access
