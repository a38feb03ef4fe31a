#include "cli/access_commands.h"

#include <functional>
#include <memory>

#include "proto/sluice/access/v1beta1/access.grpc.pb.h"

namespace sluice::cli {
namespace {

namespace pb = ::sluice::access::v1beta1;

// Runs one unary call and prints the response or the error.
template <typename Resp>
void Finish(const grpc::Status& st, const Resp& resp, const Options& options, int* exit_code) {
  if (!st.ok()) {
    *exit_code = PrintError(st);
    return;
  }
  PrintMessage(resp, options);
}

void AddPolicyCommands(CLI::App& app, const Options& options, int* exit_code) {
  auto* group = app.add_subcommand("policy", "manage policies (versioned approval flows)");
  group->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto id = std::make_shared<std::string>();
  auto version = std::make_shared<uint32_t>(0);

  auto* create = group->add_subcommand("create", "create version 1 of a policy from a file");
  create->add_option("-f,--file", *file, "policy YAML/JSON file ('-' for stdin)")->required();
  create->callback([&options, exit_code, file] {
    pb::CreatePolicyRequest req;
    if (auto st = ReadMessageFile(*file, req.mutable_policy()); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    Client client(options);
    auto ctx = client.NewContext();
    pb::CreatePolicyResponse resp;
    Finish(pb::PolicyService::NewStub(client.channel())->CreatePolicy(ctx.get(), req, &resp), resp,
           options, exit_code);
  });

  auto* update = group->add_subcommand("update", "create the next version of a policy from a file");
  update->add_option("-f,--file", *file, "policy YAML/JSON file ('-' for stdin)")->required();
  update->add_option("--id", *id, "policy id (default: the file's id)");
  update->callback([&options, exit_code, file, id] {
    pb::UpdatePolicyRequest req;
    if (auto st = ReadMessageFile(*file, req.mutable_policy()); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    req.set_id(id->empty() ? req.policy().id() : *id);
    Client client(options);
    auto ctx = client.NewContext();
    pb::UpdatePolicyResponse resp;
    Finish(pb::PolicyService::NewStub(client.channel())->UpdatePolicy(ctx.get(), req, &resp), resp,
           options, exit_code);
  });

  auto* list = group->add_subcommand("list", "list the latest version of every policy");
  list->callback([&options, exit_code] {
    Client client(options);
    auto ctx = client.NewContext();
    pb::ListPoliciesResponse resp;
    Finish(pb::PolicyService::NewStub(client.channel())->ListPolicies(ctx.get(), {}, &resp), resp,
           options, exit_code);
  });

  auto* get = group->add_subcommand("get", "show a policy (latest version unless --version)");
  get->add_option("id", *id, "policy id")->required();
  get->add_option("--version", *version, "version number");
  get->callback([&options, exit_code, id, version] {
    pb::GetPolicyRequest req;
    req.set_id(*id);
    req.set_version(*version);
    Client client(options);
    auto ctx = client.NewContext();
    pb::GetPolicyResponse resp;
    Finish(pb::PolicyService::NewStub(client.channel())->GetPolicy(ctx.get(), req, &resp), resp,
           options, exit_code);
  });
}

void AddProviderCommands(CLI::App& app, const Options& options, int* exit_code) {
  auto* group = app.add_subcommand("provider", "manage providers and their resources");
  group->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto id = std::make_shared<std::string>();

  auto* create = group->add_subcommand("create", "register a provider from a config file");
  create->add_option("-f,--file", *file, "provider config YAML/JSON file")->required();
  create->callback([&options, exit_code, file] {
    pb::CreateProviderRequest req;
    if (auto st = ReadMessageFile(*file, req.mutable_config()); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    Client client(options);
    auto ctx = client.NewContext();
    pb::CreateProviderResponse resp;
    Finish(pb::ProviderService::NewStub(client.channel())->CreateProvider(ctx.get(), req, &resp),
           resp, options, exit_code);
  });

  auto* update = group->add_subcommand("update", "change a provider (set fields only)");
  update->add_option("id", *id, "provider id")->required();
  update->add_option("-f,--file", *file, "provider config YAML/JSON file")->required();
  update->callback([&options, exit_code, file, id] {
    pb::UpdateProviderRequest req;
    req.set_id(*id);
    if (auto st = ReadMessageFile(*file, req.mutable_config()); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    Client client(options);
    auto ctx = client.NewContext();
    pb::UpdateProviderResponse resp;
    Finish(pb::ProviderService::NewStub(client.channel())->UpdateProvider(ctx.get(), req, &resp),
           resp, options, exit_code);
  });

  auto* list = group->add_subcommand("list", "list providers");
  list->callback([&options, exit_code] {
    Client client(options);
    auto ctx = client.NewContext();
    pb::ListProvidersResponse resp;
    Finish(pb::ProviderService::NewStub(client.channel())->ListProviders(ctx.get(), {}, &resp),
           resp, options, exit_code);
  });

  auto* get = group->add_subcommand("get", "show a provider");
  get->add_option("id", *id, "provider id")->required();
  get->callback([&options, exit_code, id] {
    pb::GetProviderRequest req;
    req.set_id(*id);
    Client client(options);
    auto ctx = client.NewContext();
    pb::GetProviderResponse resp;
    Finish(pb::ProviderService::NewStub(client.channel())->GetProvider(ctx.get(), req, &resp),
           resp, options, exit_code);
  });
}

}  // namespace

void AddAccessCommands(CLI::App& app, const Options& options, int* exit_code) {
  AddPolicyCommands(app, options, exit_code);
  AddProviderCommands(app, options, exit_code);
  AddAppealCommands(app, options, exit_code);
}

}  // namespace sluice::cli
