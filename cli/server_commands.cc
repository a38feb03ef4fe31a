#include "cli/server_commands.h"

#include "proto/sluice/server/v1beta1/server.grpc.pb.h"

namespace sluice::cli {

void AddServerCommands(CLI::App& app, const Options& options, int* exit_code) {
  auto* cmd = app.add_subcommand("server-info", "show the server's version and services");
  cmd->callback([&options, exit_code] {
    Client client(options);
    auto stub = sluice::server::v1beta1::ServerService::NewStub(client.channel());
    auto ctx = client.NewContext();
    sluice::server::v1beta1::GetServerInfoResponse resp;
    grpc::Status st = stub->GetServerInfo(ctx.get(), {}, &resp);
    if (!st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    PrintMessage(resp, options);
  });

  auto* job = app.add_subcommand("job", "background jobs of the server");
  job->require_subcommand(1);
  auto* run = job->add_subcommand("run", "run one job once now and print what it did");
  auto name = std::make_shared<std::string>();
  run->add_option("name", *name,
                  "fetch_resources | revoke_expired_grants | reconcile | cleanup_queue")
      ->required();
  run->callback([&options, exit_code, name] {
    Client client(options);
    auto stub = sluice::server::v1beta1::ServerService::NewStub(client.channel());
    auto ctx = client.NewContext();
    sluice::server::v1beta1::RunJobRequest req;
    req.set_name(*name);
    sluice::server::v1beta1::RunJobResponse resp;
    grpc::Status st = stub->RunJob(ctx.get(), req, &resp);
    if (!st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    PrintMessage(resp, options);
  });
}

}  // namespace sluice::cli
