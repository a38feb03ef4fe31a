// Appeal creation's validation, one named step per rule (in the order of
// Guardian's appeal Create: resource, provider, role and account, policy,
// duration, questions, creator details, approval steps), and the assembly of
// the new appeal. The writes are in appeal_service.cc.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/approval_flow.h"
#include "server/access/core/json.h"
#include "server/access/core/policy_rules.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

// The requested resource: present, known and not deleted.
absl::StatusOr<pb::Resource> LoadResource(ResourceRepository& resources, const std::string& id) {
  if (id.empty()) return absl::InvalidArgumentError("resources[].id: required");
  auto resource = resources.Get(id);
  if (!resource.ok()) return resource.status();
  if (resource->is_deleted()) {
    return absl::FailedPreconditionError(absl::StrCat("resource ", id, " is deleted"));
  }
  return resource;
}

// The registered provider config that holds `resource`.
absl::StatusOr<pb::ProviderConfig> LoadProviderConfig(ProviderService& providers,
                                                      const pb::Resource& resource) {
  auto config = providers.GetPlainConfig(resource.provider_type(), resource.provider_urn());
  if (absl::IsNotFound(config.status())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "provider ", resource.provider_type(), "/", resource.provider_urn(), " of resource ",
        resource.id(), " is not registered"));
  }
  return config;
}

// The provider's config of the resource's type (points into `config`).
absl::StatusOr<const pb::ResourceConfig*> FindResourceConfig(const pb::ProviderConfig& config,
                                                             const pb::Resource& resource) {
  const pb::ResourceConfig* rc = nullptr;
  for (const auto& c : config.resources()) {
    if (c.type() == resource.type()) rc = &c;
  }
  if (rc == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "provider ", config.urn(), " has no config for resource type \"", resource.type(), "\""));
  }
  return rc;
}

// The requested role among the resource type's roles (points into `rc`).
absl::StatusOr<const pb::Role*> FindRole(const pb::ResourceConfig& rc,
                                         const std::string& resource_type,
                                         const std::string& role) {
  for (const auto& ro : rc.roles()) {
    if (ro.id() == role) return &ro;
  }
  std::vector<std::string> ids;
  for (const auto& ro : rc.roles()) ids.push_back(ro.id());
  return absl::InvalidArgumentError(absl::StrCat("role: \"", role, "\" is not a role of \"",
                                                 resource_type, "\" (roles: ",
                                                 absl::StrJoin(ids, ", "), ")"));
}

absl::Status CheckAccountType(const pb::ProviderConfig& config, const std::string& account_type) {
  const auto& allowed = config.allowed_account_types();
  if (std::find(allowed.begin(), allowed.end(), account_type) != allowed.end()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("account_type: \"", account_type,
                                                 "\" is not allowed by provider ", config.urn(),
                                                 " (allowed: ", absl::StrJoin(allowed, ", "), ")"));
}

// The policy `ref` names, decrypted; an unknown one is FailedPrecondition
// (the provider config points at it, the request does not).
absl::StatusOr<pb::Policy> LoadPolicy(PolicyService& policies, const pb::PolicyRef& ref) {
  auto policy = policies.GetDecrypted(ref.id(), ref.version());
  if (absl::IsNotFound(policy.status())) {
    return absl::FailedPreconditionError(policy.status().message());
  }
  return policy;
}

absl::Status CheckOnBehalf(const pb::Policy& policy, const std::string& account_id,
                           const std::string& creator) {
  if (account_id == creator || policy.appeal().allow_on_behalf()) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "policy ", policy.id(), " does not allow appeals on behalf of another account"));
}

// The provider plugin's own account check (after the on-behalf check, so
// that it cannot probe the provider's accounts).
absl::Status ValidateAccount(const ProviderRegistry& registry, const pb::ProviderConfig& config,
                             const std::string& account_type, const std::string& account_id) {
  auto client = registry.Find(config.type());
  if (!client.ok()) return client.status();
  return (*client)->ValidateAccount(config, account_type, account_id);
}

// The account id as the plugin stores it (NormalizeAccountId: Google's
// plugins lower-case emails, review F-H2); unchanged for an unknown type,
// which ValidateAccount then refuses.
std::string NormalizeAccount(const ProviderRegistry& registry, const pb::ProviderConfig& config,
                             const std::string& account_type, const std::string& account_id) {
  auto client = registry.Find(config.type());
  if (!client.ok()) return account_id;
  return (*client)->NormalizeAccountId(account_type, account_id);
}

// options.duration: required unless permanent access is allowed; one of the
// policy's duration_options when it lists some, else at most `max`.
absl::Status CheckDuration(const pb::Policy& policy, const pb::ProviderConfig& config,
                           const std::string& duration, absl::Duration max) {
  if (duration.empty()) {
    if (policy.appeal().allow_permanent_access() || config.appeal().allow_permanent_access()) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError("options.duration: required (permanent access is not allowed)");
  }
  auto d = ParseDurationField("options.duration", duration);
  if (!d.ok()) return d.status();
  const auto& opts = policy.appeal().duration_options();
  if (opts.empty()) {
    if (*d <= max) return absl::OkStatus();
    // Finding L8: "876000h" was effectively permanent access.
    return absl::InvalidArgumentError(absl::StrCat(
        "options.duration: \"", duration, "\" is longer than the maximum grant duration ",
        absl::FormatDuration(max),
        " (access.max_grant_duration; a policy may list longer duration_options)"));
  }
  std::vector<std::string> values;
  for (const auto& o : opts) {
    if (o.value() == duration) return absl::OkStatus();
    values.push_back(o.value());
  }
  return absl::InvalidArgumentError(absl::StrCat("options.duration: \"", duration,
                                                 "\" is not one of the policy's options (",
                                                 absl::StrJoin(values, ", "), ")"));
}

