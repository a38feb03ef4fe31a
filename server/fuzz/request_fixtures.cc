#include "server/fuzz/request_fixtures.h"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

#include "server/access/core/json.h"
#include "server/access/providers/noop/noop_provider.h"
#include "server/notification/receivers/registry.h"

namespace sluice::fuzz {
namespace {

namespace pb = ::sluice::access::v1beta1;
using nlohmann::json;

// The baseline must build: a failure here means the fixture no longer fits
// the services, and every input would test nothing.
template <typename T>
const T& Must(const absl::StatusOr<T>& v, const char* what) {
  if (!v.ok()) {
    std::fprintf(stderr, "request fuzzer baseline: %s: %s\n", what, v.status().ToString().c_str());
    std::abort();
  }
  return *v;
}
void Must(const absl::Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "request fuzzer baseline: %s: %s\n", what, st.ToString().c_str());
    std::abort();
  }
}

template <typename M>
M FromJson(const char* text) {
  M m;
  Must(access::JsonStringToProto(text, &m), text);
  return m;
}

// Policies whose expressions read the parts of an appeal a caller controls
// (details, options, account), so hostile appeal bodies reach the flow.
constexpr char kManualPolicy[] = R"json({"id": "pol",
  "steps": [
    {"name": "owner", "strategy": "manual",
     "approvers": ["owner@example.com", "$appeal.resource.details.owner"]},
    {"name": "lead", "strategy": "manual", "when": "$appeal.details.lead != nil",
     "approvers": ["$appeal.details.lead"]},
    {"name": "check", "strategy": "auto", "allow_failed": true,
     "approve_if": "$appeal.options.duration in ['1h', '24h'] || ($appeal.details.ticket != nil && $appeal.details.ticket matches '^T-[0-9]+$')"}],
  "requirements": [{"on": {"role": "editor"},
    "appeals": [{"resource": {"id": "00000000-0000-0000-0000-000000000002"}, "role": "viewer",
                 "options": {"duration": "1h"}}]}],
  "appeal": {"allow_on_behalf": true, "allow_permanent_access": true,
             "allow_active_access_extension_in": "24h"}})json";

constexpr char kAutoPolicy[] = R"json({"id": "auto",
  "steps": [{"name": "a", "strategy": "auto",
             "approve_if": "len($appeal.details) < 5 && $appeal.account_type == 'user'"}],
  "requirements": [{"on": {"expression": "$appeal.role == 'editor'"},
    "appeals": [{"resource": {"provider_type": "fake", "provider_urn": "f", "type": "manual",
                              "urn": "urn-manual"}, "role": "viewer"}]}],
  "appeal": {"allow_active_access_extension_in": "1h",
             "duration_options": [{"name": "1 hour", "value": "1h"}, {"name": "1 day", "value": "24h"}]}})json";

constexpr char kIamPolicy[] = R"json({"id": "iam-pol",
  "steps": [{"name": "manager", "strategy": "manual", "approvers": ["$appeal.creator.manager_email"]}],
  "iam": {"provider": "http",
          "config": {"url": "http://iam.internal/users", "headers": {"X-Api-Key": "k-0123456789"},
                     "auth": {"type": "bearer", "token": "t-0123456789"}},
          "schema": {"manager_email": "manager.email"}},
  "appeal": {"allow_permanent_access": true}})json";

constexpr char kFakeProvider[] = R"json({"type": "fake", "urn": "f",
  "allowed_account_types": ["user", "serviceAccount"],
  "credentials": {"host": "db.internal", "password": "pw-0123456789"},
  "appeal": {"allow_active_access_extension_in": "2h"},
  "resources": [
    {"type": "manual", "policy": {"id": "pol", "version": 1},
     "roles": [{"id": "viewer", "permissions": ["read"]}, {"id": "editor", "permissions": ["read", "write"]}]},
    {"type": "auto", "policy": {"id": "auto", "version": 1}, "filter": "$resource.details.team != 'x'",
     "roles": [{"id": "viewer"}, {"id": "editor"}]},
    {"type": "iam", "policy": {"id": "iam-pol", "version": 1}, "roles": [{"id": "viewer"}]}]})json";

