#include "server/notification/api/grpc_service.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/auth/secret.h"
#include "common/grpc_util.h"
#include "common/paging.h"
#include "server/notification/api/convert.h"

namespace sluice::notification::api {
namespace {

constexpr char kSvc[] = "NotificationService/";

using auth::Caller;

std::string IdempotencyKey(const grpc::ServerContext& ctx) {
  auto it = ctx.client_metadata().find("idempotency-key");
  if (it == ctx.client_metadata().end()) return "";
  return std::string(it->second.data(), it->second.size());
}

absl::Status RequireId(uint64_t id, absl::string_view what) {
  if (id == 0) return absl::InvalidArgumentError(absl::StrCat(what, ": id is required"));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAlertHookToken(const AlertHookTokens& tokens, const std::string& type,
                                const std::string& id, const std::string& presented) {
  std::string url = absl::StrCat(type, "/", id);
  auto it = tokens.find(url);
  if (it == tokens.end()) it = tokens.find("*");
  if (it == tokens.end()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "no token is configured for alert hook ", url,
        " (notification.alert_hook_tokens); the hook is closed"));
  }
  if (presented.empty()) {
    return absl::UnauthenticatedError(
        "alert hook: missing Authorization: Bearer <token> (Alertmanager http_config.authorization)");
  }
  if (!auth::ConstantTimeEquals(presented, it->second)) {
    return absl::UnauthenticatedError(absl::StrCat("alert hook ", url, ": wrong token"));
  }
  return absl::OkStatus();
}

absl::Status CheckNamespaceHook(const Services& s, const std::string& type,
                                const std::string& provider_id, uint64_t namespace_id,
                                const std::string& presented) {
  // Namespace 0's routes are every namespace's subscriptions: refused before
  // anything else (review R3-L3).
  if (namespace_id == 0) {
    return absl::InvalidArgumentError("namespace_id: required (the namespace's id, > 0)");
  }
  uint64_t pid = 0;
  if (!absl::SimpleAtoi(provider_id, &pid) || pid == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "provider_id: \"", provider_id, "\" must be an alert provider's id on a namespace hook"));
  }
  static const AlertHookSecrets kNone;
  if (auto st = CheckNamespaceHookToken(s.hook_secrets ? *s.hook_secrets : kNone, type, pid,
                                        namespace_id, presented);
      !st.ok()) {
    return st;
  }
  if (s.alerting == nullptr) return absl::UnimplementedError("alert namespaces are not served here");
  return s.alerting->CheckHookNamespace(type, pid, namespace_id);
}

template <typename Fn>
grpc::Status NotificationGrpcService::Call(grpc::ServerContext* ctx, const char* method, Fn&& fn) {
  return auth::WithCaller(*s_.authenticator, ctx, absl::StrCat(kSvc, method), fn);
}

template <typename Fn>
grpc::Status NotificationGrpcService::AdminCall(grpc::ServerContext* ctx, const char* method,
                                                const char* what, Fn&& fn) {
  return Call(ctx, method, [&](const Caller& caller) -> absl::Status {
    if (auto st = s_.admins->Require(caller, what, "notification.admins"); !st.ok()) return st;
    return fn(caller);
  });
}

// ---- Receivers ----

