#include "server/server_service.h"

#include "absl/strings/str_cat.h"
#include "common/grpc_util.h"

namespace sluice::server {

ServerServiceImpl::ServerServiceImpl(absl::Time started_at, std::vector<std::string> services,
                                     const auth::Authenticator* auth)
    : started_at_(started_at), services_(std::move(services)), auth_(auth) {}

grpc::Status ServerServiceImpl::GetServerInfo(grpc::ServerContext* context,
                                              const v1beta1::GetServerInfoRequest*,
                                              v1beta1::GetServerInfoResponse* response) {
  return auth::WithCaller(*auth_, context, "ServerService/GetServerInfo",
                          [&](const auth::Caller& caller) -> absl::Status {
    response->set_version(kVersion);
    response->mutable_started_at()->set_seconds(absl::ToUnixSeconds(started_at_));
    response->set_caller_email(caller.identity);
    for (const auto& s : services_) response->add_services(s);
    return absl::OkStatus();
  });
}

grpc::Status ServerServiceImpl::Echo(grpc::ServerContext* context,
                                     const v1beta1::EchoRequest* request,
                                     v1beta1::EchoResponse* response) {
  return auth::WithCaller(*auth_, context, "ServerService/Echo",
                          [&](const auth::Caller& caller) -> absl::Status {
    if (request->message().size() > 4096) {
      return absl::InvalidArgumentError(
          absl::StrCat("message: must be at most 4096 bytes, got ", request->message().size()));
    }
    response->set_message(request->message());
    response->set_caller_email(caller.identity);
    return absl::OkStatus();
  });
}

}  // namespace sluice::server
