// gotocompany.guardian.v1beta1.GuardianService on sluice-server's gRPC port
// (issue #41): Guardian's package, service, rpc and message names and field
// numbers (proto/sluice/guardian/v1beta1/guardian.proto), so that Guardian's
// CLI and Go SDK call Sluice unchanged.
//
// Each of the 49 rpcs runs the sluice.access.v1beta1 handler of the same
// name, the one REST calls for the same Guardian route (bridge.h): one code
// path for the domain, and the same authentication and roles as every other
// rpc (README "Security model": a JWT in `jwt` mode, or the proxy's token and
// identity headers as gRPC metadata in `header` mode).
#ifndef SLUICE_SERVER_ACCESS_GUARDIAN_GUARDIAN_SERVICE_H_
#define SLUICE_SERVER_ACCESS_GUARDIAN_GUARDIAN_SERVICE_H_

#include "proto/sluice/guardian/v1beta1/guardian.grpc.pb.h"
#include "server/access/api/appeal_services.h"
#include "server/access/api/services.h"

namespace sluice::access::guardian {

namespace gpb = ::gotocompany::guardian::v1beta1;

// X(member, rpc): Guardian's rpcs in its proto's order, each with the Sluice
// service (a member of GuardianGrpcService::Handlers) whose rpc of the same
// name it runs; all but RevokeAppeal and UpdateApproval, whose requests
// nest what Sluice's take flat (declared below).
#define SLUICE_GUARDIAN_RPCS(X)                                                             \
  X(provider, ListProviders) X(provider, GetProvider) X(provider, GetProviderTypes)         \
  X(provider, CreateProvider) X(provider, UpdateProvider) X(provider, DeleteProvider)       \
  X(provider, ListRoles) X(appeal, ImportActivities) X(appeal, GetActivity)                 \
  X(appeal, ListActivities) X(policy, ListPolicies) X(policy, GetPolicy)                    \
  X(policy, CreatePolicy) X(policy, UpdatePolicy) X(policy, GetPolicyPreferences)           \
  X(resource, CreateResource) X(resource, ListResources) X(resource, GetResource)           \
  X(resource, UpdateResource) X(resource, DeleteResource) X(appeal, ListUserAppeals)        \
  X(appeal, ListAppeals) X(appeal, GetAppeal) X(appeal, CancelAppeal)                       \
  X(appeal, CreateAppeal) X(appeal, PatchAppeal)                    \
  X(appeal, RelabelAppeal) X(appeal, ListAppealComments) X(appeal, CreateAppealComment)     \
  X(appeal, ListAppealActivities) X(approval, ListUserApprovals) X(approval, ListApprovals)  \
  X(approval, GenerateUserApprovalSummaries) X(approval, GenerateApprovalSummaries)         \
  X(approval, AddApprover) X(approval, DeleteApprover)          \
  X(approval, AddApprovalStep) X(approval, UpdateApprovalStep) X(grant, ListGrants)         \
  X(grant, ListUserGrants) X(grant, ListUserRoles) X(grant, GetGrant) X(grant, UpdateGrant) \
  X(grant, RevokeGrant) X(grant, RestoreGrant) X(grant, RevokeGrants)                       \
  X(grant, ImportGrantsFromProvider)

class GuardianGrpcService final : public gpb::GuardianService::Service {
 public:
  // The Sluice handlers the rpcs run; all outlive this service.
  struct Handlers {
    PolicyGrpcService* policy;
    ProviderGrpcService* provider;
    ResourceGrpcService* resource;
    AppealGrpcService* appeal;
    ApprovalGrpcService* approval;
    GrantGrpcService* grant;
  };
  explicit GuardianGrpcService(Handlers h) : h_(h) {}

#define SLUICE_GUARDIAN_DECLARE(member, rpc)                                            \
  grpc::Status rpc(grpc::ServerContext* ctx, const gpb::rpc##Request* req,              \
                   gpb::rpc##Response* resp) override;
  SLUICE_GUARDIAN_RPCS(SLUICE_GUARDIAN_DECLARE)
#undef SLUICE_GUARDIAN_DECLARE
  // Guardian's `reason {reason}` (its REST body is `reason`): Sluice's `reason`.
  grpc::Status RevokeAppeal(grpc::ServerContext* ctx, const gpb::RevokeAppealRequest* req,
                            gpb::RevokeAppealResponse* resp) override;
  // Guardian's `action {action, reason}` (its REST body is `action`):
  // Sluice's `action` and `reason`.
  grpc::Status UpdateApproval(grpc::ServerContext* ctx, const gpb::UpdateApprovalRequest* req,
                              gpb::UpdateApprovalResponse* resp) override;

 private:
  Handlers h_;
};

}  // namespace sluice::access::guardian

#endif  // SLUICE_SERVER_ACCESS_GUARDIAN_GUARDIAN_SERVICE_H_
