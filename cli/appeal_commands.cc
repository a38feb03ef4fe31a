// sluicectl appeal|approval|grant (access API part 2); registered by
// AddAccessCommands.
#include <memory>

#include "cli/access_commands.h"
#include "proto/sluice/access/v1beta1/appeal.grpc.pb.h"

namespace sluice::cli {

namespace pb = ::sluice::access::v1beta1;

void AddAppealCommands(CLI::App& app, const Options& options, int* exit_code) {
  auto* appeal = app.add_subcommand("appeal", "request access and manage appeals");
  appeal->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto id = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  auto statuses = std::make_shared<std::vector<std::string>>();
  auto accounts = std::make_shared<std::vector<std::string>>();
  auto size = std::make_shared<uint32_t>(0);
  auto offset = std::make_shared<uint32_t>(0);

  auto* create = appeal->add_subcommand(
      "create", "create appeals from a file: {account_id, account_type, resources: [{id, role, options}]}");
  create->add_option("-f,--file", *file, "YAML/JSON file ('-' for stdin)")->required();
  create->callback([&options, exit_code, file] {
    pb::CreateAppealRequest req;
    if (auto st = ReadMessageFile(*file, &req); !st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    CallAndPrint<pb::AppealService>(options, exit_code, req, &pb::AppealService::Stub::CreateAppeal);
  });

  auto* list = appeal->add_subcommand("list", "list appeals");
  list->add_option("--status", *statuses,
                   "filter by status (repeatable): pending, approved, rejected, canceled");
  list->add_option("--account", *accounts, "filter by account id (repeatable)");
  list->add_option("--size", *size, "page size (default 50)");
  list->add_option("--offset", *offset, "page offset");
  list->callback([&options, exit_code, statuses, accounts, size, offset] {
    pb::ListAppealsRequest req;
    for (const auto& s : *statuses) req.add_statuses(s);
    for (const auto& a : *accounts) req.add_account_ids(a);
    req.set_size(*size);
    req.set_offset(*offset);
    CallAndPrint<pb::AppealService>(options, exit_code, req, &pb::AppealService::Stub::ListAppeals);
  });

  auto* get = appeal->add_subcommand("get", "show an appeal");
  get->add_option("id", *id, "appeal id")->required();
  get->callback([&options, exit_code, id] {
    pb::GetAppealRequest req;
    req.set_id(*id);
    CallAndPrint<pb::AppealService>(options, exit_code, req, &pb::AppealService::Stub::GetAppeal);
  });

  auto* cancel = appeal->add_subcommand("cancel", "cancel your pending appeal");
  cancel->add_option("id", *id, "appeal id")->required();
  cancel->callback([&options, exit_code, id] {
    pb::CancelAppealRequest req;
    req.set_id(*id);
    CallAndPrint<pb::AppealService>(options, exit_code, req, &pb::AppealService::Stub::CancelAppeal);
  });

  auto* revoke = appeal->add_subcommand("revoke", "revoke an approved appeal's access (its grant becomes inactive)");
  revoke->add_option("id", *id, "appeal id")->required();
  revoke->add_option("--reason", *reason, "revoke reason");
  revoke->callback([&options, exit_code, id, reason] {
    pb::RevokeAppealRequest req;
    req.set_id(*id);
    req.set_reason(*reason);
    CallAndPrint<pb::AppealService>(options, exit_code, req, &pb::AppealService::Stub::RevokeAppeal);
  });

  auto* approval = app.add_subcommand("approval", "approve or reject an appeal's step");
  approval->require_subcommand(1);
  auto step = std::make_shared<std::string>();
  for (const char* action : {"approve", "reject"}) {
    auto* cmd = approval->add_subcommand(action, std::string(action) + " step <step> of appeal <id>");
    cmd->add_option("id", *id, "appeal id")->required();
    cmd->add_option("step", *step, "approval (step) name")->required();
    cmd->add_option("--reason", *reason, "reason");
    std::string act = action;
    cmd->callback([&options, exit_code, id, step, reason, act] {
      pb::UpdateApprovalRequest req;
      req.set_id(*id);
      req.set_approval_name(*step);
      req.set_action(act);
      req.set_reason(*reason);
      CallAndPrint<pb::ApprovalService>(options, exit_code, req, &pb::ApprovalService::Stub::UpdateApproval);
    });
  }

  auto* grant = app.add_subcommand(
      "grant", "list, show, update, revoke and restore grants");
  grant->require_subcommand(1);
  auto* glist = grant->add_subcommand("list", "list grants");
  glist->add_option("--status", *statuses, "filter by status (repeatable)");
  glist->add_option("--account", *accounts, "filter by account id (repeatable)");
  glist->add_option("--size", *size, "page size (default 50, max 1000)");
  glist->add_option("--offset", *offset, "page offset");
  auto mine = std::make_shared<bool>(false);
  glist->add_flag("--mine", *mine, "only the grants you own (GET /me/grants)");
  glist->callback([&options, exit_code, statuses, accounts, size, offset, mine] {
    pb::ListGrantsRequest req;
    for (const auto& s : *statuses) req.add_statuses(s);
    for (const auto& a : *accounts) req.add_account_ids(a);
    req.set_size(*size);
    req.set_offset(*offset);
    CallAndPrint<pb::GrantService>(options, exit_code, req,
                                   *mine ? &pb::GrantService::Stub::ListUserGrants
                                         : &pb::GrantService::Stub::ListGrants);
  });
  auto* gget = grant->add_subcommand("get", "show a grant");
  gget->add_option("id", *id, "grant id")->required();
  gget->callback([&options, exit_code, id] {
    pb::GetGrantRequest req;
    req.set_id(*id);
    CallAndPrint<pb::GrantService>(options, exit_code, req, &pb::GrantService::Stub::GetGrant);
  });
  AddGrantLifecycleCommands(*grant, options, exit_code);
}

}  // namespace sluice::cli