// The new pending appeal's own fields (no approvals yet).
pb::Appeal NewAppeal(const pb::AppealResourceRequest& r, const pb::Resource& resource,
                     const pb::Policy& policy, const pb::Role& role,
                     const std::string& account_id, const std::string& account_type,
                     const std::string& description, const std::string& creator) {
  pb::Appeal a;
  a.set_resource_id(resource.id());
  *a.mutable_resource() = resource;
  a.set_policy_id(policy.id());
  a.set_policy_version(policy.version());
  a.set_status("pending");
  a.set_account_id(account_id);
  a.set_account_type(account_type);
  a.set_role(role.id());
  for (const auto& perm : role.permissions()) a.add_permissions(PermissionString(perm));
  *a.mutable_options() = r.options();
  *a.mutable_details() = r.details();
  a.set_description(description);
  a.set_created_by(creator);
  return a;
}

// appeal.creator from the policy's IAM (Guardian's creator details).
absl::Status AddCreatorProfile(IamClient* iam, const pb::Policy& policy,
                               const std::string& creator, pb::Appeal* a) {
  if (!policy.has_iam()) return absl::OkStatus();
  if (iam == nullptr) return absl::FailedPreconditionError("IAM client not configured");
  auto profile = iam->GetUser(policy.iam(), creator);
  if (!profile.ok()) return profile.status();
  *a->mutable_creator()->mutable_struct_value() = *profile;
  return absl::OkStatus();
}

// The policy's approval steps, with the steps that already resolve applied,
// refusing a step left without an approver.
absl::Status PopulateApprovals(pb::Appeal* a, const pb::Policy& policy) {
  if (auto st = InitApprovals(a, policy); !st.ok()) return st;
  if (auto st = AdvanceFlow(a, policy); !st.ok()) return st;
  return CheckApproversLeft(*a, policy);
}

}  // namespace

absl::StatusOr<AppealService::Prepared> AppealService::Prepare(
    const pb::AppealResourceRequest& r, const std::string& account_id,
    const std::string& account_type, const std::string& description, const std::string& creator,
    bool system, const pb::PolicyRef* policy_override) {
  auto resource = LoadResource(*resources_, r.id());
  if (!resource.ok()) return resource.status();
  auto config = LoadProviderConfig(*providers_, *resource);
  if (!config.ok()) return config.status();
  auto rc = FindResourceConfig(*config, *resource);
  if (!rc.ok()) return rc.status();
  auto role = FindRole(**rc, resource->type(), r.role());
  if (!role.ok()) return role.status();
  if (auto st = CheckAccountType(*config, account_type); !st.ok()) return st;
  pb::PolicyRef policy_ref = (*rc)->policy();
  if (policy_override != nullptr) {
    policy_ref = *policy_override;
  } else if (!config->policies().empty()) {
    // Guardian's getPolicy: the provider's policies[] pick by `when` over
    // the appeal as requested (its resource, account, role, options,
    // details, creator id), before the policy shapes it.
    pb::Appeal draft;
    draft.set_resource_id(resource->id());
    *draft.mutable_resource() = *resource;
    draft.set_account_id(account_id);
    draft.set_account_type(account_type);
    draft.set_role(r.role());
    *draft.mutable_options() = r.options();
    *draft.mutable_details() = r.details();
    draft.set_description(description);
    draft.set_created_by(creator);
    auto picked = SelectProviderPolicy(*config, draft);
    if (!picked.ok()) return picked.status();
    if (picked->has_value()) policy_ref = **picked;
  }
  auto policy = LoadPolicy(*policies_, policy_ref);
  if (!policy.ok()) return policy.status();
  if (!system) {
    if (auto st = CheckOnBehalf(*policy, account_id, creator); !st.ok()) return st;
  }
  // From here on the appeal's account is the plugin's form of the id (the
  // on-behalf check above compares what the caller sent with its identity).
  const std::string account = NormalizeAccount(*registry_, *config, account_type, account_id);
  if (auto st = ValidateAccount(*registry_, *config, account_type, account); !st.ok()) return st;
  auto duration = CheckDuration(*policy, *config, r.options().duration(),
                                limits_.max_grant_duration);
  if (!duration.ok()) return duration;
  if (!system) {
    if (auto st = CheckQuestionAnswers(*policy, r.details()); !st.ok()) return st;
  }
  Prepared p;
  p.appeal = NewAppeal(r, *resource, *policy, **role, account, account_type, description,
                       creator);
  if (!system) {
    if (auto st = AddCreatorProfile(iam_, *policy, creator, &p.appeal); !st.ok()) return st;
  }
  auto now = ToTimestamp(applier_->Now());
  *p.appeal.mutable_created_at() = now;
  *p.appeal.mutable_updated_at() = now;
  if (auto st = PopulateApprovals(&p.appeal, *policy); !st.ok()) return st;
  p.extension_window = policy->appeal().allow_active_access_extension_in();
  if (p.extension_window.empty()) {
    p.extension_window = config->appeal().allow_active_access_extension_in();
  }
  p.policy = std::move(*policy);
  p.config = std::move(*config);
  return p;
}

}  // namespace sluice::access
