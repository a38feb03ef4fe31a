// gRPC handlers of the access API, part 1. Each handler only unpacks the
// request, calls the core service and packs the response; errors come from
// the core as absl::Status and go out through Guarded → ToGrpcStatus.
#ifndef SLUICE_SERVER_ACCESS_API_SERVICES_H_
#define SLUICE_SERVER_ACCESS_API_SERVICES_H_

#include "server/access/api/api_auth.h"
#include "proto/sluice/access/v1beta1/access.grpc.pb.h"
#include "server/access/core/policy_service.h"
#include "server/access/core/provider_service.h"

namespace sluice::access {

// Every handler authenticates the call (WithCaller); see api_auth.h and the
// README's "Security model" for what each role may do.

class PolicyGrpcService final : public v1beta1::PolicyService::Service {
 public:
  PolicyGrpcService(PolicyService* policies, ApiAuth auth)
      : policies_(policies), auth_(auth) {}
  grpc::Status CreatePolicy(grpc::ServerContext* ctx, const v1beta1::CreatePolicyRequest* req,
                            v1beta1::CreatePolicyResponse* resp) override;
  grpc::Status UpdatePolicy(grpc::ServerContext* ctx, const v1beta1::UpdatePolicyRequest* req,
                            v1beta1::UpdatePolicyResponse* resp) override;
  grpc::Status ListPolicies(grpc::ServerContext* ctx, const v1beta1::ListPoliciesRequest* req,
                            v1beta1::ListPoliciesResponse* resp) override;
  grpc::Status GetPolicy(grpc::ServerContext* ctx, const v1beta1::GetPolicyRequest* req,
                         v1beta1::GetPolicyResponse* resp) override;
  grpc::Status GetPolicyPreferences(grpc::ServerContext* ctx,
                                    const v1beta1::GetPolicyPreferencesRequest* req,
                                    v1beta1::GetPolicyPreferencesResponse* resp) override;

 private:
  PolicyService* policies_;
  ApiAuth auth_;
};

class ProviderGrpcService final : public v1beta1::ProviderService::Service {
 public:
  ProviderGrpcService(ProviderService* providers, ApiAuth auth)
      : providers_(providers), auth_(auth) {}
  grpc::Status CreateProvider(grpc::ServerContext* ctx, const v1beta1::CreateProviderRequest* req,
                              v1beta1::CreateProviderResponse* resp) override;
  grpc::Status UpdateProvider(grpc::ServerContext* ctx, const v1beta1::UpdateProviderRequest* req,
                              v1beta1::UpdateProviderResponse* resp) override;
  grpc::Status ListProviders(grpc::ServerContext* ctx, const v1beta1::ListProvidersRequest* req,
                             v1beta1::ListProvidersResponse* resp) override;
  grpc::Status GetProvider(grpc::ServerContext* ctx, const v1beta1::GetProviderRequest* req,
                           v1beta1::GetProviderResponse* resp) override;
  grpc::Status DeleteProvider(grpc::ServerContext* ctx, const v1beta1::DeleteProviderRequest* req,
                              v1beta1::DeleteProviderResponse* resp) override;
  grpc::Status ListRoles(grpc::ServerContext* ctx, const v1beta1::ListRolesRequest* req,
                         v1beta1::ListRolesResponse* resp) override;
  grpc::Status GetProviderTypes(grpc::ServerContext* ctx,
                                const v1beta1::GetProviderTypesRequest* req,
                                v1beta1::GetProviderTypesResponse* resp) override;

 private:
  ProviderService* providers_;
  ApiAuth auth_;
};

class ResourceGrpcService final : public v1beta1::ResourceService::Service {
 public:
  ResourceGrpcService(ResourceService* resources, ApiAuth auth)
      : resources_(resources), auth_(auth) {}
  grpc::Status ListResources(grpc::ServerContext* ctx, const v1beta1::ListResourcesRequest* req,
                             v1beta1::ListResourcesResponse* resp) override;
  grpc::Status GetResource(grpc::ServerContext* ctx, const v1beta1::GetResourceRequest* req,
                           v1beta1::GetResourceResponse* resp) override;
  grpc::Status UpdateResource(grpc::ServerContext* ctx, const v1beta1::UpdateResourceRequest* req,
                              v1beta1::UpdateResourceResponse* resp) override;
  grpc::Status DeleteResource(grpc::ServerContext* ctx, const v1beta1::DeleteResourceRequest* req,
                              v1beta1::DeleteResourceResponse* resp) override;
  grpc::Status CreateResource(grpc::ServerContext* ctx, const v1beta1::CreateResourceRequest* req,
                              v1beta1::CreateResourceResponse* resp) override;

 private:
  ResourceService* resources_;
  ApiAuth auth_;
};

class AuditLogGrpcService final : public v1beta1::AuditLogService::Service {
 public:
  AuditLogGrpcService(AuditLogRepository* logs, ApiAuth auth)
      : logs_(logs), auth_(auth) {}
  grpc::Status ListAuditLogs(grpc::ServerContext* ctx, const v1beta1::ListAuditLogsRequest* req,
                             v1beta1::ListAuditLogsResponse* resp) override;

 private:
  AuditLogRepository* logs_;
  ApiAuth auth_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_API_SERVICES_H_
