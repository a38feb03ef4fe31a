// sluice.server.v1beta1.ServerService: server identity and an echo RPC.
#ifndef SLUICE_SERVER_SERVER_SERVICE_H_
#define SLUICE_SERVER_SERVER_SERVICE_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/auth/authenticator.h"
#include "proto/sluice/server/v1beta1/server.grpc.pb.h"
#include "server/jobs.h"

namespace sluice::server {

// The version sluice-server reports.
inline constexpr char kVersion[] = "0.1.0";

class ServerServiceImpl final : public sluice::server::v1beta1::ServerService::Service {
 public:
  // `services` are the fully-qualified gRPC service names this process hosts.
  // `auth` (borrowed) authenticates every call; caller_email is the caller.
  // `jobs` (borrowed; may be null: RunJob is then Unimplemented) runs RunJob.
  ServerServiceImpl(absl::Time started_at, std::vector<std::string> services,
                    const auth::Authenticator* auth, const JobRunner* jobs = nullptr);

  grpc::Status GetServerInfo(grpc::ServerContext* context,
                             const v1beta1::GetServerInfoRequest* request,
                             v1beta1::GetServerInfoResponse* response) override;

  // InvalidArgument "message: ..." when the message exceeds 4096 bytes.
  grpc::Status Echo(grpc::ServerContext* context, const v1beta1::EchoRequest* request,
                    v1beta1::EchoResponse* response) override;

  // Runs job `name` once (JobRunner::Run). PermissionDenied unless the caller
  // is in the job's admin list (an unknown name too, unless the caller is an
  // admin of some job: names are not shown to others); InvalidArgument
  // "name: ..." for an empty or unknown name.
  grpc::Status RunJob(grpc::ServerContext* context, const v1beta1::RunJobRequest* request,
                      v1beta1::RunJobResponse* response) override;

 private:
  absl::Time started_at_;
  std::vector<std::string> services_;
  const auth::Authenticator* auth_;
  const JobRunner* jobs_;
};

}  // namespace sluice::server

#endif  // SLUICE_SERVER_SERVER_SERVICE_H_
