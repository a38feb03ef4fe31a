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

}  // namespace sluice::access::guardian
