// Appeal creation, activation (granting), requirements and the read paths.
// Approval actions, revocation and expiry are in appeal_actions.cc.
#include "server/access/core/appeal_service.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/expr/expr.h"
#include "server/access/core/fault.h"
#include "server/access/core/flow.h"
#include "server/access/core/json.h"
#include "server/access/core/policy_rules.h"
#include "server/access/core/validation.h"
#include "spdlog/spdlog.h"

namespace sluice::access {

absl::StatusOr<std::vector<std::pair<std::string, bool>>> ParseOrderBy(
    const google::protobuf::RepeatedPtrField<std::string>& order_by,
    const std::vector<std::string>& allowed) {
  std::vector<std::pair<std::string, bool>> out;
  for (const std::string& entry : order_by) {
    for (absl::string_view part : absl::StrSplit(entry, ',', absl::SkipEmpty())) {
      std::vector<std::string> fd = absl::StrSplit(part, ':');
      std::string field = fd[0];
      bool desc = false;
      if (fd.size() > 2 || (fd.size() == 2 && fd[1] != "asc" && fd[1] != "desc")) {
        return absl::InvalidArgumentError(
            absl::StrCat("order_by: \"", part, "\" must be <field>:<asc|desc>"));
      }
      if (fd.size() == 2) desc = fd[1] == "desc";
      if (std::find(allowed.begin(), allowed.end(), field) == allowed.end()) {
        return absl::InvalidArgumentError(absl::StrCat("order_by: unknown field \"", field,
                                                       "\" (allowed: ", absl::StrJoin(allowed, ", "),
                                                       ")"));
      }
      out.push_back({field, desc});
    }
  }
  return out;
}

absl::StatusOr<AppealService::Prepared> AppealService::Prepare(
    const pb::AppealResourceRequest& r, const std::string& account_id,
    const std::string& account_type, const std::string& description, const std::string& creator,
    bool system, const pb::PolicyRef* policy_override) {
  if (r.id().empty()) return absl::InvalidArgumentError("resources[].id: required");
  auto resource = resources_->Get(r.id());
  if (!resource.ok()) return resource.status();
  if (resource->is_deleted()) {
    return absl::FailedPreconditionError(absl::StrCat("resource ", r.id(), " is deleted"));
  }
  auto config = providers_->GetPlainConfig(resource->provider_type(), resource->provider_urn());
  if (absl::IsNotFound(config.status())) {
    return absl::FailedPreconditionError(absl::StrCat("provider ", resource->provider_type(), "/",
                                                      resource->provider_urn(),
                                                      " of resource ", r.id(), " is not registered"));
  }
  if (!config.ok()) return config.status();
  const pb::ResourceConfig* rc = nullptr;
  for (const auto& c : config->resources()) {
    if (c.type() == resource->type()) rc = &c;
  }
  if (rc == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("provider ", config->urn(),
                                                      " has no config for resource type \"",
                                                      resource->type(), "\""));
  }
  const pb::Role* role = nullptr;
  for (const auto& ro : rc->roles()) {
    if (ro.id() == r.role()) role = &ro;
  }
  if (role == nullptr) {
    std::vector<std::string> ids;
    for (const auto& ro : rc->roles()) ids.push_back(ro.id());
    return absl::InvalidArgumentError(absl::StrCat("role: \"", r.role(), "\" is not a role of \"",
                                                   resource->type(), "\" (roles: ",
                                                   absl::StrJoin(ids, ", "), ")"));
  }
  const auto& allowed = config->allowed_account_types();
  if (std::find(allowed.begin(), allowed.end(), account_type) == allowed.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "account_type: \"", account_type, "\" is not allowed by provider ", config->urn(),
        " (allowed: ", absl::StrJoin(allowed, ", "), ")"));
  }
  const pb::PolicyRef& ref = policy_override != nullptr ? *policy_override : rc->policy();
  auto policy = policies_->GetDecrypted(ref.id(), ref.version());
  if (absl::IsNotFound(policy.status())) {
    return absl::FailedPreconditionError(policy.status().message());
  }
  if (!policy.ok()) return policy.status();
  if (!system && account_id != creator && !policy->appeal().allow_on_behalf()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "policy ", policy->id(), " does not allow appeals on behalf of another account"));
  }
  // After the on-behalf check, so that it cannot probe the provider's accounts.
  auto client = registry_->Find(config->type());
  if (!client.ok()) return client.status();
  if (auto st = (*client)->ValidateAccount(*config, account_type, account_id); !st.ok()) return st;
  bool permanent_allowed = policy->appeal().allow_permanent_access() ||
                           config->appeal().allow_permanent_access();
  const std::string& duration = r.options().duration();
  if (duration.empty()) {
    if (!permanent_allowed) {
      return absl::InvalidArgumentError(
          "options.duration: required (permanent access is not allowed)");
    }
  } else {
    auto d = ParseDurationField("options.duration", duration);
    if (!d.ok()) return d.status();
    const auto& opts = policy->appeal().duration_options();
    if (opts.empty() && *d > limits_.max_grant_duration) {
      // Finding L8: "876000h" was effectively permanent access.
      return absl::InvalidArgumentError(absl::StrCat(
          "options.duration: \"", duration, "\" is longer than the maximum grant duration ",
          absl::FormatDuration(limits_.max_grant_duration),
          " (access.max_grant_duration; a policy may list longer duration_options)"));
    }
    if (!opts.empty() && std::none_of(opts.begin(), opts.end(), [&](const pb::DurationOption& o) {
          return o.value() == duration;
        })) {
      std::vector<std::string> values;
      for (const auto& o : opts) values.push_back(o.value());
      return absl::InvalidArgumentError(absl::StrCat("options.duration: \"", duration,
                                                     "\" is not one of the policy's options (",
                                                     absl::StrJoin(values, ", "), ")"));
    }
  }
  if (!system) {
    if (auto st = CheckQuestionAnswers(*policy, r.details()); !st.ok()) return st;
  }
  Prepared p;
  pb::Appeal& a = p.appeal;
  a.set_resource_id(resource->id());
  *a.mutable_resource() = *resource;
  a.set_policy_id(policy->id());
  a.set_policy_version(policy->version());
  a.set_status("pending");
  a.set_account_id(account_id);
  a.set_account_type(account_type);
  a.set_role(role->id());
  for (const auto& perm : role->permissions()) a.add_permissions(PermissionString(perm));
  *a.mutable_options() = r.options();
  *a.mutable_details() = r.details();
  a.set_description(description);
  a.set_created_by(creator);
  if (policy->has_iam() && !system) {
    if (iam_ == nullptr) return absl::FailedPreconditionError("IAM client not configured");
    auto profile = iam_->GetUser(policy->iam(), creator);
    if (!profile.ok()) return profile.status();
    *a.mutable_creator() = *profile;
  }
  auto now = ToTimestamp(clock_());
  *a.mutable_created_at() = now;
  *a.mutable_updated_at() = now;
  if (auto st = InitApprovals(&a, *policy); !st.ok()) return st;
  if (auto st = AdvanceFlow(&a, *policy); !st.ok()) return st;
  if (auto st = CheckApproversLeft(a, *policy); !st.ok()) return st;
  p.policy = std::move(*policy);
  p.config = std::move(*config);
  p.extension_window = p.policy.appeal().allow_active_access_extension_in();
  if (p.extension_window.empty()) {
    p.extension_window = p.config.appeal().allow_active_access_extension_in();
  }
  return p;
}

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
    if (p->appeal.status() == "active") p->hard = PrepareHardRequirements(p->appeal, p->policy);
    prepared.push_back(std::move(*p));
  }
  return CreatePrepared(std::move(prepared), creator);
}

