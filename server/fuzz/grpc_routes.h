// The access and notification gRPC services, constructed as sluice-server
// constructs them but over the fuzzer's in-memory worlds, served in-process:
// the request fuzzer's generic route calls any write RPC by name through the
// real handler (authentication, RequireAdmin, request unpacking, core call,
// response packing).
#ifndef SLUICE_SERVER_FUZZ_GRPC_ROUTES_H_
#define SLUICE_SERVER_FUZZ_GRPC_ROUTES_H_

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "common/auth/authenticator.h"
#include "server/fuzz/request_fixtures.h"
#include "server/fuzz/write_routes.h"

namespace sluice::fuzz {

class ServedApis {
 public:
  // The one instance (built on first use; never destroyed).
  static ServedApis& Get();

  // Renews both worlds to their baselines (AccessWorld::Renew), then calls
  // route.grpc_method with `request` as `who` (the insecure_dev identity
  // header) and the alert hook token; the reply in *reply. The status is
  // the handler's, or UNIMPLEMENTED with an empty message when no
  // registered service has the method.
  grpc::Status Call(const WriteRoute& route, const google::protobuf::Message& request,
                    const std::string& who, google::protobuf::Message* reply);

  // The full names of the registered services.
  const std::vector<std::string>& services() const { return services_; }

  AccessWorld& access() { return *access_; }
  NotificationWorld& notification() { return *notification_; }

 private:
  ServedApis();
  struct Handlers;  // the gRPC service objects

  std::unique_ptr<AccessWorld> access_;
  std::unique_ptr<NotificationWorld> notification_;
  std::unique_ptr<auth::Authenticator> authenticator_;
  std::unique_ptr<Handlers> handlers_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::vector<std::string> services_;
};

}  // namespace sluice::fuzz

#endif  // SLUICE_SERVER_FUZZ_GRPC_ROUTES_H_
