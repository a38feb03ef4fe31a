// gRPC handlers of issue 28's appeal and grant routes: PatchAppeal (its
// creator, checked by the core), appeal comments (whoever may read the
// appeal, checked by the core), ListUserRoles (the caller's own grants),
// ImportGrantsFromProvider (access admins), appeal activities (whoever may
// read the appeal), provider activities (access admins), and relabel, which
// Sluice answers with UNIMPLEMENTED (after authentication).
#include <string>
#include <vector>

#include "server/access/api/appeal_services.h"

namespace sluice::access {
namespace {

using auth::Caller;
using auth::WithCaller;

// Microseconds of `ts` for a filter bound (0 = unbounded, as an unset one).
int64_t Micros(const google::protobuf::Timestamp& ts) {
  return ts.seconds() * 1000000 + ts.nanos() / 1000;
}

}  // namespace

grpc::Status AppealGrpcService::PatchAppeal(grpc::ServerContext* ctx,
                                            const v1beta1::PatchAppealRequest* req,
                                            v1beta1::PatchAppealResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/PatchAppeal",
                    [&](const Caller& caller) -> absl::Status {
    auto a = appeals_->Patch(*req, caller.identity);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::ListAppealComments(grpc::ServerContext* ctx,
                                                   const v1beta1::ListAppealCommentsRequest* req,
                                                   v1beta1::ListAppealCommentsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/ListAppealComments",
                    [&](const Caller& caller) -> absl::Status {
    std::vector<std::string> order_by(req->order_by().begin(), req->order_by().end());
    auto comments = appeals_->ListComments(req->appeal_id(), order_by, auth_.ActorOf(caller));
    if (!comments.ok()) return comments.status();
    for (auto& c : *comments) *resp->add_comments() = std::move(c);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::CreateAppealComment(grpc::ServerContext* ctx,
                                                    const v1beta1::CreateAppealCommentRequest* req,
                                                    v1beta1::CreateAppealCommentResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/CreateAppealComment",
                    [&](const Caller& caller) -> absl::Status {
    auto c = appeals_->CreateComment(req->appeal_id(), req->body(), auth_.ActorOf(caller));
    if (!c.ok()) return c.status();
    *resp->mutable_comment() = std::move(*c);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::RelabelAppeal(grpc::ServerContext* ctx,
                                              const v1beta1::RelabelAppealRequest*,
                                              v1beta1::RelabelAppealResponse*) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/RelabelAppeal",
                    [&](const Caller&) -> absl::Status {
    return absl::UnimplementedError(
        "appeal relabeling is not implemented in Sluice: policies have no labeling rules "
        "(Guardian's appeal.labeling_rules), so an appeal keeps the labels it was created "
        "with. To change what an appeal asks for, patch it (PATCH /api/v1beta1/appeals/{id})");
  });
}

grpc::Status AppealGrpcService::ListAppealActivities(
    grpc::ServerContext* ctx, const v1beta1::ListAppealActivitiesRequest* req,
    v1beta1::ListAppealActivitiesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/ListAppealActivities",
                    [&](const Caller& caller) -> absl::Status {
    auto activities = appeals_->ListActivities(req->appeal_id(), auth_.ActorOf(caller));
    if (!activities.ok()) return activities.status();
    for (auto& a : *activities) *resp->add_activities() = std::move(a);
    return absl::OkStatus();
  });
}

// The provider activity routes are for access admins: an activity names
// another account and what it did in the provider (Guardian leaves the
// decision to its proxy; README "Security model").
grpc::Status AppealGrpcService::ImportActivities(grpc::ServerContext* ctx,
                                                 const v1beta1::ImportActivitiesRequest* req,
                                                 v1beta1::ImportActivitiesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/ImportActivities",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "import activities"); !st.ok()) return st;
    auto got = activities_->Import(*req);
    if (!got.ok()) return got.status();
    for (auto& a : *got) *resp->add_activities() = std::move(a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::GetActivity(grpc::ServerContext* ctx,
                                            const v1beta1::GetActivityRequest* req,
                                            v1beta1::GetActivityResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/GetActivity",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "read activities"); !st.ok()) return st;
    auto a = activities_->Get(req->id());
    if (!a.ok()) return a.status();
    *resp->mutable_activity() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status AppealGrpcService::ListActivities(grpc::ServerContext* ctx,
                                               const v1beta1::ListActivitiesRequest* req,
                                               v1beta1::ListActivitiesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "AppealService/ListActivities",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "list activities"); !st.ok()) return st;
    ActivityFilter f;
    f.provider_ids.assign(req->provider_ids().begin(), req->provider_ids().end());
    f.account_ids.assign(req->account_ids().begin(), req->account_ids().end());
    f.resource_ids.assign(req->resource_ids().begin(), req->resource_ids().end());
    f.types.assign(req->types().begin(), req->types().end());
    f.timestamp.start_micros = Micros(req->timestamp_gte());
    f.timestamp.end_micros = Micros(req->timestamp_lte());
    auto got = activities_->List(f);
    if (!got.ok()) return got.status();
    for (auto& a : *got) *resp->add_activities() = std::move(a);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::ListUserRoles(grpc::ServerContext* ctx,
                                             const v1beta1::ListUserRolesRequest*,
                                             v1beta1::ListUserRolesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/ListUserRoles",
                    [&](const Caller& caller) -> absl::Status {
    auto roles = grants_->ListUserRoles(caller.identity);
    if (!roles.ok()) return roles.status();
    for (auto& r : *roles) resp->add_roles(std::move(r));
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::ImportGrantsFromProvider(
    grpc::ServerContext* ctx, const v1beta1::ImportGrantsFromProviderRequest* req,
    v1beta1::ImportGrantsFromProviderResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/ImportGrantsFromProvider",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "import grants"); !st.ok()) return st;
    if (req->provider_id().empty()) return absl::InvalidArgumentError("provider_id: required");
    // The same import as POST /providers/{id}/import, applied (Guardian's
    // ImportGrantsFromProvider has no dry run).
    ImportCriteria criteria;
    criteria.provider_id = req->provider_id();
    criteria.resource_ids.assign(req->resource_ids().begin(), req->resource_ids().end());
    criteria.resource_types.assign(req->resource_types().begin(), req->resource_types().end());
    criteria.resource_urns.assign(req->resource_urns().begin(), req->resource_urns().end());
    auto result = grants_->ImportGrants(criteria, /*apply=*/true, caller.identity);
    if (!result.ok()) return result.status();
    for (auto& g : result->grants) *resp->add_grants() = std::move(g);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::AddApprovalStep(grpc::ServerContext* ctx,
                                                  const v1beta1::AddApprovalStepRequest* req,
                                                  v1beta1::AddApprovalStepResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/AddApprovalStep",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "add approval steps"); !st.ok()) return st;
    auto a = approvals_->AddApprovalSteps(req->appeal_id(), req->steps(), caller.identity);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::UpdateApprovalStep(
    grpc::ServerContext* ctx, const v1beta1::UpdateApprovalStepRequest* req,
    v1beta1::UpdateApprovalStepResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/UpdateApprovalStep",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "update approval steps"); !st.ok()) return st;
    auto a = approvals_->UpdateApprovalStep(req->appeal_id(), req->approval_id(),
                                            req->has_details() ? &req->details() : nullptr,
                                            caller.identity);
    if (!a.ok()) return a.status();
    *resp->mutable_appeal() = std::move(*a);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::GenerateUserApprovalSummaries(
    grpc::ServerContext* ctx, const v1beta1::GenerateApprovalSummariesRequest* req,
    v1beta1::GenerateApprovalSummariesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/GenerateUserApprovalSummaries",
                    [&](const Caller& caller) -> absl::Status {
    auto items = approvals_->SummarizeApprovals(req->summary_items(), caller.identity);
    if (!items.ok()) return items.status();
    *resp->mutable_summary_items() = std::move(*items);
    return absl::OkStatus();
  });
}

grpc::Status ApprovalGrpcService::GenerateApprovalSummaries(
    grpc::ServerContext* ctx, const v1beta1::GenerateApprovalSummariesRequest* req,
    v1beta1::GenerateApprovalSummariesResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "ApprovalService/GenerateApprovalSummaries",
                    [&](const Caller& caller) -> absl::Status {
    // As ListApprovals: admins summarize every approval, anyone else their own.
    Actor actor = auth_.ActorOf(caller);
    auto items = approvals_->SummarizeApprovals(req->summary_items(),
                                                actor.admin ? "" : actor.identity);
    if (!items.ok()) return items.status();
    *resp->mutable_summary_items() = std::move(*items);
    return absl::OkStatus();
  });
}

}  // namespace sluice::access