absl::StatusOr<std::vector<pb::Appeal>> AppealService::CreatePrepared(
    std::vector<Prepared> prepared, const std::string& creator) {
  auto audit_of = [&creator](const pb::Appeal& a) {
    return AuditEntry{"appeal.create", creator,
                      {{"resource_id", a.resource_id()}, {"account_id", a.account_id()},
                       {"role", a.role()}, {"status", a.status()}}};
  };
  auto pending_exists = [](const pb::Appeal& a) {
    return absl::AlreadyExistsError(absl::StrCat("a pending appeal already exists for account ",
                                                 a.account_id(), ", resource ", a.resource_id(),
                                                 " and role ", a.role()));
  };
  // The most common request, one appeal that stays pending, is a single
  // atomic write when no active grant exists: no explicit transaction.
  if (prepared.size() == 1 && prepared[0].appeal.status() == "pending") {
    pb::Appeal& a = prepared[0].appeal;
    // Its events go in with it: no extra round trip on the hot path.
    auto inserted = appeals_->InsertAppealUnlessActiveGrant(
        &a, audit_of(a), event_policy_.Filter(CreatedEvents(a)));
    if (absl::IsAlreadyExists(inserted.status())) return pending_exists(a);
    if (!inserted.ok()) return inserted.status();
    if (*inserted) {
      EventsCommitted();
      return std::vector<pb::Appeal>{std::move(a)};
    }
    // An active grant exists: the transaction below decides on extension.
  }
  absl::Time now = clock_();
  // Every access the request touches, in one global order: requests naming
  // the same resources in another order cannot deadlock.
  std::set<std::tuple<std::string, std::string, std::string>> keys;
  for (const Prepared& p : prepared) {
    keys.emplace(p.appeal.account_id(), p.appeal.resource_id(), p.appeal.role());
  }
  absl::Status st = RunAndSettle([&](AccessTx& tx, std::vector<PendingOp>* ops) -> absl::Status {
    // Identical requests racing (a double click, a retry) queue here; the
    // later ones then find the first one's pending appeal or grant.
    for (const auto& [account, resource, role] : keys) {
      if (auto s = tx.LockAccess(account, resource, role); !s.ok()) return s;
    }
    std::vector<AccessEvent> events;
    for (Prepared& p : prepared) {
      pb::Appeal& a = p.appeal;
      AuditEntry audit = audit_of(a);
      // Common case first: no active grant, so the appeal, its approvals and
      // its audit row go in at once (one statement in the PostgreSQL store).
      auto inserted = tx.InsertAppealUnlessActiveGrant(&a, audit);
      if (absl::IsAlreadyExists(inserted.status())) return pending_exists(a);
      if (!inserted.ok()) return inserted.status();
      if (!*inserted) {
        // An active grant exists: lock it and allow only an extension.
        auto existing = tx.FindActiveGrant(a.account_id(), a.resource_id(), a.role(), true);
        if (!existing.ok()) return existing.status();
        if (existing->has_value()) {
          const pb::Grant& g = **existing;
          bool in_window = false;
          if (!g.is_permanent() && g.has_expiration_date() && !p.extension_window.empty()) {
            auto window =
                ParseDurationField("allow_active_access_extension_in", p.extension_window);
            in_window = window.ok() && FromTimestamp(g.expiration_date()) - now <= *window;
          }
          if (!in_window) {
            return absl::AlreadyExistsError(absl::StrCat(
                "account ", a.account_id(), " already has an active grant ", g.id(), " for role ",
                a.role(), " on resource ", a.resource_id(),
                p.extension_window.empty() ? "" : " (outside the extension window)"));
          }
        }
        auto ins = tx.InsertAppealAudited(&a, audit);
        if (absl::IsAlreadyExists(ins)) return pending_exists(a);
        if (!ins.ok()) return ins;
        if (existing->has_value() && a.status() == "pending") {
          pb::Grant g = **existing;
          g.set_pending_appeal_id(a.id());
          if (auto u = tx.UpdateGrant(g); !u.ok()) return u;
        }
      }
      if (a.status() == "active") {
        if (auto ac = Activate(tx, &a, p.config, p.policy, ops); !ac.ok()) return ac;
        if (auto h = InsertHardRequirements(tx, a, &p.hard, ops); !h.ok()) return h;
      }
      for (AccessEvent& e : CreatedEvents(a)) events.push_back(std::move(e));
    }
    return EmitEvents(tx, std::move(events));  // one multi-row INSERT
  });
  if (!st.ok()) return st;  // RunAndSettle undid the provider calls: no access without a record
  EventsCommitted();
  std::vector<pb::Appeal> out;
  for (Prepared& p : prepared) {
    if (p.appeal.status() == "active") CreateSoftRequirements(&p.appeal, p.policy, &p.hard);
    out.push_back(std::move(p.appeal));
  }
  return out;
}

