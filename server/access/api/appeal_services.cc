#include "server/access/api/appeal_services.h"

#include "common/grpc_util.h"
#include "server/access/api/filters.h"

namespace sluice::access {
namespace {

using auth::Caller;
using auth::WithCaller;

}  // namespace

grpc::Status AppealGrpcService::CreateAppeal(grpc::ServerContext* ctx,
                                             const v1beta1::CreateAppealRequest* req,
                                             v1beta1::CreateAppealResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/CreateAppeal",
                    [&](const Caller& caller) -> absl::Status {
    auto appeals = appeals_->Create(*req, caller.identity);
    if (!appeals.ok()) return appeals.status();
    for (auto& a : *appeals) *resp->add_appeals() = std::move(a);
    resp->set_dry_run(req->dry_run());
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::ListAppeals(grpc::ServerContext* ctx,
                                            const v1beta1::ListAppealsRequest* req,
                                            v1beta1::ListAppealsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/ListAppeals",
                    [&](const Caller& caller) -> absl::Status {
    // Admins (and everyone under access.read_scope: all) list everything;
    // anyone else what they created, requested or approve.
    int total = 0;
    auto filter = AppealFilterOf(*req, auth_.max_page_size);
    if (!filter.ok()) return filter.status();
    if (auth_.NarrowReads(caller)) filter->visible_to = caller.identity;
    auto appeals = appeals_->List(*filter, &total);
    if (!appeals.ok()) return appeals.status();
    for (auto& a : *appeals) *resp->add_appeals() = std::move(a);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::ListUserAppeals(grpc::ServerContext* ctx,
                                                const v1beta1::ListAppealsRequest* req,
                                                v1beta1::ListAppealsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/ListUserAppeals",
                    [&](const Caller& caller) -> absl::Status {
    int total = 0;
    auto filter = AppealFilterOf(*req, auth_.max_page_size);
    if (!filter.ok()) return filter.status();
    filter->created_by = caller.identity;
    auto appeals = appeals_->List(*filter, &total);
    if (!appeals.ok()) return appeals.status();
    for (auto& a : *appeals) *resp->add_appeals() = std::move(a);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::GetAppeal(grpc::ServerContext* ctx,
                                          const v1beta1::GetAppealRequest* req,
                                          v1beta1::GetAppealResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/GetAppeal",
                    [&](const Caller& caller) -> absl::Status {
    auto a = appeals_->GetFor(req->id(), auth_.ReaderOf(caller));
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::CancelAppeal(grpc::ServerContext* ctx,
                                             const v1beta1::CancelAppealRequest* req,
                                             v1beta1::CancelAppealResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/CancelAppeal",
                    [&](const Caller& caller) -> absl::Status {
    auto a = appeals_->Cancel(req->id(), caller.identity);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::RevokeAppeal(grpc::ServerContext* ctx,
                                             const v1beta1::RevokeAppealRequest* req,
                                             v1beta1::RevokeAppealResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/RevokeAppeal",
                    [&](const Caller& caller) -> absl::Status {
    auto a = appeals_->Revoke(req->id(), auth_.ActorOf(caller), req->reason());
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::RevokeAppeals(grpc::ServerContext* ctx,
                                              const v1beta1::RevokeAppealsRequest* req,
                                              v1beta1::RevokeAppealsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/RevokeAppeals",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "bulk-revoke grants"); !st.ok()) return st;
    const auto& b = req->body();
    std::string reason = b.reason().empty() ? req->reason() : b.reason();
    auto result = grants_->RevokeMany(GrantSelectorOf(*req), caller.identity, reason);
    if (!result.ok()) return result.status();
    for (auto& a : result->revoked) *resp->add_appeals() = std::move(a);
    for (auto& f : result->failed) *resp->add_failed() = std::move(f);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::UpdateApproval(grpc::ServerContext* ctx,
                                                 const v1beta1::UpdateApprovalRequest* req,
                                                 v1beta1::UpdateApprovalResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/UpdateApproval",
                    [&](const Caller& caller) -> absl::Status {
    auto a = approvals_->Act(req->id(), req->approval_name(), req->action(), caller.identity,
                             req->reason());
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::ListApprovals(grpc::ServerContext* ctx,
                                                const v1beta1::ListApprovalsRequest* req,
                                                v1beta1::ListApprovalsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/ListApprovals",
                    [&](const Caller& caller) -> absl::Status {
    // Admins (and everyone under access.read_scope: all) list every
    // approval; anyone else the approvals they are asked for.
    int total = 0;
    auto filter = ApprovalFilterOf(*req, auth_.max_page_size);
    if (!filter.ok()) return filter.status();
    if (auth_.NarrowReads(caller)) filter->approver = caller.identity;
    auto list = approvals_->ListApprovals(*filter, &total);
    if (!list.ok()) return list.status();
    for (auto& a : *list) *resp->add_approvals() = std::move(a);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::ListUserApprovals(grpc::ServerContext* ctx,
                                                    const v1beta1::ListApprovalsRequest* req,
                                                    v1beta1::ListApprovalsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/ListUserApprovals",
                    [&](const Caller& caller) -> absl::Status {
    int total = 0;
    auto filter = ApprovalFilterOf(*req, auth_.max_page_size);
    if (!filter.ok()) return filter.status();
    filter->approver = caller.identity;
    auto list = approvals_->ListApprovals(*filter, &total);
    if (!list.ok()) return list.status();
    for (auto& a : *list) *resp->add_approvals() = std::move(a);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::AddApprover(grpc::ServerContext* ctx,
                                              const v1beta1::AddApproverRequest* req,
                                              v1beta1::AddApproverResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/AddApprover",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "add approvers"); !st.ok()) return st;
    auto a = approvals_->AddApprover(req->appeal_id(), req->approval_id(), req->email(),
                                     caller.identity);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::DeleteApprover(grpc::ServerContext* ctx,
                                                 const v1beta1::DeleteApproverRequest* req,
                                                 v1beta1::DeleteApproverResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/DeleteApprover",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "delete approvers"); !st.ok()) return st;
    auto a = approvals_->DeleteApprover(req->appeal_id(), req->approval_id(), req->email(),
                                        caller.identity);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::ListGrants(grpc::ServerContext* ctx,
                                          const v1beta1::ListGrantsRequest* req,
                                          v1beta1::ListGrantsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/ListGrants",
                    [&](const Caller& caller) -> absl::Status {
    // Other accounts' grants only for admins and the resources' approvers
    // (everyone under access.read_scope: all).
    int total = 0;
    auto filter = GrantFilterOf(*req, auth_.max_page_size);
    if (!filter.ok()) return filter.status();
    if (auth_.NarrowReads(caller)) filter->visible_to = caller.identity;
    auto grants = grants_->ListGrants(*filter, &total);
    if (!grants.ok()) return grants.status();
    for (auto& g : *grants) *resp->add_grants() = std::move(g);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::GetGrant(grpc::ServerContext* ctx,
                                        const v1beta1::GetGrantRequest* req,
                                        v1beta1::GetGrantResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/GetGrant",
                    [&](const Caller& caller) -> absl::Status {
    auto g = grants_->GetGrant(req->id(), auth_.ReaderOf(caller));
    if (!g.ok()) return g.status();
    *resp->mutable_grant() = std::move(*g);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::ReconcileGrants(grpc::ServerContext* ctx,
                                               const v1beta1::ReconcileGrantsRequest* req,
                                               v1beta1::ReconcileGrantsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/ReconcileGrants",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "reconcile grants"); !st.ok()) return st;
    auto report = reconcile_->Reconcile(absl::Seconds(req->min_age_seconds()));
    if (!report.ok()) return report.status();
    resp->set_examined(report->examined);
    resp->set_confirmed(report->confirmed);
    resp->set_revoked(report->revoked);
    resp->set_completed(report->completed);
    resp->set_regranted(report->regranted);
    resp->set_failed(report->failed);
    for (auto& d : report->details) resp->add_details(std::move(d));
    return absl::OkStatus();
  });
}

}  // namespace sluice::access
