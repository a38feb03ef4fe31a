#include "server/fuzz/grpc_routes.h"

#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_method.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "server/access/api/appeal_services.h"
#include "server/access/api/services.h"
#include "server/notification/api/grpc_service.h"

namespace sluice::fuzz {

namespace {

// The alert hook token every hook URL accepts here.
constexpr char kHookToken[] = "fuzz-hook-token-0123456789";

const auth::AdminList& Admins() {
  static const auto* admins = new auth::AdminList{{kAdmin}, {}};
  return *admins;
}

}  // namespace

struct ServedApis::Handlers {
  Handlers(AccessWorld& a, NotificationWorld& n, const auth::Authenticator* authn)
      : api_auth{authn, &Admins()},
        policy(&a.policies, api_auth),
        provider(&a.providers, api_auth),
        resource(&a.resources, api_auth),
        appeal(&a.services.appeals(), &a.services.grants(), &a.activities, api_auth),
        approval(&a.services.approvals(), api_auth),
        grant(&a.services.grants(), &a.services.reconcile(), api_auth),
        hook_tokens{{"*", kHookToken}},
        notification(notification::api::Services{&n.receivers, &n.subscriptions, &n.templates,
                                                 &n.notifications, &n.alerts, authn, &Admins(),
                                                 &hook_tokens}) {}

  // Every service with a write route; a service missing here answers
  // UNIMPLEMENTED, which the fuzzer and request_fuzzer_test report.
  std::vector<grpc::Service*> All() {
    return {&policy, &provider, &resource, &appeal, &approval, &grant, &notification};
  }

  access::ApiAuth api_auth;
  access::PolicyGrpcService policy;
  access::ProviderGrpcService provider;
  access::ResourceGrpcService resource;
  access::AppealGrpcService appeal;
  access::ApprovalGrpcService approval;
  access::GrantGrpcService grant;
  notification::api::AlertHookTokens hook_tokens;
  notification::api::NotificationGrpcService notification;
};

ServedApis& ServedApis::Get() {
  static ServedApis* apis = new ServedApis();
  return *apis;
}

ServedApis::ServedApis()
    : access_(AccessWorld::Fresh()), notification_(NotificationWorld::Fresh()) {
  auth::AuthOptions opts;
  opts.mode = auth::AuthMode::kInsecureDev;
  auto authn = auth::Authenticator::Create(opts, /*listener_mtls=*/false, /*http=*/nullptr);
  if (!authn.ok()) {
    std::fprintf(stderr, "request fuzzer: authenticator: %s\n", authn.status().ToString().c_str());
    std::abort();
  }
  authenticator_ = *std::move(authn);
  handlers_ = std::make_unique<Handlers>(*access_, *notification_, authenticator_.get());
  grpc::ServerBuilder builder;
  for (grpc::Service* s : handlers_->All()) builder.RegisterService(s);
  services_ = {
      access::v1beta1::PolicyService::service_full_name(),
      access::v1beta1::ProviderService::service_full_name(),
      access::v1beta1::ResourceService::service_full_name(),
      access::v1beta1::AppealService::service_full_name(),
      access::v1beta1::ApprovalService::service_full_name(),
      access::v1beta1::GrantService::service_full_name(),
      notification::v1beta1::NotificationService::service_full_name(),
  };
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) {
    std::fprintf(stderr, "request fuzzer: the in-process gRPC server did not start\n");
    std::abort();
  }
  channel_ = server_->InProcessChannel(grpc::ChannelArguments());
}

grpc::Status ServedApis::Call(const WriteRoute& route, const google::protobuf::Message& request,
                              const std::string& who, google::protobuf::Message* reply) {
  AccessWorld::Renew(access_.get());
  NotificationWorld::Renew(notification_.get());
  grpc::ClientContext ctx;
  ctx.AddMetadata(authenticator_->identity_metadata(), who);
  ctx.AddMetadata("authorization", std::string("Bearer ") + kHookToken);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::internal::RpcMethod method(route.grpc_method.c_str(),
                                   grpc::internal::RpcMethod::NORMAL_RPC);
  return grpc::internal::BlockingUnaryCall<google::protobuf::Message, google::protobuf::Message>(
      channel_.get(), method, &ctx, request, reply);
}

}  // namespace sluice::fuzz
