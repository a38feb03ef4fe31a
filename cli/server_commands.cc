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
}

}  // namespace sluice::cli
