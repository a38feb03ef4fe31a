#include "server/access/api/services.h"

#include "common/grpc_util.h"
#include "server/access/api/filters.h"
#include "server/access/core/validation.h"

namespace sluice::access {

using auth::Caller;
using auth::WithCaller;

// Every call needs an identity; policies, providers and resources change
// only by admins (the audit actor is the caller).

grpc::Status PolicyGrpcService::CreatePolicy(grpc::ServerContext* ctx,
                                             const v1beta1::CreatePolicyRequest* req,
                                             v1beta1::CreatePolicyResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "PolicyService/CreatePolicy",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "create policies"); !st.ok()) return st;
    auto p = policies_->Create(req->policy(), caller.identity, req->dry_run());
    if (!p.ok()) return p.status();
    *resp->mutable_policy() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status PolicyGrpcService::UpdatePolicy(grpc::ServerContext* ctx,
                                             const v1beta1::UpdatePolicyRequest* req,
                                             v1beta1::UpdatePolicyResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "PolicyService/UpdatePolicy",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "update policies"); !st.ok()) return st;
    auto p = policies_->Update(req->id(), req->policy(), caller.identity, req->dry_run());
    if (!p.ok()) return p.status();
    *resp->mutable_policy() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status PolicyGrpcService::ListPolicies(grpc::ServerContext* ctx,
                                             const v1beta1::ListPoliciesRequest* req,
                                             v1beta1::ListPoliciesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "PolicyService/ListPolicies",
                    [&](const Caller&) -> absl::Status {
    int64_t total = 0;
    auto page = ParseListPage(req->size(), req->offset(), auth_.max_page_size);
    if (!page.ok()) return page.status();
    auto ps = policies_->List(*page, &total, {req->ids().begin(), req->ids().end()});
    if (!ps.ok()) return ps.status();
    for (auto& p : *ps) *resp->add_policies() = std::move(p);
    resp->set_total(static_cast<int32_t>(total));
    return absl::OkStatus();
  });
}

