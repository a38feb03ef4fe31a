#include "server/access/guardian/guardian_service.h"

#include "server/access/guardian/bridge.h"

namespace sluice::access::guardian {

#define SLUICE_GUARDIAN_DEFINE(member, rpc)                                                \
  grpc::Status GuardianGrpcService::rpc(grpc::ServerContext* ctx, const gpb::rpc##Request* req, \
                                        gpb::rpc##Response* resp) {                        \
    return Bridge(h_.member, &std::remove_pointer_t<decltype(h_.member)>::rpc, ctx, req, resp); \
  }
SLUICE_GUARDIAN_RPCS(SLUICE_GUARDIAN_DEFINE)
#undef SLUICE_GUARDIAN_DEFINE

grpc::Status GuardianGrpcService::RevokeAppeal(grpc::ServerContext* ctx,
                                               const gpb::RevokeAppealRequest* req,
                                               gpb::RevokeAppealResponse* resp) {
  gpb::RevokeAppealRequest rest = *req;
  rest.clear_reason();
  return Bridge(h_.appeal, &AppealGrpcService::RevokeAppeal, ctx, &rest, resp,
                [req](v1beta1::RevokeAppealRequest* s) { s->set_reason(req->reason().reason()); });
}

grpc::Status GuardianGrpcService::UpdateApproval(grpc::ServerContext* ctx,
                                                 const gpb::UpdateApprovalRequest* req,
                                                 gpb::UpdateApprovalResponse* resp) {
  gpb::UpdateApprovalRequest rest = *req;
  rest.clear_action();
  return Bridge(h_.approval, &ApprovalGrpcService::UpdateApproval, ctx, &rest, resp,
                [req](v1beta1::UpdateApprovalRequest* s) {
                  s->set_action(req->action().action());
                  s->set_reason(req->action().reason());
                });
}

}  // namespace sluice::access::guardian
