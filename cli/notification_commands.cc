#include "cli/notification_commands.h"

#include <iostream>
#include <map>
#include <string>

#include "proto/sluice/notification/v1beta1/notification.grpc.pb.h"

namespace sluice::cli {
namespace {

namespace pb = ::sluice::notification::v1beta1;

// Flag storage that outlives main()'s parse (CLI11 binds by reference).
struct Flags {
  std::string file;
  std::string idempotency_key;
  uint64_t id = 0;
  std::string name;
  std::string tag;
  std::vector<std::string> labels;  // "k=v"
  uint64_t namespace_id = 0;
};

Flags& F() {
  static Flags* flags = new Flags();
  return *flags;
}

std::unique_ptr<pb::NotificationService::Stub> Stub(const Client& client) {
  return pb::NotificationService::NewStub(client.channel());
}

// Reads -f into `msg` (root key optional); sets exit code on error.
template <typename Msg>
bool ReadFile(Msg* msg, int* exit_code, const std::string& root = "") {
  if (auto st = ReadMessageFile(F().file, msg, root); !st.ok()) {
    *exit_code = PrintError(st);
    return false;
  }
  return true;
}

void AddLabelsOption(CLI::App* cmd, const char* name, const char* help) {
  cmd->add_option(name, F().labels, help);
}

// The --label/--match flags as a map ("k=v"; a missing '=' gives an empty value).
std::map<std::string, std::string> LabelFlags() {
  std::map<std::string, std::string> out;
  for (const std::string& kv : F().labels) {
    size_t eq = kv.find('=');
    out[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
  }
  return out;
}

void AddNotification(CLI::App& app, const Options& options, int* exit_code) {
  auto* group = app.add_subcommand("notification", "send notifications, inspect deliveries");
  group->require_subcommand(1);
  auto* send = group->add_subcommand("send", "send a notification from a file (root key: payload)");
  send->add_option("-f,--file", F().file, "YAML/JSON file with payload: {data, template, receivers, labels}")
      ->required();
  send->add_option("--idempotency-key", F().idempotency_key, "repeat-safe key");
  send->callback([&options, exit_code] {
    pb::PostNotificationRequest req;
    if (!ReadFile(&req, exit_code, "payload")) return;
    Client client(options);
    auto stub = Stub(client);
    auto ctx = client.NewContext();
    if (!F().idempotency_key.empty()) ctx->AddMetadata("idempotency-key", F().idempotency_key);
    pb::PostNotificationResponse resp;
    grpc::Status st = stub->PostNotification(ctx.get(), req, &resp);
    if (!st.ok()) {
      *exit_code = PrintError(st);
      return;
    }
    if (options.json) {
      PrintMessage(resp, options);
    } else {
      std::cout << resp.notification_id() << std::endl;
    }
  });
  auto* msgs = group->add_subcommand("messages", "list the delivery messages of a notification");
  msgs->add_option("id", F().id, "notification id")->required();
  msgs->callback([&options, exit_code] {
    pb::ListNotificationMessagesRequest req;
    req.set_id(F().id);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::ListNotificationMessages);
  });
}

void AddReceiver(CLI::App& app, const Options& options, int* exit_code) {
  auto* group = app.add_subcommand("receiver", "manage receivers");
  group->require_subcommand(1);
  auto* create = group->add_subcommand("create", "create a receiver from a file");
  create->add_option("-f,--file", F().file, "{name, type, labels, configurations, allowed_senders}")->required();
  create->callback([&options, exit_code] {
    pb::CreateReceiverRequest req;
    if (!ReadFile(&req, exit_code)) return;
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::CreateReceiver);
  });
  auto* update = group->add_subcommand("update", "replace a receiver from a file");
  update->add_option("id", F().id, "receiver id")->required();
  update->add_option("-f,--file", F().file, "{name, labels, configurations, allowed_senders}")->required();
  update->callback([&options, exit_code] {
    pb::UpdateReceiverRequest req;
    if (!ReadFile(&req, exit_code)) return;
    req.set_id(F().id);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::UpdateReceiver);
  });
  auto* list = group->add_subcommand("list", "list receivers");
  AddLabelsOption(list, "--label", "filter k=v (repeatable)");
  list->callback([&options, exit_code] {
    pb::ListReceiversRequest req;
    for (const auto& [k, v] : LabelFlags()) (*req.mutable_labels())[k] = v;
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::ListReceivers);
  });
  auto* get = group->add_subcommand("get", "show a receiver");
  get->add_option("id", F().id, "receiver id")->required();
  get->callback([&options, exit_code] {
    pb::GetReceiverRequest req;
    req.set_id(F().id);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::GetReceiver);
  });
  auto* del = group->add_subcommand("delete", "delete a receiver");
  del->add_option("id", F().id, "receiver id")->required();
  del->callback([&options, exit_code] {
    pb::DeleteReceiverRequest req;
    req.set_id(F().id);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::DeleteReceiver);
  });
}

