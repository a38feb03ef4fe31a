#include "server/access/api/appeal_services.h"

#include "common/grpc_util.h"

namespace sluice::access {
namespace {

std::vector<std::string> Pick(const google::protobuf::RepeatedPtrField<std::string>& body,
                              const google::protobuf::RepeatedPtrField<std::string>& query) {
  const auto& src = body.empty() ? query : body;  // body fields win
  return {src.begin(), src.end()};
}

}  // namespace

grpc::Status AppealGrpcService::CreateAppeal(grpc::ServerContext* ctx,
                                             const v1beta1::CreateAppealRequest* req,
                                             v1beta1::CreateAppealResponse* resp) {
  return Guarded("AppealService/CreateAppeal", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    auto appeals = appeals_->Create(*req, *caller);
    if (!appeals.ok()) return appeals.status();
    for (auto& a : *appeals) *resp->add_appeals() = std::move(a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::ListAppeals(grpc::ServerContext*,
                                            const v1beta1::ListAppealsRequest* req,
                                            v1beta1::ListAppealsResponse* resp) {
  return Guarded("AppealService/ListAppeals", [&]() -> absl::Status {
    int total = 0;
    auto appeals = appeals_->List(*req, "", &total);
    if (!appeals.ok()) return appeals.status();
    for (auto& a : *appeals) *resp->add_appeals() = std::move(a);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::ListUserAppeals(grpc::ServerContext* ctx,
                                                const v1beta1::ListAppealsRequest* req,
                                                v1beta1::ListAppealsResponse* resp) {
  return Guarded("AppealService/ListUserAppeals", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    int total = 0;
    auto appeals = appeals_->List(*req, *caller, &total);
    if (!appeals.ok()) return appeals.status();
    for (auto& a : *appeals) *resp->add_appeals() = std::move(a);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::GetAppeal(grpc::ServerContext*,
                                          const v1beta1::GetAppealRequest* req,
                                          v1beta1::GetAppealResponse* resp) {
  return Guarded("AppealService/GetAppeal", [&]() -> absl::Status {
    auto a = appeals_->Get(req->id());
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::CancelAppeal(grpc::ServerContext* ctx,
                                             const v1beta1::CancelAppealRequest* req,
                                             v1beta1::CancelAppealResponse* resp) {
  return Guarded("AppealService/CancelAppeal", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    auto a = appeals_->Cancel(req->id(), *caller);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::RevokeAppeal(grpc::ServerContext* ctx,
                                             const v1beta1::RevokeAppealRequest* req,
                                             v1beta1::RevokeAppealResponse* resp) {
  return Guarded("AppealService/RevokeAppeal", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    auto a = appeals_->Revoke(req->id(), *caller, req->reason());
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::RevokeAppeals(grpc::ServerContext* ctx,
                                              const v1beta1::RevokeAppealsRequest* req,
                                              v1beta1::RevokeAppealsResponse* resp) {
  return Guarded("AppealService/RevokeAppeals", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    const auto& b = req->body();
    GrantSelector s;
    s.account_ids = Pick(b.account_ids(), req->account_ids());
    s.provider_types = Pick(b.provider_types(), req->provider_types());
    s.provider_urns = Pick(b.provider_urns(), req->provider_urns());
    s.resource_types = Pick(b.resource_types(), req->resource_types());
    s.resource_urns = Pick(b.resource_urns(), req->resource_urns());
    std::string reason = b.reason().empty() ? req->reason() : b.reason();
    auto appeals = appeals_->RevokeMany(s, *caller, reason);
    if (!appeals.ok()) return appeals.status();
    for (auto& a : *appeals) *resp->add_appeals() = std::move(a);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::UpdateApproval(grpc::ServerContext* ctx,
                                                 const v1beta1::UpdateApprovalRequest* req,
                                                 v1beta1::UpdateApprovalResponse* resp) {
  return Guarded("ApprovalService/UpdateApproval", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    auto a = appeals_->Act(req->id(), req->approval_name(), req->action(), *caller, req->reason());
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::ListApprovals(grpc::ServerContext*,
                                                const v1beta1::ListApprovalsRequest* req,
                                                v1beta1::ListApprovalsResponse* resp) {
  return Guarded("ApprovalService/ListApprovals", [&]() -> absl::Status {
    int total = 0;
    auto list = appeals_->ListApprovals(*req, "", &total);
    if (!list.ok()) return list.status();
    for (auto& a : *list) *resp->add_approvals() = std::move(a);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::ListUserApprovals(grpc::ServerContext* ctx,
                                                    const v1beta1::ListApprovalsRequest* req,
                                                    v1beta1::ListApprovalsResponse* resp) {
  return Guarded("ApprovalService/ListUserApprovals", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    int total = 0;
    auto list = appeals_->ListApprovals(*req, *caller, &total);
    if (!list.ok()) return list.status();
    for (auto& a : *list) *resp->add_approvals() = std::move(a);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::AddApprover(grpc::ServerContext* ctx,
                                              const v1beta1::AddApproverRequest* req,
                                              v1beta1::AddApproverResponse* resp) {
  return Guarded("ApprovalService/AddApprover", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    auto a = appeals_->AddApprover(req->appeal_id(), req->approval_id(), req->email(), *caller);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::DeleteApprover(grpc::ServerContext* ctx,
                                                 const v1beta1::DeleteApproverRequest* req,
                                                 v1beta1::DeleteApproverResponse* resp) {
  return Guarded("ApprovalService/DeleteApprover", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    auto a = appeals_->DeleteApprover(req->appeal_id(), req->approval_id(), req->email(), *caller);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::ListGrants(grpc::ServerContext* ctx,
                                          const v1beta1::ListGrantsRequest* req,
                                          v1beta1::ListGrantsResponse* resp) {
  return Guarded("GrantService/ListGrants", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    int total = 0;
    auto grants = appeals_->ListGrants(*req, &total);
    if (!grants.ok()) return grants.status();
    for (auto& g : *grants) *resp->add_grants() = std::move(g);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::GetGrant(grpc::ServerContext* ctx,
                                        const v1beta1::GetGrantRequest* req,
                                        v1beta1::GetGrantResponse* resp) {
  return Guarded("GrantService/GetGrant", [&]() -> absl::Status {
    auto caller = RequireCallerEmail(*ctx);
    if (!caller.ok()) return caller.status();
    auto g = appeals_->GetGrant(req->id());
    if (!g.ok()) return g.status();
    *resp->mutable_grant() = std::move(*g);
    return absl::OkStatus();
  });
}

}  // namespace sluice::access
