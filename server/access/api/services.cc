#include "server/access/api/services.h"

#include "common/grpc_util.h"

namespace sluice::access {

// Mutations require an identity (the audit actor); reads do not.

grpc::Status PolicyGrpcService::CreatePolicy(grpc::ServerContext* ctx,
                                             const v1beta1::CreatePolicyRequest* req,
                                             v1beta1::CreatePolicyResponse* resp) {
  return Guarded("PolicyService/CreatePolicy", [&]() -> absl::Status {
    auto actor = RequireCallerEmail(*ctx);
    if (!actor.ok()) return actor.status();
    auto p = policies_->Create(req->policy(), *actor);
    if (!p.ok()) return p.status();
    *resp->mutable_policy() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status PolicyGrpcService::UpdatePolicy(grpc::ServerContext* ctx,
                                             const v1beta1::UpdatePolicyRequest* req,
                                             v1beta1::UpdatePolicyResponse* resp) {
  return Guarded("PolicyService/UpdatePolicy", [&]() -> absl::Status {
    auto actor = RequireCallerEmail(*ctx);
    if (!actor.ok()) return actor.status();
    auto p = policies_->Update(req->id(), req->policy(), *actor);
    if (!p.ok()) return p.status();
    *resp->mutable_policy() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status PolicyGrpcService::ListPolicies(grpc::ServerContext*,
                                             const v1beta1::ListPoliciesRequest*,
                                             v1beta1::ListPoliciesResponse* resp) {
  return Guarded("PolicyService/ListPolicies", [&]() -> absl::Status {
    auto ps = policies_->List();
    if (!ps.ok()) return ps.status();
    for (auto& p : *ps) *resp->add_policies() = std::move(p);
    return absl::OkStatus();
  });
}

grpc::Status PolicyGrpcService::GetPolicy(grpc::ServerContext*,
                                          const v1beta1::GetPolicyRequest* req,
                                          v1beta1::GetPolicyResponse* resp) {
  return Guarded("PolicyService/GetPolicy", [&]() -> absl::Status {
    auto p = policies_->Get(req->id(), req->version());
    if (!p.ok()) return p.status();
    *resp->mutable_policy() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::CreateProvider(grpc::ServerContext* ctx,
                                                 const v1beta1::CreateProviderRequest* req,
                                                 v1beta1::CreateProviderResponse* resp) {
  return Guarded("ProviderService/CreateProvider", [&]() -> absl::Status {
    auto actor = RequireCallerEmail(*ctx);
    if (!actor.ok()) return actor.status();
    auto p = providers_->Create(req->config(), *actor);
    if (!p.ok()) return p.status();
    *resp->mutable_provider() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::UpdateProvider(grpc::ServerContext* ctx,
                                                 const v1beta1::UpdateProviderRequest* req,
                                                 v1beta1::UpdateProviderResponse* resp) {
  return Guarded("ProviderService/UpdateProvider", [&]() -> absl::Status {
    auto actor = RequireCallerEmail(*ctx);
    if (!actor.ok()) return actor.status();
    auto p = providers_->Update(req->id(), req->config(), *actor);
    if (!p.ok()) return p.status();
    *resp->mutable_provider() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::ListProviders(grpc::ServerContext*,
                                                const v1beta1::ListProvidersRequest*,
                                                v1beta1::ListProvidersResponse* resp) {
  return Guarded("ProviderService/ListProviders", [&]() -> absl::Status {
    auto ps = providers_->List();
    if (!ps.ok()) return ps.status();
    for (auto& p : *ps) *resp->add_providers() = std::move(p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::GetProvider(grpc::ServerContext*,
                                              const v1beta1::GetProviderRequest* req,
                                              v1beta1::GetProviderResponse* resp) {
  return Guarded("ProviderService/GetProvider", [&]() -> absl::Status {
    auto p = providers_->Get(req->id());
    if (!p.ok()) return p.status();
    *resp->mutable_provider() = std::move(*p);
    return absl::OkStatus();
  });
}

grpc::Status ProviderGrpcService::DeleteProvider(grpc::ServerContext* ctx,
                                                 const v1beta1::DeleteProviderRequest* req,
                                                 v1beta1::DeleteProviderResponse*) {
  return Guarded("ProviderService/DeleteProvider", [&]() -> absl::Status {
    auto actor = RequireCallerEmail(*ctx);
    if (!actor.ok()) return actor.status();
    return providers_->Delete(req->id(), *actor);
  });
}

grpc::Status ProviderGrpcService::ListRoles(grpc::ServerContext*,
                                            const v1beta1::ListRolesRequest* req,
                                            v1beta1::ListRolesResponse* resp) {
  return Guarded("ProviderService/ListRoles", [&]() -> absl::Status {
    auto roles = providers_->ListRoles(req->id(), req->resource_type());
    if (!roles.ok()) return roles.status();
    for (auto& r : *roles) *resp->add_roles() = std::move(r);
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::ListResources(grpc::ServerContext*,
                                                const v1beta1::ListResourcesRequest* req,
                                                v1beta1::ListResourcesResponse* resp) {
  return Guarded("ResourceService/ListResources", [&]() -> absl::Status {
    auto rs = resources_->List(*req);
    if (!rs.ok()) return rs.status();
    for (auto& r : *rs) *resp->add_resources() = std::move(r);
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::GetResource(grpc::ServerContext*,
                                              const v1beta1::GetResourceRequest* req,
                                              v1beta1::GetResourceResponse* resp) {
  return Guarded("ResourceService/GetResource", [&]() -> absl::Status {
    auto r = resources_->Get(req->id());
    if (!r.ok()) return r.status();
    *resp->mutable_resource() = std::move(*r);
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::UpdateResource(grpc::ServerContext* ctx,
                                                 const v1beta1::UpdateResourceRequest* req,
                                                 v1beta1::UpdateResourceResponse* resp) {
  return Guarded("ResourceService/UpdateResource", [&]() -> absl::Status {
    auto actor = RequireCallerEmail(*ctx);
    if (!actor.ok()) return actor.status();
    auto r = resources_->Update(req->id(), req->resource(), *actor);
    if (!r.ok()) return r.status();
    *resp->mutable_resource() = std::move(*r);
    return absl::OkStatus();
  });
}

grpc::Status ResourceGrpcService::DeleteResource(grpc::ServerContext* ctx,
                                                 const v1beta1::DeleteResourceRequest* req,
                                                 v1beta1::DeleteResourceResponse*) {
  return Guarded("ResourceService/DeleteResource", [&]() -> absl::Status {
    auto actor = RequireCallerEmail(*ctx);
    if (!actor.ok()) return actor.status();
    return resources_->Delete(req->id(), *actor);
  });
}

grpc::Status AuditLogGrpcService::ListAuditLogs(grpc::ServerContext*,
                                                const v1beta1::ListAuditLogsRequest* req,
                                                v1beta1::ListAuditLogsResponse* resp) {
  return Guarded("AuditLogService/ListAuditLogs", [&]() -> absl::Status {
    AuditLogFilter f;
    f.action = req->action();
    f.actor = req->actor();
    f.start_time = req->start_time();
    f.end_time = req->end_time();
    if (req->size() > 1000) return absl::InvalidArgumentError("size: at most 1000");
    f.size = req->size() == 0 ? 50 : static_cast<int>(req->size());
    f.offset = static_cast<int>(req->offset());
    int64_t total = 0;
    auto logs = logs_->List(f, &total);
    if (!logs.ok()) return logs.status();
    for (auto& l : *logs) *resp->add_audit_logs() = std::move(l);
    resp->set_total(static_cast<int32_t>(total));
    return absl::OkStatus();
  });
}

}  // namespace sluice::access