absl::Status AppealService::Activate(AccessTx& tx, pb::Appeal* appeal,
                                     const pb::ProviderConfig& config, const pb::Policy& policy,
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
  auto op_id = JournalBegin({"", "grant", req.account_id, req.account_type, appeal->resource_id(),
                             req.role, req.permissions, config.type(), config.urn(),
                             appeal->id(), "", absl::Time()});
  if (!op_id.ok()) return op_id.status();
  if (auto st = (*client)->GrantAccess(config, req); !st.ok()) {
    JournalFinish(*op_id, kOpFailed);
    return absl::Status(st.code(), absl::StrCat("granting access in provider ", config.urn(),
                                                " failed: ", st.message()));
  }
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
    if (old_appeal.ok() && old_appeal->status() == "active") {
      old_appeal->set_status("terminated");
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
  if (appeal->options().duration().empty()) {
    grant.set_is_permanent(true);
  } else {
    auto d = ParseDurationField("options.duration", appeal->options().duration());
    if (!d.ok()) return d.status();
    *grant.mutable_expiration_date() = ToTimestamp(now + *d);
    grant.set_expiration_date_reason(
        absl::StrCat("approval time + duration ", appeal->options().duration()));
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
  (void)policy;
  return absl::OkStatus();
}

absl::Status AppealService::EmitEvents(AccessTx& tx, std::vector<AccessEvent> events) {
  events = event_policy_.Filter(std::move(events));
  if (events.empty()) return absl::OkStatus();
  return tx.InsertEvents(events);
}

absl::Status AppealService::RecordOwnerChange(AccessTx& tx, const pb::Grant& grant,
                                              const std::string& previous_owner,
                                              const std::string& actor) {
  if (grant.owner() == previous_owner) return absl::OkStatus();
  return EmitEvents(tx, {OwnerChangedEvent(grant, previous_owner, actor)});
}

absl::StatusOr<pb::Appeal> AppealService::Expand(pb::Appeal appeal) {
  if (!appeal.has_resource()) {
    auto r = resources_->Get(appeal.resource_id());
    if (r.ok()) *appeal.mutable_resource() = *r;
  }
  return appeal;
}

absl::StatusOr<pb::Appeal> AppealService::Get(const std::string& id) {
  if (!IsUuid(id)) return absl::InvalidArgumentError(absl::StrCat("id: \"", id, "\" is not a UUID"));
  absl::StatusOr<pb::Appeal> out = absl::NotFoundError("");
  absl::Status st = appeals_->InTransaction([&](AccessTx& tx) -> absl::Status {
    out = tx.GetAppeal(id, false);
    return out.status();
  });
  if (!st.ok()) return st;
  return Expand(std::move(*out));
}

namespace {

// The page of a list request into a filter's size and offset (ParsePage).
template <typename Request, typename Filter>
absl::Status SetPage(const Request& request, Filter* f) {
  auto page = ParsePage(request.size(), request.offset());
  if (!page.ok()) return page.status();
  f->size = page->size;
  f->offset = page->offset;
  return absl::OkStatus();
}

bool IsApproverOf(const pb::Appeal& a, const std::string& identity) {
  for (const auto& p : a.approvals()) {
    for (const auto& e : p.approvers()) {
      if (e == identity) return true;
    }
  }
  return false;
}

std::vector<std::string> Vec(const google::protobuf::RepeatedPtrField<std::string>& r) {
  return {r.begin(), r.end()};
}

}  // namespace

absl::StatusOr<std::vector<pb::Appeal>> AppealService::List(const pb::ListAppealsRequest& request,
                                                            const std::string& created_by,
                                                            const std::string& visible_to,
                                                            int* total) {
  AppealFilter f;
  f.account_ids = Vec(request.account_ids());
  if (!request.account_id().empty()) f.account_ids.push_back(request.account_id());
  f.statuses = Vec(request.statuses());
  f.role = request.role();
  f.provider_types = Vec(request.provider_types());
  f.provider_urns = Vec(request.provider_urns());
  f.resource_types = Vec(request.resource_types());
  f.resource_urns = Vec(request.resource_urns());
  f.created_by = created_by.empty() ? request.created_by() : created_by;
  f.visible_to = visible_to;
  auto order = ParseOrderBy(request.order_by(),
                            {"created_at", "updated_at", "status", "account_id", "role"});
  if (!order.ok()) return order.status();
  f.order_by = *order;
  if (auto st = SetPage(request, &f); !st.ok()) return st;
  return appeals_->ListAppeals(f, total);
}

absl::StatusOr<std::vector<pb::Approval>> AppealService::ListApprovals(
    const pb::ListApprovalsRequest& request, const std::string& approver, int* total) {
  ApprovalFilter f;
  f.account_id = request.account_id();
  f.approver = approver.empty() ? request.created_by() : approver;
  f.statuses = Vec(request.statuses());
  auto order = ParseOrderBy(request.order_by(), {"created_at", "updated_at", "status", "name"});
  if (!order.ok()) return order.status();
  f.order_by = *order;
  if (auto st = SetPage(request, &f); !st.ok()) return st;
  return appeals_->ListApprovals(f, total);
}

absl::StatusOr<std::vector<pb::Grant>> AppealService::ListGrants(
    const pb::ListGrantsRequest& request, const std::string& visible_to, int* total) {
  GrantFilter f;
  f.visible_to = visible_to;
  f.q = request.q();
  f.owner = !request.owner().empty() ? request.owner() : request.created_by();
  f.statuses = Vec(request.statuses());
  f.account_ids = Vec(request.account_ids());
  f.account_types = Vec(request.account_types());
  f.resource_ids = Vec(request.resource_ids());
  for (const auto& id : f.resource_ids) {
    if (!IsUuid(id)) return absl::InvalidArgumentError(absl::StrCat("resource_ids: \"", id, "\" is not a UUID"));
  }
  f.roles = Vec(request.roles());
  f.provider_types = Vec(request.provider_types());
  f.provider_urns = Vec(request.provider_urns());
  f.resource_types = Vec(request.resource_types());
  auto order = ParseOrderBy(request.order_by(), {"created_at", "updated_at", "expiration_date",
                                                 "account_id", "role", "status"});
  if (!order.ok()) return order.status();
  f.order_by = *order;
  if (auto st = SetPage(request, &f); !st.ok()) return st;
  return appeals_->ListGrants(f, total);
}

absl::StatusOr<pb::Grant> AppealService::GetGrant(const std::string& id, const Actor& actor) {
  if (!IsUuid(id)) return absl::NotFoundError(absl::StrCat("grant \"", id, "\" not found"));
  auto grant = appeals_->GetGrant(id);
  if (!grant.ok() || actor.admin || grant->account_id() == actor.identity ||
      (!grant->owner().empty() && grant->owner() == actor.identity)) {
    return grant;
  }
  auto approver = appeals_->IsResourceApprover(grant->resource_id(), actor.identity);
  if (!approver.ok()) return approver.status();
  if (!*approver) {
    return absl::PermissionDeniedError(absl::StrCat(
        actor.identity, " may not read grant ", id,
        ": only admins, its account and the resource's approvers may"));
  }
  return grant;
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