grpc::Status PolicyGrpcService::GetPolicy(grpc::ServerContext* ctx,
                                          const v1beta1::GetPolicyRequest* req,
                                          v1beta1::GetPolicyResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "PolicyService/GetPolicy",
                    [&](const Caller&) -> absl::Status {
    auto p = policies_->Get(req->id(), req->version());
    if (!p.ok()) return p.status();
    *resp->mutable_policy() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::CreateProvider(grpc::ServerContext* ctx,
                                                 const v1beta1::CreateProviderRequest* req,
                                                 v1beta1::CreateProviderResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ProviderService/CreateProvider",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "create providers"); !st.ok()) return st;
    auto p = providers_->Create(req->config(), caller.identity, req->dry_run());
    if (!p.ok()) return p.status();
    *resp->mutable_provider() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::UpdateProvider(grpc::ServerContext* ctx,
                                                 const v1beta1::UpdateProviderRequest* req,
                                                 v1beta1::UpdateProviderResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ProviderService/UpdateProvider",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "update providers"); !st.ok()) return st;
    // PUT /providers/{id}, or Guardian's PUT /providers/{config.type}/{config.urn}.
    auto p = req->id().empty()
                 ? providers_->UpdateByTypeUrn(req->config().type(), req->config().urn(),
                                               req->config(), caller.identity, req->dry_run())
                 : providers_->Update(req->id(), req->config(), caller.identity,
                                      req->dry_run());
    if (!p.ok()) return p.status();
    *resp->mutable_provider() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::ListProviders(grpc::ServerContext* ctx,
                                                const v1beta1::ListProvidersRequest* req,
                                                v1beta1::ListProvidersResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ProviderService/ListProviders",
                    [&](const Caller&) -> absl::Status {
    int64_t total = 0;
    auto page = ParseListPage(req->size(), req->offset(), auth_.max_page_size);
    if (!page.ok()) return page.status();
    ProviderFilter filter{{req->ids().begin(), req->ids().end()},
                          {req->urns().begin(), req->urns().end()},
                          {req->types().begin(), req->types().end()}};
    auto ps = providers_->List(*page, &total, filter);
    if (!ps.ok()) return ps.status();
    for (auto& p : *ps) *resp->add_providers() = std::move(p);
    resp->set_total(static_cast<int32_t>(total));
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::GetProvider(grpc::ServerContext* ctx,
                                              const v1beta1::GetProviderRequest* req,
                                              v1beta1::GetProviderResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ProviderService/GetProvider",
                    [&](const Caller&) -> absl::Status {
    auto p = providers_->Get(req->id());
    if (!p.ok()) return p.status();
    *resp->mutable_provider() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::DeleteProvider(grpc::ServerContext* ctx,
                                                 const v1beta1::DeleteProviderRequest* req,
                                                 v1beta1::DeleteProviderResponse*) {
  return WithCaller(*auth_.authenticator, ctx, "ProviderService/DeleteProvider",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "delete providers"); !st.ok()) return st;
    return providers_->Delete(req->id(), caller.identity);
  });
}

grpc::Status ProviderGrpcService::ListRoles(grpc::ServerContext* ctx,
                                            const v1beta1::ListRolesRequest* req,
                                            v1beta1::ListRolesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ProviderService/ListRoles",
                    [&](const Caller&) -> absl::Status {
    auto roles = providers_->ListRoles(req->id(), req->resource_type());
    if (!roles.ok()) return roles.status();
    for (auto& r : *roles) *resp->add_roles() = std::move(r);
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::ListResources(grpc::ServerContext* ctx,
                                                const v1beta1::ListResourcesRequest* req,
                                                v1beta1::ListResourcesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ResourceService/ListResources",
                    [&](const Caller&) -> absl::Status {
    int64_t total = 0;
    auto page = ParseListPage(req->size(), req->offset(), auth_.max_page_size);
    if (!page.ok()) return page.status();
    auto filter = ResourceFilterOf(*req);
    if (!filter.ok()) return filter.status();
    auto rs = resources_->List(*filter, *page, &total);
    if (!rs.ok()) return rs.status();
    for (auto& r : *rs) *resp->add_resources() = std::move(r);
    resp->set_total(static_cast<int32_t>(total));
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::GetResource(grpc::ServerContext* ctx,
                                              const v1beta1::GetResourceRequest* req,
                                              v1beta1::GetResourceResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ResourceService/GetResource",
                    [&](const Caller&) -> absl::Status {
    auto r = resources_->Get(req->id());
    if (!r.ok()) return r.status();
    *resp->mutable_resource() = std::move(*r);
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::UpdateResource(grpc::ServerContext* ctx,
                                                 const v1beta1::UpdateResourceRequest* req,
                                                 v1beta1::UpdateResourceResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ResourceService/UpdateResource",
                    [&](const Caller& caller) -> absl::Status {
    // Resource details can name approvers ($appeal.resource.details.owner):
    // only admins may set them (finding H4).
    if (auto st = auth_.RequireAdmin(caller, "update resources"); !st.ok()) return st;
    auto r = resources_->Update(req->id(), req->resource(), caller.identity);
    if (!r.ok()) return r.status();
    *resp->mutable_resource() = std::move(*r);
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::DeleteResource(grpc::ServerContext* ctx,
                                                 const v1beta1::DeleteResourceRequest* req,
                                                 v1beta1::DeleteResourceResponse*) {
  return WithCaller(*auth_.authenticator, ctx, "ResourceService/DeleteResource",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "delete resources"); !st.ok()) return st;
    return resources_->Delete(req->id(), caller.identity);
  });
}

grpc::Status AuditLogGrpcService::ListAuditLogs(grpc::ServerContext* ctx,
                                                const v1beta1::ListAuditLogsRequest* req,
                                                v1beta1::ListAuditLogsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AuditLogService/ListAuditLogs",
                    [&](const Caller& caller) -> absl::Status {
    AuditLogFilter f;
    f.action = req->action();
    // A non-admin sees the trail of their own actions only.
    f.actor = auth_.admins->Contains(caller) ? req->actor() : caller.identity;
    f.start_time = req->start_time();
    f.end_time = req->end_time();
    auto page = ParseListPage(req->size(), req->offset(), auth_.max_page_size);
    if (!page.ok()) return page.status();
    f.size = page->size;
    f.offset = page->offset;
    int64_t total = 0;
    auto logs = logs_->List(f, &total);
    if (!logs.ok()) return logs.status();
    for (auto& l : *logs) *resp->add_audit_logs() = std::move(l);
    resp->set_total(static_cast<int32_t>(total));
    return absl::OkStatus();
  });
}

// Issue 28's routes.

grpc::Status PolicyGrpcService::GetPolicyPreferences(
    grpc::ServerContext* ctx, const v1beta1::GetPolicyPreferencesRequest* req,
    v1beta1::GetPolicyPreferencesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "PolicyService/GetPolicyPreferences",
                    [&](const Caller&) -> absl::Status {
    auto p = policies_->Get(req->id(), req->version());
    if (!p.ok()) return p.status();
    *resp->mutable_appeal() = p->appeal();
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::GetProviderTypes(grpc::ServerContext* ctx,
                                                   const v1beta1::GetProviderTypesRequest*,
                                                   v1beta1::GetProviderTypesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ProviderService/GetProviderTypes",
                    [&](const Caller&) -> absl::Status {
    auto types = providers_->Types();
    if (!types.ok()) return types.status();
    for (auto& t : *types) *resp->add_provider_types() = std::move(t);
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::CreateResource(grpc::ServerContext* ctx,
                                                 const v1beta1::CreateResourceRequest* req,
                                                 v1beta1::CreateResourceResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ResourceService/CreateResource",
                    [&](const Caller& caller) -> absl::Status {
    // As every resource write: details can name approvers (finding H4).
    if (auto st = auth_.RequireAdmin(caller, "create resources"); !st.ok()) return st;
    auto r = resources_->Create(req->resource(), caller.identity);
    if (!r.ok()) return r.status();
    *resp->mutable_resource() = std::move(*r);
    return absl::OkStatus();
  });
}

}  // namespace sluice::access