constexpr char kNoopProvider[] = R"json({"type": "noop", "urn": "sandbox",
  "allowed_account_types": ["user"],
  "resources": [{"type": "noop", "policy": {"id": "auto", "version": 1}, "roles": [{"id": "viewer"}]}]})json";

std::unique_ptr<access::ProviderRegistry> NewRegistry(access::testing::FakeProviderClient** fake) {
  auto client = std::make_unique<access::testing::FakeProviderClient>();
  *fake = client.get();
  std::vector<std::unique_ptr<access::ProviderClient>> clients;
  clients.push_back(std::move(client));
  clients.push_back(access::NewNoopProvider());
  return std::make_unique<access::ProviderRegistry>(std::move(clients));
}

pb::Resource NewResource(const char* id, const char* provider_type, const char* provider_urn,
                         const char* type) {
  pb::Resource r;
  r.set_id(id);
  r.set_provider_type(provider_type);
  r.set_provider_urn(provider_urn);
  r.set_type(type);
  r.set_urn(std::string("urn-") + type);
  r.set_name(type);
  *r.mutable_details() = access::JsonToStruct(
      json{{"owner", kApprover}, {"team", "data"}, {"tags", json::array({"pii", 3, nullptr})}});
  return r;
}

// Answers every call 200 with a body Slack accepts, so that deliveries run
// to the end of each receiver type's Send without a network.
class AcceptingHttp : public HttpClient {
 public:
  absl::StatusOr<HttpResult> Do(const HttpRequest&) override {
    return HttpResult{200, R"json({"ok": true, "user": {"id": "U0123"}})json"};
  }
};

}  // namespace

const Crypter& FuzzCrypter() {
  static const Crypter* crypter = Crypter::Development().release();
  return *crypter;
}

absl::StatusOr<google::protobuf::Struct> FakeIam::GetUser(const access::pb::IAM&,
                                                          const std::string& user_email) {
  return access::JsonToStruct(
      json{{"email", user_email}, {"manager_email", "boss@example.com"}, {"level", 3}});
}

absl::Status StoreLikeAlertRepository::Insert(const std::vector<notification::Alert>& alerts,
                                             std::vector<uint64_t>* ids) {
  std::vector<notification::Alert> stored = alerts;
  for (notification::Alert& a : stored) {
    if (a.starts_at == absl::InfinitePast()) a.starts_at = absl::Now();
  }
  return FakeAlertRepository::Insert(stored, ids);
}

// ---- AccessWorld ----

AccessWorld::AccessWorld()
    : registry(NewRegistry(&fake_plugin)),
      policies(&policy_repo, &FuzzCrypter()),
      providers(&provider_repo, &policy_repo, registry.get(), &FuzzCrypter()),
      resources(&resource_repo, &providers),
      services(&appeal_repo, &resource_repo, &policies, &providers, registry.get(), &iam,
               [this] { return now; }),
      activities(&activity_repo, &providers, &resource_repo, registry.get()) {
  appeal_repo.resources = &resource_repo;
  services.set_journal(&journal);
}

void AccessWorld::CopyStateFrom(const AccessWorld& other) {
  now = other.now;
  policy_repo.policies = other.policy_repo.policies;
  provider_repo.next_id = other.provider_repo.next_id;
  provider_repo.providers = other.provider_repo.providers;
  provider_repo.resources = other.provider_repo.resources;
  resource_repo.resources = other.resource_repo.resources;
  appeal_repo.state = other.appeal_repo.state;
  journal.entries = other.journal.entries;
  journal.next_id = other.journal.next_id;
  activity_repo.stored = other.activity_repo.stored;
  activity_repo.next_id = other.activity_repo.next_id;
  fake_plugin->resources = other.fake_plugin->resources;
}

