// gRPC handlers of the access API, part 2: appeals, approvals, grants.
#ifndef SLUICE_SERVER_ACCESS_API_APPEAL_SERVICES_H_
#define SLUICE_SERVER_ACCESS_API_APPEAL_SERVICES_H_

#include "server/access/api/api_auth.h"
#include "proto/sluice/access/v1beta1/appeal.grpc.pb.h"
#include "server/access/core/activity/activity_service.h"
#include "server/access/core/appeal/appeal_service.h"
#include "server/access/core/approval/approval_service.h"
#include "server/access/core/grant/grant_service.h"
#include "server/access/core/reconcile/reconcile_service.h"

namespace sluice::access {

// Every handler authenticates the call (WithCaller); see api_auth.h and the
// README's "Security model" for what each role may do.

class AppealGrpcService final : public v1beta1::AppealService::Service {
 public:
  // RevokeAppeals (bulk) revokes through `grants`; the provider activity
  // routes use `activities` (access admins only).
  AppealGrpcService(AppealService* appeals, GrantService* grants, ActivityService* activities,
                    ApiAuth auth)
      : appeals_(appeals), grants_(grants), activities_(activities), auth_(auth) {}
  grpc::Status CreateAppeal(grpc::ServerContext* ctx, const v1beta1::CreateAppealRequest* req,
                            v1beta1::CreateAppealResponse* resp) override;
  grpc::Status ListAppeals(grpc::ServerContext* ctx, const v1beta1::ListAppealsRequest* req,
                           v1beta1::ListAppealsResponse* resp) override;
  grpc::Status ListUserAppeals(grpc::ServerContext* ctx, const v1beta1::ListAppealsRequest* req,
                               v1beta1::ListAppealsResponse* resp) override;
  grpc::Status GetAppeal(grpc::ServerContext* ctx, const v1beta1::GetAppealRequest* req,
                         v1beta1::GetAppealResponse* resp) override;
  grpc::Status CancelAppeal(grpc::ServerContext* ctx, const v1beta1::CancelAppealRequest* req,
                            v1beta1::CancelAppealResponse* resp) override;
  grpc::Status RevokeAppeal(grpc::ServerContext* ctx, const v1beta1::RevokeAppealRequest* req,
                            v1beta1::RevokeAppealResponse* resp) override;
  grpc::Status RevokeAppeals(grpc::ServerContext* ctx, const v1beta1::RevokeAppealsRequest* req,
                             v1beta1::RevokeAppealsResponse* resp) override;
  // Issue 28 (appeal_routes.cc): patch, comments, activities, and the
  // UNIMPLEMENTED relabel route.
  grpc::Status PatchAppeal(grpc::ServerContext* ctx, const v1beta1::PatchAppealRequest* req,
                           v1beta1::PatchAppealResponse* resp) override;
  grpc::Status ListAppealComments(grpc::ServerContext* ctx,
                                  const v1beta1::ListAppealCommentsRequest* req,
                                  v1beta1::ListAppealCommentsResponse* resp) override;
  grpc::Status CreateAppealComment(grpc::ServerContext* ctx,
                                   const v1beta1::CreateAppealCommentRequest* req,
                                   v1beta1::CreateAppealCommentResponse* resp) override;
  grpc::Status RelabelAppeal(grpc::ServerContext* ctx, const v1beta1::RelabelAppealRequest* req,
                             v1beta1::RelabelAppealResponse* resp) override;
  grpc::Status ListAppealActivities(grpc::ServerContext* ctx,
                                    const v1beta1::ListAppealActivitiesRequest* req,
                                    v1beta1::ListAppealActivitiesResponse* resp) override;
  grpc::Status ImportActivities(grpc::ServerContext* ctx,
                                const v1beta1::ImportActivitiesRequest* req,
                                v1beta1::ImportActivitiesResponse* resp) override;
  grpc::Status GetActivity(grpc::ServerContext* ctx, const v1beta1::GetActivityRequest* req,
                           v1beta1::GetActivityResponse* resp) override;
  grpc::Status ListActivities(grpc::ServerContext* ctx, const v1beta1::ListActivitiesRequest* req,
                              v1beta1::ListActivitiesResponse* resp) override;