void AddSubscription(CLI::App& app, const Options& options, int* exit_code) {
  auto* group = app.add_subcommand("subscription", "manage subscriptions");
  group->require_subcommand(1);
  auto* create = group->add_subcommand("create", "create a subscription from a file");
  create->add_option("-f,--file", F().file, "{urn, namespace, receivers, match, allowed_senders}")->required();
  create->callback([&options, exit_code] {
    pb::CreateSubscriptionRequest req;
    if (!ReadFile(&req, exit_code)) return;
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::CreateSubscription);
  });
  auto* update = group->add_subcommand("update", "replace a subscription from a file");
  update->add_option("id", F().id, "subscription id")->required();
  update->add_option("-f,--file", F().file, "{urn, namespace, receivers, match, allowed_senders}")->required();
  update->callback([&options, exit_code] {
    pb::UpdateSubscriptionRequest req;
    if (!ReadFile(&req, exit_code)) return;
    req.set_id(F().id);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::UpdateSubscription);
  });
  auto* list = group->add_subcommand("list", "list subscriptions");
  AddLabelsOption(list, "--match", "labels k=v the subscriptions must match (repeatable)");
  list->add_option("--namespace", F().namespace_id, "namespace id");
  list->callback([&options, exit_code] {
    pb::ListSubscriptionsRequest req;
    req.set_namespace_id(F().namespace_id);
    for (const auto& [k, v] : LabelFlags()) (*req.mutable_match())[k] = v;
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::ListSubscriptions);
  });
  auto* get = group->add_subcommand("get", "show a subscription");
  get->add_option("id", F().id, "subscription id")->required();
  get->callback([&options, exit_code] {
    pb::GetSubscriptionRequest req;
    req.set_id(F().id);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::GetSubscription);
  });
  auto* del = group->add_subcommand("delete", "delete a subscription");
  del->add_option("id", F().id, "subscription id")->required();
  del->callback([&options, exit_code] {
    pb::DeleteSubscriptionRequest req;
    req.set_id(F().id);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::DeleteSubscription);
  });
}

void AddTemplate(CLI::App& app, const Options& options, int* exit_code) {
  auto* group = app.add_subcommand("template", "manage templates");
  group->require_subcommand(1);
  auto* create = group->add_subcommand("create", "create or replace a template from a file");
  create->add_option("-f,--file", F().file, "{name, body, tags, variables, engine}")->required();
  create->callback([&options, exit_code] {
    pb::UpsertTemplateRequest req;
    if (!ReadFile(&req, exit_code)) return;
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::UpsertTemplate);
  });
  auto* list = group->add_subcommand("list", "list templates (built-in ones included)");
  list->add_option("--tag", F().tag, "only templates with this tag");
  list->callback([&options, exit_code] {
    pb::ListTemplatesRequest req;
    req.set_tag(F().tag);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::ListTemplates);
  });
  auto* get = group->add_subcommand("get", "show a template");
  get->add_option("name", F().name, "template name")->required();
  get->callback([&options, exit_code] {
    pb::GetTemplateRequest req;
    req.set_name(F().name);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::GetTemplate);
  });
  auto* del = group->add_subcommand("delete", "delete a template");
  del->add_option("name", F().name, "template name")->required();
  del->callback([&options, exit_code] {
    pb::DeleteTemplateRequest req;
    req.set_name(F().name);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::DeleteTemplate);
  });
  auto* render = group->add_subcommand("render", "render a template with variables from a file");
  render->add_option("name", F().name, "template name")->required();
  render->add_option("-f,--file", F().file, "{variables: {...}, receiver_type}")->required();
  render->callback([&options, exit_code] {
    pb::RenderTemplateRequest req;
    if (!ReadFile(&req, exit_code)) return;
    req.set_name(F().name);
    CallAndPrint<pb::NotificationService>(options, exit_code, req,
                                          &pb::NotificationService::Stub::RenderTemplate);
  });
}

}  // namespace

void AddNotificationCommands(CLI::App& app, const Options& options, int* exit_code) {
  AddNotification(app, options, exit_code);
  AddReceiver(app, options, exit_code);
  AddSubscription(app, options, exit_code);
  AddTemplate(app, options, exit_code);
}

}  // namespace sluice::cli
