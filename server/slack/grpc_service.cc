#include "server/slack/grpc_service.h"

#include <algorithm>

#include "common/deadline.h"
#include "common/grpc_util.h"

namespace sluice::slack {

grpc::Status SlackInteractionGrpcService::HandleInteraction(
    grpc::ServerContext* ctx, const v1::HandleInteractionRequest* req,
    v1::HandleInteractionResponse* resp) {
  CallDeadlineScope deadline(
      std::min(absl::FromChrono(ctx->deadline()), absl::Now() + auth_->call_deadline()));
  return Guarded("sluice.slack.v1.SlackInteractionService/HandleInteraction",
                 [&]() -> absl::Status {
                   if (auto st = auth_->AuthenticateHop(*ctx); !st.ok()) return st;
                   auto answer = interactions_->Handle(req->body(), req->timestamp(),
                                                       req->signature());
                   if (!answer.ok()) return answer.status();
                   resp->set_response_json(*answer);
                   return absl::OkStatus();
                 });
}

}  // namespace sluice::slack