 private:
  AppealService* appeals_;
  GrantService* grants_;
  ActivityService* activities_;
  ApiAuth auth_;
};

class ApprovalGrpcService final : public v1beta1::ApprovalService::Service {
 public:
  ApprovalGrpcService(ApprovalService* approvals, ApiAuth auth)
      : approvals_(approvals), auth_(auth) {}
  grpc::Status UpdateApproval(grpc::ServerContext* ctx, const v1beta1::UpdateApprovalRequest* req,
                              v1beta1::UpdateApprovalResponse* resp) override;
  grpc::Status ListApprovals(grpc::ServerContext* ctx, const v1beta1::ListApprovalsRequest* req,
                             v1beta1::ListApprovalsResponse* resp) override;
  grpc::Status ListUserApprovals(grpc::ServerContext* ctx,
                                 const v1beta1::ListApprovalsRequest* req,
                                 v1beta1::ListApprovalsResponse* resp) override;
  grpc::Status AddApprover(grpc::ServerContext* ctx, const v1beta1::AddApproverRequest* req,
                           v1beta1::AddApproverResponse* resp) override;
  grpc::Status DeleteApprover(grpc::ServerContext* ctx, const v1beta1::DeleteApproverRequest* req,
                              v1beta1::DeleteApproverResponse* resp) override;
  // Issue 28 (appeal_routes.cc): admins only.
  grpc::Status AddApprovalStep(grpc::ServerContext* ctx, const v1beta1::AddApprovalStepRequest* req,
                               v1beta1::AddApprovalStepResponse* resp) override;
  grpc::Status UpdateApprovalStep(grpc::ServerContext* ctx,
                                  const v1beta1::UpdateApprovalStepRequest* req,
                                  v1beta1::UpdateApprovalStepResponse* resp) override;
  grpc::Status GenerateUserApprovalSummaries(
      grpc::ServerContext* ctx, const v1beta1::GenerateApprovalSummariesRequest* req,
      v1beta1::GenerateApprovalSummariesResponse* resp) override;
  grpc::Status GenerateApprovalSummaries(grpc::ServerContext* ctx,
                                         const v1beta1::GenerateApprovalSummariesRequest* req,
                                         v1beta1::GenerateApprovalSummariesResponse* resp) override;

 private:
  ApprovalService* approvals_;
  ApiAuth auth_;
};

class GrantGrpcService final : public v1beta1::GrantService::Service {
 public:
  // ReconcileGrants runs `reconcile`'s job on demand.
  GrantGrpcService(GrantService* grants, ReconcileService* reconcile, ApiAuth auth)
      : grants_(grants), reconcile_(reconcile), auth_(auth) {}
  grpc::Status ListGrants(grpc::ServerContext* ctx, const v1beta1::ListGrantsRequest* req,
                          v1beta1::ListGrantsResponse* resp) override;
  grpc::Status GetGrant(grpc::ServerContext* ctx, const v1beta1::GetGrantRequest* req,
                        v1beta1::GetGrantResponse* resp) override;
  grpc::Status ReconcileGrants(grpc::ServerContext* ctx, const v1beta1::ReconcileGrantsRequest* req,
                               v1beta1::ReconcileGrantsResponse* resp) override;
  // The grant lifecycle routes (grant_services.cc); see appeal.proto.
  grpc::Status ListUserGrants(grpc::ServerContext* ctx, const v1beta1::ListGrantsRequest* req,
                              v1beta1::ListGrantsResponse* resp) override;
  grpc::Status UpdateGrant(grpc::ServerContext* ctx, const v1beta1::UpdateGrantRequest* req,
                           v1beta1::UpdateGrantResponse* resp) override;
  grpc::Status RevokeGrant(grpc::ServerContext* ctx, const v1beta1::RevokeGrantRequest* req,
                           v1beta1::RevokeGrantResponse* resp) override;
  grpc::Status RevokeGrants(grpc::ServerContext* ctx, const v1beta1::RevokeGrantsRequest* req,
                            v1beta1::RevokeGrantsResponse* resp) override;
  grpc::Status RestoreGrant(grpc::ServerContext* ctx, const v1beta1::RestoreGrantRequest* req,
                            v1beta1::RestoreGrantResponse* resp) override;
  grpc::Status ImportGrants(grpc::ServerContext* ctx, const v1beta1::ImportGrantsRequest* req,
                            v1beta1::ImportGrantsResponse* resp) override;
  // Issue 28 (appeal_routes.cc).
  grpc::Status ListUserRoles(grpc::ServerContext* ctx, const v1beta1::ListUserRolesRequest* req,
                             v1beta1::ListUserRolesResponse* resp) override;
  grpc::Status ImportGrantsFromProvider(grpc::ServerContext* ctx,
                                        const v1beta1::ImportGrantsFromProviderRequest* req,
                                        v1beta1::ImportGrantsFromProviderResponse* resp) override;

 private:
  GrantService* grants_;
  ReconcileService* reconcile_;
  ApiAuth auth_;
};

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_API_APPEAL_SERVICES_H_
