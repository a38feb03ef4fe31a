// The request fuzzer's deep routes: for 13 write routes, the route's gRPC
// handler body mirrored from server/*/api/ (without the gRPC context: the
// caller has passed authentication and, on admin routes, RequireAdmin)
// against the core services on in-memory fakes (request_fixtures.h),
// followed by what would happen next to what it stored: approvals and
// expiry of a new appeal, an appeal under a new policy, delivery of
// notifications through the real receiver types, reads of what was written.
// Every other write route goes through the generic route
// (request_dispatch.h). The body is parsed with JsonStringToMessage into the
// message the route's `body:` mapping names, which is what the gateway's
// transcoding amounts to (bodies it rejects never reach the server and are
// skipped). Path parameters ({id}, {name}) come from the same fields of the
// body, since an attacker chooses them as freely.
//
// Beyond request_dispatch.h's failures: secrets stored in plain text or
// returned unmasked, stored secrets that no longer decrypt, and a message
// that failed delivery with "internal error while delivering" (an exception
// in the worker).
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/sluice/access/v1beta1/access.pb.h"
#include "proto/sluice/access/v1beta1/appeal.pb.h"
#include "proto/sluice/notification/v1beta1/notification.pb.h"
#include "server/access/core/json.h"
#include "server/fuzz/fuzz_checks.h"
#include "server/fuzz/request_fixtures.h"
#include "server/fuzz/request_routes.h"
#include "server/notification/api/convert.h"
#include "spdlog/spdlog.h"

