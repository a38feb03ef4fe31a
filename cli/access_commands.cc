#include "cli/access_commands.h"

#include <functional>
#include <memory>

#include "proto/sluice/access/v1beta1/access.grpc.pb.h"
#include "proto/sluice/access/v1beta1/appeal.grpc.pb.h"

namespace sluice::cli {
namespace {

namespace pb = ::sluice::access::v1beta1;

// Runs one unary call and prints the response or the error.
void AddPolicyCommands(CLI::App& app, const Options& options, int* exit_code) {
  auto* group = app.add_subcommand("policy", "manage policies (versioned approval flows)");
  group->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto id = std::make_shared<std::string>();
  auto version = std::make_shared<uint32_t>(0);
  auto dry_run = std::make_shared<bool>(false);

  auto* create = group->add_subcommand("create", "create version 1 of a policy from a file");
  create->add_option("-f,--file", *file, "policy YAML/JSON file ('-' for stdin)")->required();
  create->add_flag("--dry-run", *dry_run, "validate and show what would be stored; write nothing");
  create->callback([&options, exit_code, file, dry_run] {
    pb::CreatePolicyRequest req;
    req.set_dry_run(*dry_run);
    if (auto st = ReadMessageFile(*file, req.mutable_policy()); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    CallAndPrint<pb::PolicyService>(options, exit_code, req, &pb::PolicyService::Stub::CreatePolicy);
  });

  auto* update = group->add_subcommand("update", "create the next version of a policy from a file");
  update->add_option("-f,--file", *file, "policy YAML/JSON file ('-' for stdin)")->required();
  update->add_option("--id", *id, "policy id (default: the file's id)");
  update->add_flag("--dry-run", *dry_run, "validate and show what would be stored; write nothing");
  update->callback([&options, exit_code, file, id, dry_run] {
    pb::UpdatePolicyRequest req;
    req.set_dry_run(*dry_run);
    if (auto st = ReadMessageFile(*file, req.mutable_policy()); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    req.set_id(id->empty() ? req.policy().id() : *id);
    CallAndPrint<pb::PolicyService>(options, exit_code, req, &pb::PolicyService::Stub::UpdatePolicy);
  });

  auto* list = group->add_subcommand("list", "list every version of every policy, oldest first (as Guardian)");
  list->callback([&options, exit_code] {
    CallAndPrint<pb::PolicyService>(options, exit_code, pb::ListPoliciesRequest{},
                               &pb::PolicyService::Stub::ListPolicies);
  });

  auto* get = group->add_subcommand("get", "show a policy (latest version unless --version)");
  get->add_option("id", *id, "policy id")->required();
  get->add_option("--version", *version, "version number");
  get->callback([&options, exit_code, id, version] {
    pb::GetPolicyRequest req;
    req.set_id(*id);
    req.set_version(*version);
    CallAndPrint<pb::PolicyService>(options, exit_code, req, &pb::PolicyService::Stub::GetPolicy);
  });
}

void AddProviderCommands(CLI::App& app, const Options& options, int* exit_code) {
  auto* group = app.add_subcommand("provider", "manage providers and their resources");
  group->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto id = std::make_shared<std::string>();
  auto dry_run = std::make_shared<bool>(false);

  auto* create = group->add_subcommand("create", "register a provider from a config file");
  create->add_option("-f,--file", *file, "provider config YAML/JSON file")->required();
  create->add_flag("--dry-run", *dry_run,
                   "validate, fetch the resources and show what would be stored; write nothing");
  create->callback([&options, exit_code, file, dry_run] {
    pb::CreateProviderRequest req;
    req.set_dry_run(*dry_run);
    if (auto st = ReadMessageFile(*file, req.mutable_config()); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    CallAndPrint<pb::ProviderService>(options, exit_code, req, &pb::ProviderService::Stub::CreateProvider);
  });

  auto* update = group->add_subcommand("update", "change a provider (set fields only)");
  update->add_option("id", *id, "provider id")->required();
  update->add_option("-f,--file", *file, "provider config YAML/JSON file")->required();
  update->add_flag("--dry-run", *dry_run,
                   "validate, fetch the resources and show what would be stored; write nothing");
  update->callback([&options, exit_code, file, id, dry_run] {
    pb::UpdateProviderRequest req;
    req.set_dry_run(*dry_run);
    req.set_id(*id);
    if (auto st = ReadMessageFile(*file, req.mutable_config()); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    CallAndPrint<pb::ProviderService>(options, exit_code, req, &pb::ProviderService::Stub::UpdateProvider);
  });

  auto* list = group->add_subcommand("list", "list providers");
  list->callback([&options, exit_code] {
    CallAndPrint<pb::ProviderService>(options, exit_code, pb::ListProvidersRequest{},
                               &pb::ProviderService::Stub::ListProviders);
  });

  auto* get = group->add_subcommand("get", "show a provider");
  get->add_option("id", *id, "provider id")->required();
  get->callback([&options, exit_code, id] {
    pb::GetProviderRequest req;
    req.set_id(*id);
    CallAndPrint<pb::ProviderService>(options, exit_code, req, &pb::ProviderService::Stub::GetProvider);
  });

  auto import = std::make_shared<pb::ImportGrantsRequest>();
  auto types = std::make_shared<std::vector<std::string>>();
  auto urns = std::make_shared<std::vector<std::string>>();
  auto* imp = group->add_subcommand(
      "import", "compare the provider's access with the grants (dry run unless --apply; admins)");
  imp->add_option("id", *id, "provider id")->required();
  imp->add_flag("--apply", [import](int64_t n) { import->set_apply(n > 0); },
                "create the missing grants and mark the drift");
  imp->add_option("--resource-type", *types, "only resources of this type (repeatable)");
  imp->add_option("--resource-urn", *urns, "only the resource with this urn (repeatable)");
  imp->callback([&options, exit_code, id, import, types, urns] {
    pb::ImportGrantsRequest req = *import;
    req.set_id(*id);
    for (const auto& t : *types) req.add_resource_types(t);
    for (const auto& u : *urns) req.add_resource_urns(u);
    CallAndPrint<pb::GrantService>(options, exit_code, req, &pb::GrantService::Stub::ImportGrants);
  });
}

}  // namespace

void AddAccessCommands(CLI::App& app, const Options& options, int* exit_code) {
  AddPolicyCommands(app, options, exit_code);
  AddProviderCommands(app, options, exit_code);
  AddAppealCommands(app, options, exit_code);
}

}  // namespace sluice::cli