absl::StatusOr<std::string> AccessWorld::AddResourceUnder(const pb::Policy& policy) {
  pb::ProviderConfig config;
  config.set_type("fake");
  config.set_urn("under-test");
  config.add_allowed_account_types("user");
  pb::ResourceConfig* rc = config.add_resources();
  rc->set_type("fuzz");
  rc->mutable_policy()->set_id(policy.id());
  rc->mutable_policy()->set_version(policy.version());
  rc->add_roles()->set_id("viewer");
  auto created = providers.Create(config, kAdmin);
  if (!created.ok()) return created.status();
  pb::Resource r = NewResource("00000000-0000-0000-0000-0000000000ff", "fake", "under-test", "fuzz");
  resource_repo.resources[r.id()] = r;
  return r.id();
}

void AccessWorld::BuildBaseline() {
  for (const char* p : {kManualPolicy, kAutoPolicy, kIamPolicy}) {
    Must(policies.Create(FromJson<pb::Policy>(p), kAdmin), p);
  }
  const pb::Resource kResources[] = {
      NewResource(kManualResourceId, "fake", "f", "manual"),
      NewResource(kAutoResourceId, "fake", "f", "auto"),
      NewResource(kIamResourceId, "fake", "f", "iam"),
      NewResource(kNoopResourceId, "noop", "sandbox", "noop"),
  };
  for (const pb::Resource& r : kResources) {
    resource_repo.resources[r.id()] = r;
    if (r.provider_type() == "fake") fake_plugin->resources.push_back(r);
  }
  Must(providers.Create(FromJson<pb::ProviderConfig>(kFakeProvider), kAdmin), "provider fake");
  Must(providers.Create(FromJson<pb::ProviderConfig>(kNoopProvider), kAdmin), "provider noop");
  // A pending appeal for POST /appeals/{id}/approvals/{name} to act on, and
  // an active grant for new appeals to extend.
  auto pending = Must(services.appeals().Create(FromJson<pb::CreateAppealRequest>(R"json({
      "resources": [{"id": "00000000-0000-0000-0000-000000000001", "role": "viewer",
                     "options": {"duration": "24h"}}]})json"), kUser), "pending appeal");
  if (pending.size() != 1 || pending[0].id() != kPendingAppealId || pending[0].status() != "pending") {
    std::fprintf(stderr, "request fuzzer baseline: unexpected pending appeal %s\n",
                 pending.empty() ? "(none)" : pending[0].DebugString().c_str());
    std::abort();
  }
  auto active = Must(services.appeals().Create(FromJson<pb::CreateAppealRequest>(R"json({
      "resources": [{"id": "00000000-0000-0000-0000-000000000002", "role": "viewer",
                     "options": {"duration": "1h"}}]})json"), kUser), "active appeal");
  if (active.size() != 1 || active[0].status() != "approved") {
    std::fprintf(stderr, "request fuzzer baseline: the auto appeal is not approved\n");
    std::abort();
  }
}

const AccessWorld& AccessWorld::Baseline() {
  static const AccessWorld* baseline = [] {
    auto* w = new AccessWorld();
    w->BuildBaseline();
    return w;
  }();
  return *baseline;
}

std::unique_ptr<AccessWorld> AccessWorld::Fresh() {
  auto w = std::make_unique<AccessWorld>();
  w->CopyStateFrom(Baseline());
  return w;
}

void AccessWorld::Renew(AccessWorld* w) {
  w->~AccessWorld();
  new (w) AccessWorld();
  w->CopyStateFrom(Baseline());
}

// ---- NotificationWorld ----

notification::ReceiverPlugins& NotificationWorld::Plugins() {
  static AcceptingHttp* http = new AcceptingHttp();
  static notification::ReceiverPlugins* plugins = new notification::ReceiverPlugins(
      notification::receivers::NewReceiverPlugins(http, {"/nonexistent/sluice-fuzz"}));
  return *plugins;
}

const notification::SecretCodec& NotificationWorld::Codec() {
  static const notification::SecretCodec* codec =
      new notification::SecretCodec(&Plugins(), &FuzzCrypter());
  return *codec;
}

NotificationWorld::NotificationWorld()
    : receivers(&receiver_repo, &Plugins(), &Codec()),
      subscriptions(&subscription_repo, &receiver_repo, &Plugins(), &Codec()),
      templates(&template_repo),
      notifications(&receiver_repo, &subscription_repo, &template_repo, &queue,
                    notification::QueuePolicy{}, {}),
      alerts(&notifications, &alert_repo),
      // No threads: the fuzzer calls RunOnce. One poll claims everything.
      delivery(&queue, &Plugins(), &Codec(),
               notification::DeliveryOptions{0, 1000, absl::Seconds(1), absl::Seconds(60),
                                             absl::Seconds(1), absl::Minutes(5)}) {
  queue.receivers = &receiver_repo;
  queue.templates = &template_repo;
}

void NotificationWorld::CopyStateFrom(const NotificationWorld& other) {
  receiver_repo.rows = other.receiver_repo.rows;
  receiver_repo.next_ = other.receiver_repo.next_;
  subscription_repo.rows = other.subscription_repo.rows;
  subscription_repo.next_ = other.subscription_repo.next_;
  template_repo.rows = other.template_repo.rows;
}

void NotificationWorld::BuildBaseline() {
  struct {
    const char* name;
    const char* type;
    notification::Labels labels;
    json config;
  } const kReceivers[] = {
      {"ops-hook", "http", {{"team", "ops"}}, {{"url", "http://hooks.internal/ops"}}},
      {"chat", "slack", {{"team", "ops"}},
       {{"token", "xoxb-0123456789"}, {"channel_name", "#ops"}, {"channel_type", "channel"}}},
      {"pager", "pagerduty", {{"severity", "critical"}}, {{"routing_key", "rk-0123456789"}}},
      {"log", "file", {{"team", "audit"}}, {{"url", "alerts.log"}}},
  };
  uint64_t id = 0;
  for (const auto& r : kReceivers) {
    notification::Receiver rec;
    rec.name = r.name;
    rec.type = r.type;
    rec.labels = r.labels;
    rec.configurations = r.config;
    uint64_t got = Must(receivers.Create(rec, kAdmin), r.name);
    if (got != ++id) std::abort();  // the seeds name receivers 1-4
  }
  notification::Subscription ops;
  ops.urn = "ops";
  ops.receivers = {{1, json::object()}, {2, {{"channel_name", "#ops-alerts"}}}};
  ops.match = {{"team", "ops"}};
  Must(subscriptions.Create(ops, kAdmin), "subscription ops");
  notification::Subscription critical;
  critical.urn = "critical";
  critical.receivers = {{3, json::object()}, {4, json::object()}};
  critical.match = {{"severity", "critical"}};
  Must(subscriptions.Create(critical, kAdmin), "subscription critical");
  notification::Template deploy;
  deploy.name = "deploy";
  deploy.body =
      R"json({"text": "{{service}} deployed by {{user}}", "items": [{{#items}}{{^_first}},{{/_first}}{{{_json}}}{{/items}}]})json";
  deploy.tags = {"ci"};
  deploy.variables = {{"user", "string", "ci", "who deployed"}};
  Must(templates.Upsert(deploy, kAdmin), "template deploy");
}

const NotificationWorld& NotificationWorld::Baseline() {
  static const NotificationWorld* baseline = [] {
    auto* w = new NotificationWorld();
    w->BuildBaseline();
    return w;
  }();
  return *baseline;
}

std::unique_ptr<NotificationWorld> NotificationWorld::Fresh() {
  auto w = std::make_unique<NotificationWorld>();
  w->CopyStateFrom(Baseline());
  return w;
}

void NotificationWorld::Renew(NotificationWorld* w) {
  w->~NotificationWorld();
  new (w) NotificationWorld();
  w->CopyStateFrom(Baseline());
}

}  // namespace sluice::fuzz
