// sluice.slack.v1.SlackInteractionService (proto/sluice/slack/v1): the
// gateway's /slack/interactions calls it with Slack's request as received.
#ifndef SLUICE_SERVER_SLACK_GRPC_SERVICE_H_
#define SLUICE_SERVER_SLACK_GRPC_SERVICE_H_

#include "common/auth/authenticator.h"
#include "proto/sluice/slack/v1/interactions.grpc.pb.h"
#include "server/slack/interactions.h"

namespace sluice::slack {

class SlackInteractionGrpcService final : public v1::SlackInteractionService::Service {
 public:
  // Borrowed; both outlive the service.
  SlackInteractionGrpcService(const auth::Authenticator* auth, SlackInteractions* interactions)
      : auth_(auth), interactions_(interactions) {}

  // The hop proof only (no caller identity: Slack's signature authenticates
  // the request), then SlackInteractions::Handle under the server's call
  // deadline; its errors as gRPC codes.
  grpc::Status HandleInteraction(grpc::ServerContext* ctx, const v1::HandleInteractionRequest* req,
                                 v1::HandleInteractionResponse* resp) override;

 private:
  const auth::Authenticator* auth_;
  SlackInteractions* interactions_;
};

}  // namespace sluice::slack

#endif  // SLUICE_SERVER_SLACK_GRPC_SERVICE_H_