grpc::Status NotificationGrpcService::CreateReceiver(grpc::ServerContext* ctx,
                                                     const pb::CreateReceiverRequest* req,
                                                     pb::CreateReceiverResponse* resp) {
  return AdminCall(ctx, "CreateReceiver", "create receivers", [&](const Caller& caller) -> absl::Status {
    Receiver r;
    r.name = req->name();
    r.type = req->type();
    r.labels = LabelsFromMap(req->labels());
    r.configurations = StructToJson(req->configurations());
    r.allowed_senders.assign(req->allowed_senders().begin(), req->allowed_senders().end());
    r.parent_id = req->parent_id();
    auto id = s_.receivers->Create(std::move(r), caller.identity);
    if (!id.ok()) return id.status();
    resp->set_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListReceivers(grpc::ServerContext* ctx,
                                                    const pb::ListReceiversRequest* req,
                                                    pb::ListReceiversResponse* resp) {
  return Call(ctx, "ListReceivers", [&](const Caller&) -> absl::Status {
    auto page = ParsePage(req->size(), req->offset());
    if (!page.ok()) return page.status();
    int total = 0;
    auto list = s_.receivers->List(LabelsFromMap(req->labels()), *page, &total);
    if (!list.ok()) return list.status();
    for (const Receiver& r : *list) ToProto(r, resp->add_receivers());
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::GetReceiver(grpc::ServerContext* ctx,
                                                  const pb::GetReceiverRequest* req,
                                                  pb::GetReceiverResponse* resp) {
  return Call(ctx, "GetReceiver", [&](const Caller&) -> absl::Status {
    auto r = s_.receivers->Get(req->id());
    if (!r.ok()) return r.status();
    ToProto(*r, resp->mutable_receiver());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::UpdateReceiver(grpc::ServerContext* ctx,
                                                     const pb::UpdateReceiverRequest* req,
                                                     pb::UpdateReceiverResponse* resp) {
  return AdminCall(ctx, "UpdateReceiver", "update receivers", [&](const Caller& caller) -> absl::Status {
    if (auto st = RequireId(req->id(), "receiver"); !st.ok()) return st;
    Receiver r;
    r.id = req->id();
    r.name = req->name();
    r.type = req->type();
    r.labels = LabelsFromMap(req->labels());
    r.configurations = StructToJson(req->configurations());
    r.allowed_senders.assign(req->allowed_senders().begin(), req->allowed_senders().end());
    r.parent_id = req->parent_id();
    if (auto st = s_.receivers->Update(std::move(r), caller.identity); !st.ok()) return st;
    resp->set_id(req->id());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::DeleteReceiver(grpc::ServerContext* ctx,
                                                     const pb::DeleteReceiverRequest* req,
                                                     pb::DeleteReceiverResponse*) {
  return AdminCall(ctx, "DeleteReceiver", "delete receivers", [&](const Caller& caller) { return s_.receivers->Delete(req->id(), caller.identity); });
}

// ---- Subscriptions ----

grpc::Status NotificationGrpcService::CreateSubscription(grpc::ServerContext* ctx,
                                                         const pb::CreateSubscriptionRequest* req,
                                                         pb::CreateSubscriptionResponse* resp) {
  return AdminCall(ctx, "CreateSubscription", "create subscriptions", [&](const Caller& caller) -> absl::Status {
    Subscription s;
    s.urn = req->urn();
    s.namespace_id = req->namespace_();
    s.receivers = FromProto(req->receivers());
    s.match = LabelsFromMap(req->match());
    s.allowed_senders.assign(req->allowed_senders().begin(), req->allowed_senders().end());
    s.metadata = StructToJson(req->metadata());
    s.created_by = caller.identity;
    s.updated_by = caller.identity;
    auto id = s_.subscriptions->Create(std::move(s), caller.identity);
    if (!id.ok()) return id.status();
    resp->set_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListSubscriptions(grpc::ServerContext* ctx,
                                                        const pb::ListSubscriptionsRequest* req,
                                                        pb::ListSubscriptionsResponse* resp) {
  return Call(ctx, "ListSubscriptions", [&](const Caller&) -> absl::Status {
    auto page = ParsePage(req->size(), req->offset());
    if (!page.ok()) return page.status();
    int total = 0;
    auto list =
        s_.subscriptions->List(req->namespace_id(), LabelsFromMap(req->match()), *page, &total);
    if (!list.ok()) return list.status();
    for (const Subscription& s : *list) ToProto(s, resp->add_subscriptions());
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::GetSubscription(grpc::ServerContext* ctx,
                                                      const pb::GetSubscriptionRequest* req,
                                                      pb::GetSubscriptionResponse* resp) {
  return Call(ctx, "GetSubscription", [&](const Caller&) -> absl::Status {
    auto s = s_.subscriptions->Get(req->id());
    if (!s.ok()) return s.status();
    ToProto(*s, resp->mutable_subscription());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::UpdateSubscription(grpc::ServerContext* ctx,
                                                         const pb::UpdateSubscriptionRequest* req,
                                                         pb::UpdateSubscriptionResponse* resp) {
  return AdminCall(ctx, "UpdateSubscription", "update subscriptions", [&](const Caller& caller) -> absl::Status {
    if (auto st = RequireId(req->id(), "subscription"); !st.ok()) return st;
    Subscription s;
    s.id = req->id();
    s.urn = req->urn();
    s.namespace_id = req->namespace_();
    s.receivers = FromProto(req->receivers());
    s.match = LabelsFromMap(req->match());
    s.allowed_senders.assign(req->allowed_senders().begin(), req->allowed_senders().end());
    s.metadata = StructToJson(req->metadata());
    s.updated_by = caller.identity;
    if (auto st = s_.subscriptions->Update(std::move(s), caller.identity); !st.ok()) return st;
    resp->set_id(req->id());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::DeleteSubscription(grpc::ServerContext* ctx,
                                                         const pb::DeleteSubscriptionRequest* req,
                                                         pb::DeleteSubscriptionResponse*) {
  return AdminCall(ctx, "DeleteSubscription", "delete subscriptions", [&](const Caller& caller) { return s_.subscriptions->Delete(req->id(), caller.identity); });
}

// ---- Templates ----

grpc::Status NotificationGrpcService::UpsertTemplate(grpc::ServerContext* ctx,
                                                     const pb::UpsertTemplateRequest* req,
                                                     pb::UpsertTemplateResponse* resp) {
  return AdminCall(ctx, "UpsertTemplate", "change templates", [&](const Caller& caller) -> absl::Status {
    Template t;
    t.name = req->name();
    t.body = req->body();
    t.tags.assign(req->tags().begin(), req->tags().end());
    t.variables = FromProto(req->variables());
    t.engine = req->engine();  // "" -> mustache (TemplateService::Upsert)
    if (auto st = s_.templates->Upsert(std::move(t), caller.identity); !st.ok()) return st;
    resp->set_name(req->name());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListTemplates(grpc::ServerContext* ctx,
                                                    const pb::ListTemplatesRequest* req,
                                                    pb::ListTemplatesResponse* resp) {
  return Call(ctx, "ListTemplates", [&](const Caller&) -> absl::Status {
    auto page = ParsePage(req->size(), req->offset());
    if (!page.ok()) return page.status();
    int total = 0;
    auto list = s_.templates->List(req->tag(), *page, &total);
    if (!list.ok()) return list.status();
    for (const Template& t : *list) ToProto(t, resp->add_templates());
    resp->set_total(total);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::GetTemplate(grpc::ServerContext* ctx,
                                                  const pb::GetTemplateRequest* req,
                                                  pb::GetTemplateResponse* resp) {
  return Call(ctx, "GetTemplate", [&](const Caller&) -> absl::Status {
    auto t = s_.templates->Get(req->name());
    if (!t.ok()) return t.status();
    ToProto(*t, resp->mutable_template_());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::DeleteTemplate(grpc::ServerContext* ctx,
                                                     const pb::DeleteTemplateRequest* req,
                                                     pb::DeleteTemplateResponse*) {
  return AdminCall(ctx, "DeleteTemplate", "delete templates", [&](const Caller& caller) { return s_.templates->Delete(req->name(), caller.identity); });
}

grpc::Status NotificationGrpcService::RenderTemplate(grpc::ServerContext* ctx,
                                                     const pb::RenderTemplateRequest* req,
                                                     pb::RenderTemplateResponse* resp) {
  return Call(ctx, "RenderTemplate", [&](const Caller& caller) -> absl::Status {
    Sender sender = SenderOf(caller, *s_.admins);
    auto body = s_.templates->Render(req->name(), StructToJson(req->variables()), req->receiver_type(),
                                     [&](const Template& t) { return s_.notifications->CheckRender(t, sender); });
    if (!body.ok()) return body.status();
    resp->set_body(*body);
    return absl::OkStatus();
  });
}

// ---- Notifications ----

grpc::Status NotificationGrpcService::PostNotification(grpc::ServerContext* ctx,
                                                       const pb::PostNotificationRequest* req,
                                                       pb::PostNotificationResponse* resp) {
  return Call(ctx, "PostNotification", [&](const Caller& caller) -> absl::Status {
    NotificationRequest n;
    for (const auto& sel : req->receivers()) n.receivers.push_back(StructToJson(sel));
    if (req->has_data()) n.data = StructToJson(req->data());
    n.template_name = req->template_();
    n.labels = LabelsFromMap(req->labels());
    Sender sender = SenderOf(caller, *s_.admins);
    auto id = s_.notifications->Post(n, IdempotencyKey(*ctx), sender);
    if (!id.ok()) return id.status();
    resp->set_notification_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListNotificationMessages(
    grpc::ServerContext* ctx, const pb::ListNotificationMessagesRequest* req,
    pb::ListNotificationMessagesResponse* resp) {
  return Call(ctx, "ListNotificationMessages", [&](const Caller& caller) -> absl::Status {
    auto list = s_.notifications->ListMessagesFor(req->id(), caller.identity,
                                                  s_.admins->Contains(caller));
    if (!list.ok()) return list.status();
    for (const Message& m : *list) ToProto(m, resp->add_messages());
    return absl::OkStatus();
  });
}

// ---- Alerts ----

grpc::Status NotificationGrpcService::CreateAlerts(grpc::ServerContext* ctx,
                                                   const pb::CreateAlertsRequest* req,
                                                   pb::CreateAlertsResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "CreateAlerts"), [&]() -> absl::Status {
    // Alertmanager authenticates with its own bearer token (http_config
    // authorization), per hook URL; no identity header is involved.
    if (auto st = s_.authenticator->AuthenticateHop(*ctx); !st.ok()) return st;
    if (req->provider_type().empty() || req->provider_id().empty()) {
      return absl::InvalidArgumentError("provider_type and provider_id are required");
    }
    // The namespace variant takes the namespace's own token only (R3-M2).
    absl::Status st = req->namespace_id() == 0
                          ? CheckAlertHookToken(*s_.hook_tokens, req->provider_type(),
                                                req->provider_id(), auth::BearerToken(*ctx))
                          : CheckNamespaceHook(s_, req->provider_type(), req->provider_id(),
                                               req->namespace_id(), auth::BearerToken(*ctx));
    if (!st.ok()) return st;
    auto group = FromProto(*req);
    if (!group.ok()) return group.status();
    auto id = s_.alerts->Ingest(*std::move(group));
    if (!id.ok()) return id.status();
    resp->set_alerts(req->alerts_size());
    resp->set_notification_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListAlerts(grpc::ServerContext* ctx,
                                                 const pb::ListAlertsRequest* req,
                                                 pb::ListAlertsResponse* resp) {
  return Call(ctx, "ListAlerts", [&](const Caller&) -> absl::Status {
    auto page = ParsePage(req->size(), req->offset());
    if (!page.ok()) return page.status();
    int total = 0;
    auto list = s_.alerts->List(FromProto(*req), *page, &total);
    if (!list.ok()) return list.status();
    for (const Alert& a : *list) ToProto(a, resp->add_alerts());
    resp->set_total(total);
    return absl::OkStatus();
  });
}

// ---- Silences ----

namespace {

absl::Status NoSilences() {
  return absl::UnimplementedError("silences are not configured on this server");
}

}  // namespace

grpc::Status NotificationGrpcService::CreateSilence(grpc::ServerContext* ctx,
                                                    const pb::CreateSilenceRequest* req,
                                                    pb::CreateSilenceResponse* resp) {
  return AdminCall(ctx, "CreateSilence", "create silences", [&](const Caller& caller) -> absl::Status {
    if (s_.silences == nullptr) return NoSilences();
    auto created = s_.silences->Create(FromProto(*req), caller.identity);
    if (!created.ok()) return created.status();
    resp->set_id(created->id);
    ToProto(*created, resp->mutable_silence());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListSilences(grpc::ServerContext* ctx,
                                                   const pb::ListSilencesRequest* req,
                                                   pb::ListSilencesResponse* resp) {
  return Call(ctx, "ListSilences", [&](const Caller&) -> absl::Status {
    if (s_.silences == nullptr) return NoSilences();
    auto list = s_.silences->List(FromProto(*req));
    if (!list.ok()) return list.status();
    for (const Silence& s : *list) ToProto(s, resp->add_silences());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::GetSilence(grpc::ServerContext* ctx,
                                                 const pb::GetSilenceRequest* req,
                                                 pb::GetSilenceResponse* resp) {
  return Call(ctx, "GetSilence", [&](const Caller&) -> absl::Status {
    if (s_.silences == nullptr) return NoSilences();
    auto got = s_.silences->Get(req->id());
    if (!got.ok()) return got.status();
    ToProto(*got, resp->mutable_silence());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ExpireSilence(grpc::ServerContext* ctx,
                                                    const pb::ExpireSilenceRequest* req,
                                                    pb::ExpireSilenceResponse*) {
  return AdminCall(ctx, "ExpireSilence", "expire silences", [&](const Caller&) -> absl::Status {
    if (s_.silences == nullptr) return NoSilences();
    return s_.silences->Expire(req->id());
  });
}

}  // namespace sluice::notification::api
