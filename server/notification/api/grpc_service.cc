#include "server/notification/api/grpc_service.h"

#include "absl/strings/str_cat.h"
#include "common/grpc_util.h"
#include "server/notification/api/convert.h"

namespace sluice::notification::api {
namespace {

constexpr char kSvc[] = "NotificationService/";

// The audit actor: the caller's email, or "anonymous".
std::string Actor(const grpc::ServerContext& ctx) {
  std::string email = CallerEmail(ctx);
  return email.empty() ? "anonymous" : email;
}

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

// ---- Receivers ----

grpc::Status NotificationGrpcService::CreateReceiver(grpc::ServerContext* ctx,
                                                     const pb::CreateReceiverRequest* req,
                                                     pb::CreateReceiverResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "CreateReceiver"), [&]() -> absl::Status {
    Receiver r;
    r.name = req->name();
    r.type = req->type();
    r.labels = LabelsFromMap(req->labels());
    r.configurations = StructToJson(req->configurations());
    auto id = s_.receivers->Create(std::move(r), Actor(*ctx));
    if (!id.ok()) return id.status();
    resp->set_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListReceivers(grpc::ServerContext*,
                                                    const pb::ListReceiversRequest* req,
                                                    pb::ListReceiversResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "ListReceivers"), [&]() -> absl::Status {
    auto list = s_.receivers->List(LabelsFromMap(req->labels()));
    if (!list.ok()) return list.status();
    for (const Receiver& r : *list) ToProto(r, resp->add_receivers());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::GetReceiver(grpc::ServerContext*,
                                                  const pb::GetReceiverRequest* req,
                                                  pb::GetReceiverResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "GetReceiver"), [&]() -> absl::Status {
    auto r = s_.receivers->Get(req->id());
    if (!r.ok()) return r.status();
    ToProto(*r, resp->mutable_receiver());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::UpdateReceiver(grpc::ServerContext* ctx,
                                                     const pb::UpdateReceiverRequest* req,
                                                     pb::UpdateReceiverResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "UpdateReceiver"), [&]() -> absl::Status {
    if (auto st = RequireId(req->id(), "receiver"); !st.ok()) return st;
    Receiver r;
    r.id = req->id();
    r.name = req->name();
    r.type = req->type();
    r.labels = LabelsFromMap(req->labels());
    r.configurations = StructToJson(req->configurations());
    if (auto st = s_.receivers->Update(std::move(r), Actor(*ctx)); !st.ok()) return st;
    resp->set_id(req->id());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::DeleteReceiver(grpc::ServerContext* ctx,
                                                     const pb::DeleteReceiverRequest* req,
                                                     pb::DeleteReceiverResponse*) {
  return Guarded(absl::StrCat(kSvc, "DeleteReceiver"),
                 [&]() { return s_.receivers->Delete(req->id(), Actor(*ctx)); });
}

// ---- Subscriptions ----

grpc::Status NotificationGrpcService::CreateSubscription(grpc::ServerContext* ctx,
                                                         const pb::CreateSubscriptionRequest* req,
                                                         pb::CreateSubscriptionResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "CreateSubscription"), [&]() -> absl::Status {
    Subscription s;
    s.urn = req->urn();
    s.namespace_id = req->namespace_();
    s.receivers = FromProto(req->receivers());
    s.match = LabelsFromMap(req->match());
    auto id = s_.subscriptions->Create(std::move(s), Actor(*ctx));
    if (!id.ok()) return id.status();
    resp->set_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListSubscriptions(grpc::ServerContext*,
                                                        const pb::ListSubscriptionsRequest* req,
                                                        pb::ListSubscriptionsResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "ListSubscriptions"), [&]() -> absl::Status {
    auto list = s_.subscriptions->List(req->namespace_id(), LabelsFromMap(req->match()));
    if (!list.ok()) return list.status();
    for (const Subscription& s : *list) ToProto(s, resp->add_subscriptions());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::GetSubscription(grpc::ServerContext*,
                                                      const pb::GetSubscriptionRequest* req,
                                                      pb::GetSubscriptionResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "GetSubscription"), [&]() -> absl::Status {
    auto s = s_.subscriptions->Get(req->id());
    if (!s.ok()) return s.status();
    ToProto(*s, resp->mutable_subscription());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::UpdateSubscription(grpc::ServerContext* ctx,
                                                         const pb::UpdateSubscriptionRequest* req,
                                                         pb::UpdateSubscriptionResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "UpdateSubscription"), [&]() -> absl::Status {
    if (auto st = RequireId(req->id(), "subscription"); !st.ok()) return st;
    Subscription s;
    s.id = req->id();
    s.urn = req->urn();
    s.namespace_id = req->namespace_();
    s.receivers = FromProto(req->receivers());
    s.match = LabelsFromMap(req->match());
    if (auto st = s_.subscriptions->Update(std::move(s), Actor(*ctx)); !st.ok()) return st;
    resp->set_id(req->id());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::DeleteSubscription(grpc::ServerContext* ctx,
                                                         const pb::DeleteSubscriptionRequest* req,
                                                         pb::DeleteSubscriptionResponse*) {
  return Guarded(absl::StrCat(kSvc, "DeleteSubscription"),
                 [&]() { return s_.subscriptions->Delete(req->id(), Actor(*ctx)); });
}

// ---- Templates ----

grpc::Status NotificationGrpcService::UpsertTemplate(grpc::ServerContext* ctx,
                                                     const pb::UpsertTemplateRequest* req,
                                                     pb::UpsertTemplateResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "UpsertTemplate"), [&]() -> absl::Status {
    Template t;
    t.name = req->name();
    t.body = req->body();
    t.tags.assign(req->tags().begin(), req->tags().end());
    t.variables = FromProto(req->variables());
    if (auto st = s_.templates->Upsert(std::move(t), Actor(*ctx)); !st.ok()) return st;
    resp->set_name(req->name());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListTemplates(grpc::ServerContext*,
                                                    const pb::ListTemplatesRequest* req,
                                                    pb::ListTemplatesResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "ListTemplates"), [&]() -> absl::Status {
    auto list = s_.templates->List(req->tag());
    if (!list.ok()) return list.status();
    for (const Template& t : *list) ToProto(t, resp->add_templates());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::GetTemplate(grpc::ServerContext*,
                                                  const pb::GetTemplateRequest* req,
                                                  pb::GetTemplateResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "GetTemplate"), [&]() -> absl::Status {
    auto t = s_.templates->Get(req->name());
    if (!t.ok()) return t.status();
    ToProto(*t, resp->mutable_template_());
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::DeleteTemplate(grpc::ServerContext* ctx,
                                                     const pb::DeleteTemplateRequest* req,
                                                     pb::DeleteTemplateResponse*) {
  return Guarded(absl::StrCat(kSvc, "DeleteTemplate"),
                 [&]() { return s_.templates->Delete(req->name(), Actor(*ctx)); });
}

grpc::Status NotificationGrpcService::RenderTemplate(grpc::ServerContext*,
                                                     const pb::RenderTemplateRequest* req,
                                                     pb::RenderTemplateResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "RenderTemplate"), [&]() -> absl::Status {
    auto body = s_.templates->Render(req->name(), StructToJson(req->variables()),
                                     req->receiver_type());
    if (!body.ok()) return body.status();
    resp->set_body(*body);
    return absl::OkStatus();
  });
}

// ---- Notifications ----

grpc::Status NotificationGrpcService::PostNotification(grpc::ServerContext* ctx,
                                                       const pb::PostNotificationRequest* req,
                                                       pb::PostNotificationResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "PostNotification"), [&]() -> absl::Status {
    NotificationRequest n;
    for (const auto& sel : req->receivers()) n.receivers.push_back(StructToJson(sel));
    if (req->has_data()) n.data = StructToJson(req->data());
    n.template_name = req->template_();
    n.labels = LabelsFromMap(req->labels());
    auto id = s_.notifications->Post(n, IdempotencyKey(*ctx), CallerEmail(*ctx));
    if (!id.ok()) return id.status();
    resp->set_notification_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListNotificationMessages(
    grpc::ServerContext*, const pb::ListNotificationMessagesRequest* req,
    pb::ListNotificationMessagesResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "ListNotificationMessages"), [&]() -> absl::Status {
    auto list = s_.notifications->ListMessages(req->id());
    if (!list.ok()) return list.status();
    for (const Message& m : *list) ToProto(m, resp->add_messages());
    return absl::OkStatus();
  });
}

// ---- Alerts ----

grpc::Status NotificationGrpcService::CreateAlerts(grpc::ServerContext*,
                                                   const pb::CreateAlertsRequest* req,
                                                   pb::CreateAlertsResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "CreateAlerts"), [&]() -> absl::Status {
    if (req->provider_type().empty() || req->provider_id().empty()) {
      return absl::InvalidArgumentError("provider_type and provider_id are required");
    }
    auto group = FromProto(*req);
    if (!group.ok()) return group.status();
    auto id = s_.alerts->Ingest(*std::move(group));
    if (!id.ok()) return id.status();
    resp->set_alerts(req->alerts_size());
    resp->set_notification_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status NotificationGrpcService::ListAlerts(grpc::ServerContext*,
                                                 const pb::ListAlertsRequest* req,
                                                 pb::ListAlertsResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "ListAlerts"), [&]() -> absl::Status {
    absl::Time from = req->start_time() > 0 ? absl::FromUnixSeconds(req->start_time())
                                            : absl::InfinitePast();
    absl::Time to = req->end_time() > 0 ? absl::FromUnixSeconds(req->end_time())
                                        : absl::InfiniteFuture();
    auto list = s_.alerts->List(req->provider_type(), req->provider_id(), from, to);
    if (!list.ok()) return list.status();
    for (const Alert& a : *list) ToProto(a, resp->add_alerts());
    return absl::OkStatus();
  });
}

}  // namespace sluice::notification::api
