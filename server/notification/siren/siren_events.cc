// Siren handlers: alerts (the hook), silences and notifications.
#include "server/notification/siren/siren_service.h"

#include "server/notification/siren/siren_internal.h"

namespace sluice::notification::siren {

// ---- Alerts ----

absl::StatusOr<std::vector<Alert>> SirenGrpcService::Hook(grpc::ServerContext* ctx,
                                                          const std::string& type,
                                                          uint64_t provider_id,
                                                          const google::protobuf::Struct& body,
                                                          std::optional<uint64_t> namespace_id) {
  // Alertmanager authenticates with its bearer token, per hook URL, as on
  // /api/v1beta1/alerts (no identity header involved).
  if (auto st = s_.authenticator->AuthenticateHop(*ctx); !st.ok()) return st;
  if (type.empty() || provider_id == 0) {
    return absl::InvalidArgumentError("provider_type and provider_id are required");
  }
  std::string id = std::to_string(provider_id);
  // Every check comes before the ingest, which notifies: a refusal after it
  // would have notified, then made Alertmanager retry (review R3-L3).
  absl::Status st =
      namespace_id.has_value()
          ? api::CheckNamespaceHook(s_, type, id, *namespace_id, auth::BearerToken(*ctx))
          : api::CheckAlertHookToken(*s_.hook_tokens, type, id, auth::BearerToken(*ctx));
  if (!st.ok()) return st;
  // Siren refuses alerts of a provider it does not hold (core/alert/
  // service.go CreateAlerts: NotFound "provider id does not exist").
  if (s_.alerting != nullptr) {
    auto provider = s_.alerting->GetProvider(provider_id);
    if (absl::IsNotFound(provider.status()) || (provider.ok() && provider->type != type)) {
      return absl::NotFoundError(absl::StrCat("provider ", type, "/", id, " does not exist"));
    }
    if (!provider.ok()) return provider.status();
  }
  auto group = AlertGroupFromBody(body, type, id);
  if (!group.ok()) return group.status();
  group->namespace_id = namespace_id.value_or(0);
  std::vector<Alert> stored;
  auto nid = s_.alerts->Ingest(*std::move(group), &stored);
  if (!nid.ok()) return nid.status();
  return stored;
}

grpc::Status SirenGrpcService::CreateAlerts(grpc::ServerContext* ctx,
                                            const spb::CreateAlertsRequest* req,
                                            spb::CreateAlertsResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "CreateAlerts"), [&]() -> absl::Status {
    auto alerts = Hook(ctx, req->provider_type(), req->provider_id(), req->body(), std::nullopt);
    if (!alerts.ok()) return alerts.status();
    for (const Alert& a : *alerts) ToSiren(a, resp->add_alerts());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::CreateAlertsWithNamespace(
    grpc::ServerContext* ctx, const spb::CreateAlertsWithNamespaceRequest* req,
    spb::CreateAlertsWithNamespaceResponse* resp) {
  return Guarded(absl::StrCat(kSvc, "CreateAlertsWithNamespace"), [&]() -> absl::Status {
    auto alerts = Hook(ctx, req->provider_type(), req->provider_id(), req->body(),
                       req->namespace_id());
    if (!alerts.ok()) return alerts.status();
    for (const Alert& a : *alerts) ToSiren(a, resp->add_alerts());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::ListAlerts(grpc::ServerContext* ctx,
                                          const spb::ListAlertsRequest* req,
                                          spb::ListAlertsResponse* resp) {
  return Call(ctx, "ListAlerts", [&](const Caller&) -> absl::Status {
    AlertFilter f;
    f.provider_type = req->provider_type();
    f.provider_id = req->provider_id() == 0 ? "" : std::to_string(req->provider_id());
    f.namespace_id = req->namespace_id();
    f.resource_name = req->resource_name();
    f.silence_id = req->silence_id();
    if (req->start_time() > 0) f.from = absl::FromUnixSeconds(static_cast<int64_t>(req->start_time()));
    if (req->end_time() > 0) f.to = absl::FromUnixSeconds(static_cast<int64_t>(req->end_time()));
    auto list = s_.alerts->List(f, kAll);
    if (!list.ok()) return list.status();
    for (const Alert& a : *list) ToSiren(a, resp->add_alerts());
    return absl::OkStatus();
  });
}

// ---- Silences (SilenceService, as /api/v1beta1/silences) ----

namespace {

void ToSiren(const notification::Silence& s, spb::Silence* out) {
  out->set_id(s.id);
  out->set_namespace_id(s.namespace_id);
  out->set_type(s.type);
  out->set_target_id(s.target_id);
  (void)api::JsonToStruct(s.target_expression.is_object() ? s.target_expression
                                                          : nlohmann::json::object(),
                          out->mutable_target_expression());
  api::SetTime(s.created_at, out->mutable_created_at());
  // Sluice's silences are never edited: updated_at is created_at.
  api::SetTime(s.created_at, out->mutable_updated_at());
  if (s.deleted_at) api::SetTime(*s.deleted_at, out->mutable_deleted_at());
}

absl::Status NoSilences() { return absl::UnimplementedError("silences are not configured"); }

}  // namespace

grpc::Status SirenGrpcService::CreateSilence(grpc::ServerContext* ctx,
                                             const spb::CreateSilenceRequest* req,
                                             spb::CreateSilenceResponse* resp) {
  return AdminCall(ctx, "CreateSilence", "create silences", [&](const Caller& caller) -> absl::Status {
    if (s_.silences == nullptr) return NoSilences();
    notification::Silence s;
    s.namespace_id = req->namespace_id();
    s.type = req->type();
    s.target_id = req->target_id();
    s.target_expression = api::StructToJson(req->target_expression());
    auto created = s_.silences->Create(std::move(s), caller.identity);
    if (!created.ok()) return created.status();
    resp->set_id(created->id);
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::ListSilences(grpc::ServerContext* ctx,
                                            const spb::ListSilencesRequest* req,
                                            spb::ListSilencesResponse* resp) {
  return Call(ctx, "ListSilences", [&](const Caller&) -> absl::Status {
    if (s_.silences == nullptr) return NoSilences();
    SilenceFilter f;
    f.subscription_id = req->subscription_id();
    f.namespace_id = req->namespace_id();
    f.match = Labels(req->match().begin(), req->match().end());
    f.subscription_match = Labels(req->subscription_match().begin(), req->subscription_match().end());
    auto list = s_.silences->List(f);
    if (!list.ok()) return list.status();
    for (const auto& s : *list) ToSiren(s, resp->add_silences());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::GetSilence(grpc::ServerContext* ctx,
                                          const spb::GetSilenceRequest* req,
                                          spb::GetSilenceResponse* resp) {
  return Call(ctx, "GetSilence", [&](const Caller&) -> absl::Status {
    if (s_.silences == nullptr) return NoSilences();
    auto s = s_.silences->Get(req->id());
    if (!s.ok()) return s.status();
    ToSiren(*s, resp->mutable_silence());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::ExpireSilence(grpc::ServerContext* ctx,
                                             const spb::ExpireSilenceRequest* req,
                                             spb::ExpireSilenceResponse*) {
  return AdminCall(ctx, "ExpireSilence", "expire silences", [&](const Caller&) -> absl::Status {
    if (s_.silences == nullptr) return NoSilences();
    return s_.silences->Expire(req->id());
  });
}

// ---- Notifications ----

grpc::Status SirenGrpcService::PostNotification(grpc::ServerContext* ctx,
                                                const spb::PostNotificationRequest* req,
                                                spb::PostNotificationResponse* resp) {
  return Call(ctx, "PostNotification", [&](const Caller& caller) -> absl::Status {
    // Siren takes one or the other (internal/api/v1beta1/notification.go
    // validatePostNotificationPayload).
    if (!req->receivers().empty() && !req->labels().empty()) {
      return absl::InvalidArgumentError(
          "receivers, labels: send one or the other (receivers select receivers directly; labels "
          "select them through subscriptions)");
    }
    NotificationRequest n;
    for (const auto& sel : req->receivers()) n.receivers.push_back(api::StructToJson(sel));
    if (req->has_data()) n.data = api::StructToJson(req->data());
    n.template_name = req->template_();
    n.labels = Labels(req->labels().begin(), req->labels().end());
    auto id = s_.notifications->Post(n, IdempotencyKey(*ctx), SenderOf(caller, *s_.admins));
    if (!id.ok()) return id.status();
    resp->set_notification_id(std::to_string(*id));
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::PostBulkNotifications(grpc::ServerContext* ctx,
                                                     const spb::PostBulkNotificationsRequest* req,
                                                     spb::PostBulkNotificationsResponse* resp) {
  return Call(ctx, "PostBulkNotifications", [&](const Caller& caller) -> absl::Status {
    if (req->notifications().empty()) {
      return absl::InvalidArgumentError("notifications: at least one is required");
    }
    // The fields Sluice refuses are checked in every notification before any
    // is posted; a failure while posting (e.g. no receiver matched) names its
    // index and which notifications were already sent.
    std::vector<NotificationRequest> batch;
    std::vector<std::string> keys;
    for (int i = 0; i < req->notifications_size(); ++i) {
      const spb::Notification& pn = req->notifications(i);
      std::string field = absl::StrCat("notifications[", i, "]");
      if (!pn.id().empty()) return absl::InvalidArgumentError(field + ".id: set by the server");
      if (pn.has_valid_duration()) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".valid_duration: not supported (notification.message_validity_seconds applies)"));
      }
      if (pn.namespace_id() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ".namespace_id: not supported (a posted notification reaches receivers and "
                   "subscriptions by labels)"));
      }
      NotificationRequest n;
      for (const auto& sel : pn.receiver_selectors()) n.receivers.push_back(ObjectOf(sel.receiver_selector()));
      if (pn.has_data()) n.data = api::StructToJson(pn.data());
      n.template_name = pn.template_();
      n.labels = Labels(pn.labels().begin(), pn.labels().end());
      batch.push_back(std::move(n));
      keys.push_back(pn.unique_key());
    }
    Sender sender = SenderOf(caller, *s_.admins);
    for (size_t i = 0; i < batch.size(); ++i) {
      auto id = s_.notifications->Post(batch[i], keys[i], sender);
      if (!id.ok()) {
        return absl::Status(id.status().code(),
                            absl::StrCat("notifications[", i, "]: ", id.status().message(),
                                         i == 0 ? "" : absl::StrCat(" (notifications[0..", i - 1,
                                                                    "] were sent)")));
      }
      resp->add_notification_ids(std::to_string(*id));
    }
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::ListNotificationMessages(
    grpc::ServerContext* ctx, const spb::ListNotificationMessagesRequest* req,
    spb::ListNotificationMessagesResponse* resp) {
  return Call(ctx, "ListNotificationMessages", [&](const Caller& caller) -> absl::Status {
    auto id = ParseNotificationId(req->notification_id());
    if (!id.ok()) return id.status();
    auto list = s_.notifications->ListMessagesFor(*id, caller.identity,
                                                       s_.admins->Contains(caller));
    if (!list.ok()) return list.status();
    for (const Message& m : *list) ToSiren(m, resp->add_messages());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::ListNotifications(grpc::ServerContext* ctx,
                                                 const spb::ListNotificationsRequest* req,
                                                 spb::ListNotificationsResponse* resp) {
  return Call(ctx, "ListNotifications", [&](const Caller& caller) -> absl::Status {
    if (!req->receiver_selectors().empty()) {
      return absl::InvalidArgumentError(
          "receiver_selectors: not supported (Sluice does not store a notification's selectors)");
    }
    NotificationFilter f;
    f.template_name = req->template_();
    f.labels = Labels(req->labels().begin(), req->labels().end());
    if (req->type() == "alert") {
      f.source = "alert";
    } else if (req->type() == "event") {
      f.source = "api";
    } else if (!req->type().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("type: \"", req->type(), "\" must be alert or event"));
    }
    auto list = s_.notifications->ListFor(f, kMaxPageSize, caller.identity,
                                               s_.admins->Contains(caller));
    if (!list.ok()) return list.status();
    for (const Notification& n : *list) ToSiren(n, resp->add_notifications());
    return absl::OkStatus();
  });
}

}  // namespace sluice::notification::siren
