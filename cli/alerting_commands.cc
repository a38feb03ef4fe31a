#include "cli/alerting_commands.h"

#include <string>

#include "proto/sluice/siren/v1beta1/siren.grpc.pb.h"

namespace sluice::cli {
namespace {

namespace spb = ::gotocompany::siren::v1beta1;
using Stub = spb::SirenService::Stub;

// Flag storage that outlives main()'s parse (CLI11 binds by reference).
struct Flags {
  std::string file, urn, type, rule_namespace, group, template_name;
  uint64_t id = 0, provider_namespace = 0;
};

Flags& F() {
  static Flags* flags = new Flags();
  return *flags;
}

template <typename Msg>
bool ReadFile(Msg* msg, int* exit_code) {
  if (auto st = ReadMessageFile(F().file, msg, ""); !st.ok()) {
    *exit_code = PrintError(st);
    return false;
  }
  return true;
}

// create -f, update <id> -f, list, get <id>, delete <id> for one resource.
template <typename CreateReq, typename UpdateReq, typename ListReq, typename GetReq,
          typename DeleteReq, typename CreateFn, typename UpdateFn, typename ListFn,
          typename GetFn, typename DeleteFn>
CLI::App* AddCrud(CLI::App* parent, const char* name, const char* what, const char* fields,
                  const Options& options, int* exit_code, CreateFn create_fn,
                  UpdateFn update_fn, ListFn list_fn, GetFn get_fn, DeleteFn delete_fn) {
  auto* group = parent->add_subcommand(name, std::string("manage ") + what);
  group->require_subcommand(1);
  auto* create = group->add_subcommand("create", std::string("create from a file"));
  create->add_option("-f,--file", F().file, fields)->required();
  create->callback([&options, exit_code, create_fn] {
    CreateReq req;
    if (!ReadFile(&req, exit_code)) return;
    CallAndPrint<spb::SirenService>(options, exit_code, req, create_fn);
  });
  auto* update = group->add_subcommand("update", "replace from a file");
  update->add_option("id", F().id, "id")->required();
  update->add_option("-f,--file", F().file, fields)->required();
  update->callback([&options, exit_code, update_fn] {
    UpdateReq req;
    if (!ReadFile(&req, exit_code)) return;
    req.set_id(F().id);
    CallAndPrint<spb::SirenService>(options, exit_code, req, update_fn);
  });
  auto* list = group->add_subcommand("list", std::string("list ") + what);
  list->callback([&options, exit_code, list_fn] {
    ListReq req;
    if constexpr (std::is_same_v<ListReq, spb::ListProvidersRequest>) {
      req.set_urn(F().urn);
      req.set_type(F().type);
    }
    CallAndPrint<spb::SirenService>(options, exit_code, req, list_fn);
  });
  auto* get = group->add_subcommand("get", "show one");
  get->add_option("id", F().id, "id")->required();
  get->callback([&options, exit_code, get_fn] {
    GetReq req;
    req.set_id(F().id);
    CallAndPrint<spb::SirenService>(options, exit_code, req, get_fn);
  });
  auto* del = group->add_subcommand("delete", "delete one");
  del->add_option("id", F().id, "id")->required();
  del->callback([&options, exit_code, delete_fn] {
    DeleteReq req;
    req.set_id(F().id);
    CallAndPrint<spb::SirenService>(options, exit_code, req, delete_fn);
  });
  return list;
}

}  // namespace

void AddAlertingCommands(CLI::App& app, const Options& options, int* exit_code) {
  auto* alerting = app.add_subcommand(
      "alerting", "alert providers, namespaces and rules (Siren's /v1beta1 alerting API)");
  alerting->require_subcommand(1);
  auto* plist = AddCrud<spb::CreateProviderRequest, spb::UpdateProviderRequest,
                        spb::ListProvidersRequest, spb::GetProviderRequest,
                        spb::DeleteProviderRequest>(
      alerting, "provider", "alert providers", "{host, urn, name, type, credentials, labels}",
      options, exit_code, &Stub::CreateProvider, &Stub::UpdateProvider, &Stub::ListProviders,
      &Stub::GetProvider, &Stub::DeleteProvider);
  plist->add_option("--urn", F().urn, "only this urn");
  plist->add_option("--type", F().type, "only this type (prometheus, cortex)");
  AddCrud<spb::CreateNamespaceRequest, spb::UpdateNamespaceRequest, spb::ListNamespacesRequest,
          spb::GetNamespaceRequest, spb::DeleteNamespaceRequest>(
      alerting, "namespace", "namespaces", "{urn, name, provider, credentials, labels}", options,
      exit_code, &Stub::CreateNamespace, &Stub::UpdateNamespace, &Stub::ListNamespaces,
      &Stub::GetNamespace, &Stub::DeleteNamespace);

  auto* rule = alerting->add_subcommand("rule", "manage rules");
  rule->require_subcommand(1);
  auto* upsert = rule->add_subcommand("upsert", "create or update a rule from a file");
  upsert->add_option("-f,--file", F().file,
                     "{namespace, group_name, template, variables, enabled, provider_namespace}")
      ->required();
  upsert->callback([&options, exit_code] {
    spb::UpdateRuleRequest req;
    if (!ReadFile(&req, exit_code)) return;
    CallAndPrint<spb::SirenService>(options, exit_code, req, &Stub::UpdateRule);
  });
  auto* list = rule->add_subcommand("list", "list rules");
  list->add_option("--namespace", F().rule_namespace, "ruler namespace");
  list->add_option("--group", F().group, "group name");
  list->add_option("--template", F().template_name, "template name");
  list->add_option("--provider-namespace", F().provider_namespace, "namespace id");
  list->callback([&options, exit_code] {
    spb::ListRulesRequest req;
    req.set_namespace_(F().rule_namespace);
    req.set_group_name(F().group);
    req.set_template_(F().template_name);
    req.set_provider_namespace(F().provider_namespace);
    CallAndPrint<spb::SirenService>(options, exit_code, req, &Stub::ListRules);
  });
}

}  // namespace sluice::cli