namespace sluice::fuzz {
namespace {

namespace apb = ::sluice::access::v1beta1;
namespace npb = ::sluice::notification::v1beta1;
namespace api = ::sluice::notification::api;
namespace notif = ::sluice::notification;
using google::protobuf::Message;
using nlohmann::json;

// PostNotification's sender: a notification admin, so that every selector
// and label is exercised (non-admins are refused before any of it, F-M1).
const notif::Sender kSender{kUser, {}, /*admin=*/true, /*system=*/false};

// ---- Access ----

// Stored IAM secrets are ciphertexts, returned ones masked, and the stored
// ones still decrypt (appeals under the policy need them).
void CheckPolicySecrets(AccessWorld& w, const apb::Policy& returned) {
  const auto& auth = returned.iam().config().auth();
  for (const std::string* s : {&auth.password(), &auth.value(), &auth.token()}) {
    if (!s->empty() && *s != kMaskedSecret) Fail("policy reply", "an IAM secret is not masked");
  }
  for (const auto& [name, value] : returned.iam().config().headers()) {
    if (!value.empty() && value != kMaskedSecret) Fail("policy reply", "a header is not masked");
  }
  auto stored = w.policy_repo.Get(returned.id(), returned.version());
  if (!stored.ok()) Fail("policy store", stored.status().ToString());
  const auto& sauth = stored->iam().config().auth();
  for (const std::string* s : {&sauth.password(), &sauth.value(), &sauth.token()}) {
    if (!s->empty() && !Crypter::IsEncrypted(*s)) Fail("policy store", "an IAM secret in plain text");
  }
  auto decrypted = w.policies.GetDecrypted(returned.id(), returned.version());
  if (!decrypted.ok()) Fail("PolicyService::GetDecrypted", decrypted.status().ToString());
}

// What happens next to a new appeal: each pending step is approved by its
// first approver (bounded by the number of steps), the appeal is read back,
// and a year later the expiry and reconciliation jobs run.
void FollowAppeal(AccessWorld& w, apb::Appeal appeal) {
  for (int i = 0; i < appeal.approvals_size() && appeal.status() == "pending"; ++i) {
    const apb::Approval* step = nullptr;
    for (const auto& a : appeal.approvals()) {
      if (a.status() == "pending") {
        step = &a;
        break;
      }
    }
    if (step == nullptr || step->approvers().empty()) break;
    auto acted = w.services.approvals().Act(appeal.id(), step->name(), "approve",
                                            step->approvers(0), "fuzz");
    CheckStatus(acted.status(), "ApprovalService::Act");
    if (!acted.ok()) break;
    apb::UpdateApprovalResponse resp;
    *resp.mutable_appeal() = *acted;
    CheckReply(resp, "UpdateApprovalResponse");
    appeal = *std::move(acted);
  }
  auto got = w.services.appeals().GetFor(appeal.id(), access::Actor{kUser, false});
  CheckStatus(got.status(), "AppealService::GetFor");
  if (got.ok()) {
    apb::GetAppealResponse resp;
    *resp.mutable_appeal() = *got;
    CheckReply(resp, "GetAppealResponse");
  }
  w.now += absl::Hours(24 * 366);
  CheckStatus(w.services.reconcile().ExpireGrants().status(), "ReconcileService::ExpireGrants");
  CheckStatus(w.services.reconcile().Reconcile(absl::ZeroDuration()).status(),
              "ReconcileService::Reconcile");
}

// An appeal under `policy` (just created or updated by the body) by a
// caller who fills in what the baseline policies read.
void UsePolicy(AccessWorld& w, const apb::Policy& policy) {
  auto resource = w.AddResourceUnder(policy);
  CheckStatus(resource.status(), "AccessWorld::AddResourceUnder");
  if (!resource.ok()) return;
  apb::CreateAppealRequest req;
  auto* r = req.add_resources();
  r->set_id(*resource);
  r->set_role("viewer");
  r->mutable_options()->set_duration("24h");
  *r->mutable_details() =
      access::JsonToStruct(json{{"lead", "lead@example.com"}, {"ticket", "T-1"}, {"n", 2}});
  auto appeals = w.services.appeals().Create(req, kUser);
  CheckStatus(appeals.status(), "AppealService::Create (policy under test)");
  if (!appeals.ok()) return;
  apb::CreateAppealResponse resp;
  for (const auto& a : *appeals) *resp.add_appeals() = a;
  CheckReply(resp, "CreateAppealResponse (policy under test)");
  for (const auto& a : *appeals) FollowAppeal(w, a);
}

// POST /api/v1beta1/appeals (body "*"): AppealGrpcService::CreateAppeal.
void PostAppeals(absl::string_view body) {
  apb::CreateAppealRequest req;
  if (!ParseBody(body, &req)) return;
  auto w = AccessWorld::Fresh();
  auto appeals = w->services.appeals().Create(req, kUser);
  CheckStatus(appeals.status(), "AppealService::Create");
  if (!appeals.ok()) return;
  apb::CreateAppealResponse resp;
  for (const auto& a : *appeals) *resp.add_appeals() = a;
  CheckReply(resp, "CreateAppealResponse");
  for (const auto& a : *appeals) FollowAppeal(*w, a);
}

// POST /api/v1beta1/policies (body "policy"): PolicyGrpcService::CreatePolicy.
void PostPolicies(absl::string_view body) {
  apb::CreatePolicyRequest req;
  if (!ParseBody(body, req.mutable_policy())) return;
  auto w = AccessWorld::Fresh();
  auto p = w->policies.Create(req.policy(), kAdmin);
  CheckStatus(p.status(), "PolicyService::Create");
  if (!p.ok()) return;
  apb::CreatePolicyResponse resp;
  *resp.mutable_policy() = *p;
  CheckReply(resp, "CreatePolicyResponse");
  CheckPolicySecrets(*w, *p);
  UsePolicy(*w, *p);
}

// PUT /api/v1beta1/policies/{id} (body "policy"): PolicyGrpcService::UpdatePolicy.
// The path id is the body's id, or the IAM policy's when the body has none.
void PutPolicy(absl::string_view body) {
  apb::UpdatePolicyRequest req;
  if (!ParseBody(body, req.mutable_policy())) return;
  req.set_id(req.policy().id().empty() ? kIamPolicyId : req.policy().id());
  auto w = AccessWorld::Fresh();
  auto p = w->policies.Update(req.id(), req.policy(), kAdmin);
  CheckStatus(p.status(), "PolicyService::Update");
  if (!p.ok()) return;
  apb::UpdatePolicyResponse resp;
  *resp.mutable_policy() = *p;
  CheckReply(resp, "UpdatePolicyResponse");
  CheckPolicySecrets(*w, *p);
  UsePolicy(*w, *p);
}

// POST /api/v1beta1/providers (body "config"): ProviderGrpcService::CreateProvider.
void PostProviders(absl::string_view body) {
  apb::CreateProviderRequest req;
  if (!ParseBody(body, req.mutable_config())) return;
  auto w = AccessWorld::Fresh();
  auto p = w->providers.Create(req.config(), kAdmin);
  CheckStatus(p.status(), "ProviderService::Create");
  if (!p.ok()) return;
  apb::CreateProviderResponse resp;
  *resp.mutable_provider() = *p;
  CheckReply(resp, "CreateProviderResponse");
  // Credentials are sealed at rest and come back unchanged for the plugin.
  auto plain = w->providers.GetPlainConfig(req.config().type(), req.config().urn());
  if (!plain.ok()) Fail("ProviderService::GetPlainConfig", plain.status().ToString());
  if (!google::protobuf::util::MessageDifferencer::Equals(plain->credentials(),
                                                          req.config().credentials())) {
    Fail("ProviderService::GetPlainConfig", "credentials changed on the way through the store");
  }
  auto roles = w->providers.ListRoles(p->id(), req.config().resources(0).type());
  CheckStatus(roles.status(), "ProviderService::ListRoles");
}

// POST /api/v1beta1/appeals/{id}/approvals/{approval_name} (body "*"):
// ApprovalGrpcService::UpdateApproval, as the baseline appeal's approver.
void PostApproval(absl::string_view body) {
  apb::UpdateApprovalRequest req;
  if (!ParseBody(body, &req)) return;
  auto w = AccessWorld::Fresh();
  auto a = w->services.approvals().Act(req.id(), req.approval_name(), req.action(), kApprover,
                                       req.reason());
  CheckStatus(a.status(), "ApprovalService::Act");
  if (!a.ok()) return;
  apb::UpdateApprovalResponse resp;
  *resp.mutable_appeal() = *a;
  CheckReply(resp, "UpdateApprovalResponse");
  FollowAppeal(*w, *a);
}

// ---- Notification ----

std::vector<std::string> SecretKeys(const std::string& type) {
  auto it = NotificationWorld::Plugins().find(type);
  return it == NotificationWorld::Plugins().end() ? std::vector<std::string>{}
                                                  : it->second->SecretKeys();
}

// One delivery poll, then what a sender reads back. No message may fail
// through the worker's exception net.
void Deliver(NotificationWorld& w) {
  CheckStatus(w.delivery.RunOnce().status(), "DeliveryWorkerPool::RunOnce");
  for (const auto& [id, row] : w.queue.messages) {
    if (Tracing()) {
      std::fprintf(stderr, "  message %llu to %s: %s %s\n", static_cast<unsigned long long>(id),
                   row.m.receiver_type.c_str(), row.m.status.c_str(), row.m.last_error.c_str());
    }
    if (absl::StartsWith(row.m.last_error, "internal error while delivering")) {
      Fail("delivery", row.m.last_error);
    }
  }
  for (const auto& [id, n] : w.queue.notifications) {
    auto list = w.notifications.ListMessagesFor(id, kUser, /*admin=*/true);
    CheckStatus(list.status(), "NotificationService::ListMessagesFor");
    if (!list.ok()) continue;
    npb::ListNotificationMessagesResponse resp;
    for (const notif::Message& m : *list) api::ToProto(m, resp.add_messages());
    CheckReply(resp, "ListNotificationMessagesResponse");
  }
}

// A notification as PostNotification builds it, to everything `selectors`
// and `labels` reach, with data that exercises templates; then delivered.
void Notify(NotificationWorld& w, std::vector<json> selectors, notif::Labels labels,
            const std::string& template_name) {
  notif::NotificationRequest n;
  n.receivers = std::move(selectors);
  n.data = json{{"service", "api"}, {"items", {"a", "b"}}, {"n", 1.5},
                {"text", "\"quoted\" <b>&</b>\n\u00fcn\u00efcode"}};
  n.template_name = template_name;
  n.labels = std::move(labels);
  auto id = w.notifications.Post(n, "", kSender);
  CheckStatus(id.status(), "NotificationService::Post");
  if (id.ok()) Deliver(w);
}

// A stored receiver keeps its secrets sealed and is read back masked.
void CheckReceiver(NotificationWorld& w, uint64_t id) {
  auto stored = w.receiver_repo.Get(id);
  if (!stored.ok()) Fail("receiver store", stored.status().ToString());
  for (const std::string& k : SecretKeys(stored->type)) {
    const json& c = stored->configurations;
    if (c.is_object() && c.contains(k) && c[k].is_string() &&
        !c[k].get_ref<const std::string&>().empty() &&
        !Crypter::IsEncrypted(c[k].get_ref<const std::string&>())) {
      Fail("receiver store", absl::StrCat("secret \"", k, "\" in plain text"));
    }
  }
  auto got = w.receivers.Get(id);
  CheckStatus(got.status(), "ReceiverService::Get");
  if (!got.ok()) return;
  for (const std::string& k : SecretKeys(got->type)) {
    if (got->configurations.contains(k) && got->configurations[k] != kMaskedSecret) {
      Fail("ReceiverService::Get", absl::StrCat("secret \"", k, "\" not masked"));
    }
  }
  npb::GetReceiverResponse resp;
  api::ToProto(*got, resp.mutable_receiver());
  CheckReply(resp, "GetReceiverResponse");
  auto list = w.receivers.List(got->labels);
  CheckStatus(list.status(), "ReceiverService::List");
}

// Everything a receiver of each type gets.
std::vector<json> AllReceivers() {
  return {{{"team", "ops"}}, {{"type", "pagerduty"}}, {{"type", "file"}}};
}

notif::Receiver ReceiverFrom(const std::string& name, const std::string& type,
                             const google::protobuf::Map<std::string, std::string>& labels,
                             const google::protobuf::Struct& configurations) {
  notif::Receiver r;
  r.name = name;
  r.type = type;
  r.labels = api::LabelsFromMap(labels);
  r.configurations = api::StructToJson(configurations);
  return r;
}

// POST /api/v1beta1/receivers (body "*"): NotificationGrpcService::CreateReceiver.
void PostReceivers(absl::string_view body) {
  npb::CreateReceiverRequest req;
  if (!ParseBody(body, &req)) return;
  auto w = NotificationWorld::Fresh();
  auto id = w->receivers.Create(
      ReceiverFrom(req.name(), req.type(), req.labels(), req.configurations()), kAdmin);
  CheckStatus(id.status(), "ReceiverService::Create");
  if (!id.ok()) return;
  npb::CreateReceiverResponse resp;
  resp.set_id(*id);
  CheckReply(resp, "CreateReceiverResponse");
  CheckReceiver(*w, *id);
  Notify(*w, {{{"id", std::to_string(*id)}}}, {}, "");
}

// PUT /api/v1beta1/receivers/{id} (body "*"): NotificationGrpcService::UpdateReceiver.
void PutReceiver(absl::string_view body) {
  npb::UpdateReceiverRequest req;
  if (!ParseBody(body, &req)) return;
  if (req.id() == 0) return;  // RequireId: InvalidArgument
  auto w = NotificationWorld::Fresh();
  notif::Receiver r = ReceiverFrom(req.name(), req.type(), req.labels(), req.configurations());
  r.id = req.id();
  auto st = w->receivers.Update(std::move(r), kAdmin);
  CheckStatus(st, "ReceiverService::Update");
  if (!st.ok()) return;
  CheckReceiver(*w, req.id());
  Notify(*w, {{{"id", std::to_string(req.id())}}}, {}, "");
}

notif::Subscription SubscriptionFrom(
    const std::string& urn, uint64_t namespace_id,
    const google::protobuf::RepeatedPtrField<npb::SubscriptionReceiver>& receivers,
    const google::protobuf::Map<std::string, std::string>& match) {
  notif::Subscription s;
  s.urn = urn;
  s.namespace_id = namespace_id;
  s.receivers = api::FromProto(receivers);
  s.match = api::LabelsFromMap(match);
  return s;
}

// A stored subscription carries no secrets (they belong to the receiver),
// reads back, and delivers to what it matches.
void FollowSubscription(NotificationWorld& w, uint64_t id) {
  auto stored = w.subscription_repo.Get(id);
  if (!stored.ok()) Fail("subscription store", stored.status().ToString());
  for (const auto& sr : stored->receivers) {
    auto r = w.receiver_repo.Get(sr.id);
    if (!r.ok()) continue;
    for (const std::string& k : SecretKeys(r->type)) {
      if (sr.configuration.is_object() && sr.configuration.contains(k)) {
        Fail("subscription store", absl::StrCat("override holds secret \"", k, "\""));
      }
    }
  }
  auto got = w.subscriptions.Get(id);
  CheckStatus(got.status(), "SubscriptionService::Get");
  if (!got.ok()) return;
  npb::GetSubscriptionResponse resp;
  api::ToProto(*got, resp.mutable_subscription());
  CheckReply(resp, "GetSubscriptionResponse");
  if (!stored->match.empty()) Notify(w, {}, stored->match, "");
}

// POST /api/v1beta1/subscriptions (body "*"): NotificationGrpcService::CreateSubscription.
void PostSubscriptions(absl::string_view body) {
  npb::CreateSubscriptionRequest req;
  if (!ParseBody(body, &req)) return;
  auto w = NotificationWorld::Fresh();
  auto id = w->subscriptions.Create(
      SubscriptionFrom(req.urn(), req.namespace_(), req.receivers(), req.match()), kAdmin);
  CheckStatus(id.status(), "SubscriptionService::Create");
  if (!id.ok()) return;
  FollowSubscription(*w, *id);
}

// PUT /api/v1beta1/subscriptions/{id} (body "*"): NotificationGrpcService::UpdateSubscription.
void PutSubscription(absl::string_view body) {
  npb::UpdateSubscriptionRequest req;
  if (!ParseBody(body, &req)) return;
  if (req.id() == 0) return;  // RequireId: InvalidArgument
  auto w = NotificationWorld::Fresh();
  notif::Subscription s = SubscriptionFrom(req.urn(), req.namespace_(), req.receivers(), req.match());
  s.id = req.id();
  auto st = w->subscriptions.Update(std::move(s), kAdmin);
  CheckStatus(st, "SubscriptionService::Update");
  if (!st.ok()) return;
  FollowSubscription(*w, req.id());
}

// PUT /api/v1beta1/templates (body "*"): NotificationGrpcService::UpsertTemplate;
// then the template renders and is delivered to every receiver type.
void PutTemplates(absl::string_view body) {
  npb::UpsertTemplateRequest req;
  if (!ParseBody(body, &req)) return;
  auto w = NotificationWorld::Fresh();
  notif::Template t;
  t.name = req.name();
  t.body = req.body();
  t.tags.assign(req.tags().begin(), req.tags().end());
  t.variables = api::FromProto(req.variables());
  auto st = w->templates.Upsert(std::move(t), kAdmin);
  CheckStatus(st, "TemplateService::Upsert");
  if (!st.ok()) return;
  auto got = w->templates.Get(req.name());
  CheckStatus(got.status(), "TemplateService::Get");
  if (got.ok()) {
    npb::GetTemplateResponse resp;
    api::ToProto(*got, resp.mutable_template_());
    CheckReply(resp, "GetTemplateResponse");
  }
  Notify(*w, AllReceivers(), {}, req.name());
}

// POST /api/v1beta1/templates/{name}/render (body "*"):
// NotificationGrpcService::RenderTemplate.
void PostRender(absl::string_view body) {
  npb::RenderTemplateRequest req;
  if (!ParseBody(body, &req)) return;
  auto w = NotificationWorld::Fresh();
  // As an admin: every template renders (authorization is not fuzzed here).
  auto rendered = w->templates.Render(req.name(), api::StructToJson(req.variables()), req.receiver_type(),
                                      [](const notification::Template&) { return absl::OkStatus(); });
  CheckStatus(rendered.status(), "TemplateService::Render");
  if (!rendered.ok()) return;
  npb::RenderTemplateResponse resp;
  resp.set_body(*rendered);
  CheckReply(resp, "RenderTemplateResponse");
}

// POST /api/v1beta1/notifications (body "*"): NotificationGrpcService::PostNotification.
void PostNotifications(absl::string_view body) {
  npb::PostNotificationRequest req;
  if (!ParseBody(body, &req)) return;
  auto w = NotificationWorld::Fresh();
  notif::NotificationRequest n;
  for (const auto& sel : req.receivers()) n.receivers.push_back(api::StructToJson(sel));
  if (req.has_data()) n.data = api::StructToJson(req.data());
  n.template_name = req.template_();
  n.labels = api::LabelsFromMap(req.labels());
  auto id = w->notifications.Post(n, "", kSender);
  CheckStatus(id.status(), "NotificationService::Post");
  if (!id.ok()) return;
  npb::PostNotificationResponse resp;
  resp.set_notification_id(*id);
  CheckReply(resp, "PostNotificationResponse");
  Deliver(*w);
}

// POST /api/v1beta1/alerts/{provider_type}/{provider_id}[/{namespace_id}] (body "*"):
// NotificationGrpcService::CreateAlerts, with Alertmanager's token accepted.
void PostAlerts(absl::string_view body) {
  npb::CreateAlertsRequest req;
  if (!ParseBody(body, &req)) return;
  if (req.provider_type().empty() || req.provider_id().empty()) return;  // InvalidArgument
  auto group = api::FromProto(req);
  CheckStatus(group.status(), "api::FromProto(CreateAlertsRequest)");
  if (!group.ok()) return;
  auto w = NotificationWorld::Fresh();
  auto id = w->alerts.Ingest(*std::move(group));
  CheckStatus(id.status(), "AlertService::Ingest");
  if (!id.ok()) return;
  npb::CreateAlertsResponse resp;
  resp.set_alerts(req.alerts_size());
  resp.set_notification_id(*id);
  CheckReply(resp, "CreateAlertsResponse");
  Deliver(*w);
  notif::AlertFilter filter;
  filter.provider_type = req.provider_type();
  filter.provider_id = req.provider_id();
  auto alerts = w->alerts.List(filter);
  CheckStatus(alerts.status(), "AlertService::List");
  if (!alerts.ok()) return;
  npb::ListAlertsResponse list;
  for (const notif::Alert& a : *alerts) api::ToProto(a, list.add_alerts());
  CheckReply(list, "ListAlertsResponse");
}

}  // namespace

const std::map<std::string, RouteFn>& DeepRoutes() {
  static const auto* routes = new std::map<std::string, RouteFn>{
      {"POST /api/v1beta1/appeals", &PostAppeals},
      {"POST /api/v1beta1/policies", &PostPolicies},
      {"PUT /api/v1beta1/policies/{id}", &PutPolicy},
      {"POST /api/v1beta1/providers", &PostProviders},
      {"POST /api/v1beta1/appeals/{id}/approvals/{approval_name}", &PostApproval},
      {"POST /api/v1beta1/receivers", &PostReceivers},
      {"PUT /api/v1beta1/receivers/{id}", &PutReceiver},
      {"POST /api/v1beta1/subscriptions", &PostSubscriptions},
      {"PUT /api/v1beta1/subscriptions/{id}", &PutSubscription},
      {"PUT /api/v1beta1/templates", &PutTemplates},
      {"POST /api/v1beta1/templates/{name}/render", &PostRender},
      {"POST /api/v1beta1/notifications", &PostNotifications},
      {"POST /api/v1beta1/alerts/{provider_type}/{provider_id}", &PostAlerts},
      {"POST /api/v1beta1/alerts/{provider_type}/{provider_id}/{namespace_id}", &PostAlerts},
  };
  return *routes;
}

}  // namespace sluice::fuzz
