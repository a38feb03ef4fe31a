// gRPC handlers of the grant lifecycle routes (GrantService: /me/grants,
// update, revoke, bulk revoke, restore, import). Authorization: update,
// revoke and restore are checked by the core against the grant's owner
// (restore also against who revoked it, its expiration and, for a new
// expiration_date, admin rights and the duration cap: security review
// F-H1); bulk revoke and import need an access admin.
#include <optional>

#include "server/access/api/appeal_services.h"
#include "server/access/api/filters.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

using auth::Caller;
using auth::WithCaller;

}  // namespace

grpc::Status GrantGrpcService::ListUserGrants(grpc::ServerContext* ctx,
                                              const v1beta1::ListGrantsRequest* req,
                                              v1beta1::ListGrantsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/ListUserGrants",
                    [&](const Caller& caller) -> absl::Status {
    // Guardian's ListUserGrants: the grants the caller owns (the request's
    // owner and created_by are ignored).
    auto filter = GrantFilterOf(*req);
    if (!filter.ok()) return filter.status();
    filter->owners.clear();
    filter->owner = caller.identity;
    int total = 0;
    auto grants = grants_->ListGrants(*filter, &total);
    if (!grants.ok()) return grants.status();
    for (auto& g : *grants) *resp->add_grants() = std::move(g);
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::UpdateGrant(grpc::ServerContext* ctx,
                                           const v1beta1::UpdateGrantRequest* req,
                                           v1beta1::UpdateGrantResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/UpdateGrant",
                    [&](const Caller& caller) -> absl::Status {
    std::optional<absl::Time> expiration;
    if (req->has_expiration_date()) expiration = FromTimestamp(req->expiration_date());
    auto g = grants_->UpdateGrant(req->id(), req->owner(), expiration,
                                  req->expiration_date_reason(), auth_.ActorOf(caller));
    if (!g.ok()) return g.status();
    *resp->mutable_grant() = std::move(*g);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::RevokeGrant(grpc::ServerContext* ctx,
                                           const v1beta1::RevokeGrantRequest* req,
                                           v1beta1::RevokeGrantResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/RevokeGrant",
                    [&](const Caller& caller) -> absl::Status {
    RevokeOptions opts;
    opts.skip_notification = req->skip_notification();
    opts.skip_revoke_in_provider = req->skip_revoke_in_provider();
    auto g = grants_->RevokeGrant(req->id(), auth_.ActorOf(caller), req->reason(), opts);
    if (!g.ok()) return g.status();
    *resp->mutable_grant() = std::move(*g);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::RevokeGrants(grpc::ServerContext* ctx,
                                            const v1beta1::RevokeGrantsRequest* req,
                                            v1beta1::RevokeGrantsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/RevokeGrants",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "bulk-revoke grants"); !st.ok()) return st;
    auto result = grants_->RevokeGrants(GrantSelectorOf(*req), caller.identity, req->reason());
    if (!result.ok()) return result.status();
    for (auto& g : result->grants) *resp->add_grants() = std::move(g);
    for (auto& f : result->failed) *resp->add_failed() = std::move(f);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::RestoreGrant(grpc::ServerContext* ctx,
                                            const v1beta1::RestoreGrantRequest* req,
                                            v1beta1::RestoreGrantResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/RestoreGrant",
                    [&](const Caller& caller) -> absl::Status {
    // Only an admin may pass one; the core refuses it for anyone else
    // (PermissionDenied naming expiration_date) and caps an admin's.
    std::optional<absl::Time> expiration;
    if (req->has_expiration_date()) expiration = FromTimestamp(req->expiration_date());
    auto g = grants_->RestoreGrant(req->id(), auth_.ActorOf(caller), req->reason(), expiration);
    if (!g.ok()) return g.status();
    *resp->mutable_grant() = std::move(*g);
    return absl::OkStatus();
  });
}

grpc::Status GrantGrpcService::ImportGrants(grpc::ServerContext* ctx,
                                            const v1beta1::ImportGrantsRequest* req,
                                            v1beta1::ImportGrantsResponse* resp) {
  return WithCaller(*auth_.authenticator, ctx, "GrantService/ImportGrants",
                    [&](const Caller& caller) -> absl::Status {
    if (auto st = auth_.RequireAdmin(caller, "import grants"); !st.ok()) return st;
    auto result = grants_->ImportGrants(ImportCriteriaOf(*req), req->apply(), caller.identity);
    if (!result.ok()) return result.status();
    for (auto& g : result->grants) *resp->add_grants() = std::move(g);
    for (auto& g : result->drift) *resp->add_drift() = std::move(g);
    resp->set_unchanged(result->unchanged);
    resp->set_applied(result->applied);
    return absl::OkStatus();
  });
}

}  // namespace sluice::access
