#include "server/server_service.h"

#include "absl/strings/str_cat.h"
#include "common/grpc_util.h"
#include "spdlog/spdlog.h"

namespace sluice::server {

ServerServiceImpl::ServerServiceImpl(absl::Time started_at, std::vector<std::string> services,
                                     const auth::Authenticator* auth, const JobRunner* jobs)
    : started_at_(started_at), services_(std::move(services)), auth_(auth), jobs_(jobs) {}

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

namespace {

// May `caller` run job `name`? The job's admins decide; for an unknown name,
// an admin of any job learns the known names, anyone else is refused.
absl::Status AuthorizeJob(const JobRunner& jobs, const auth::Caller& caller,
                          const std::string& name) {
  auto job = jobs.Find(name);
  if (job.ok()) {
    if ((*job)->admins == nullptr) {
      return absl::PermissionDeniedError(absl::StrCat("job ", name, ": no admins configured"));
    }
    return (*job)->admins->Require(caller, absl::StrCat("run job ", name),
                                   (*job)->admin_setting);
  }
  for (const auto& other : jobs.Names()) {
    const Job* j = *jobs.Find(other);
    if (j->admins != nullptr && j->admins->Contains(caller)) return job.status();
  }
  return absl::PermissionDeniedError(
      absl::StrCat(caller.identity, " may not run jobs: admins only (access.admins, "
                                    "notification.admins)"));
}

}  // namespace

grpc::Status ServerServiceImpl::RunJob(grpc::ServerContext* context,
                                       const v1beta1::RunJobRequest* request,
                                       v1beta1::RunJobResponse* response) {
  return auth::WithCaller(*auth_, context, "ServerService/RunJob",
                          [&](const auth::Caller& caller) -> absl::Status {
    if (jobs_ == nullptr) return absl::UnimplementedError("jobs are not available here");
    if (request->name().empty()) return absl::InvalidArgumentError("name: required");
    if (auto st = AuthorizeJob(*jobs_, caller, request->name()); !st.ok()) return st;
    spdlog::info("msg=\"job run on demand\" job={} actor={}", request->name(), caller.identity);
    auto result = jobs_->Run(request->name());
    if (!result.ok()) return result.status();
    response->set_name(request->name());
    response->set_skipped(result->skipped);
    response->set_message(result->message);
    for (const auto& [k, v] : result->counts) (*response->mutable_counts())[k] = v;
    return absl::OkStatus();
  });
}

}  // namespace sluice::server
