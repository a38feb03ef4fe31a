// Siren handlers: receivers, subscriptions and their receiver relations, templates, v1.
#include "server/notification/siren/siren_service.h"

#include "server/notification/siren/siren_internal.h"

namespace sluice::notification::siren {

// ---- Receivers ----

grpc::Status SirenGrpcService::NotifyReceiver(grpc::ServerContext* ctx,
                                              const spb::NotifyReceiverRequest* req,
                                              spb::NotifyReceiverResponse*) {
  return Call(ctx, "NotifyReceiver", [&](const Caller& caller) -> absl::Status {
    if (req->id() == 0) return absl::InvalidArgumentError("id: receiver id is required");
    NotificationRequest n;
    n.receivers.push_back({{"id", req->id()}});
    n.data = api::StructToJson(req->payload());
    auto id = s_.notifications->Post(n, IdempotencyKey(*ctx), SenderOf(caller, *s_.admins));
    return id.status();
  });
}

grpc::Status SirenGrpcService::ListReceivers(grpc::ServerContext* ctx,
                                             const spb::ListReceiversRequest* req,
                                             spb::ListReceiversResponse* resp) {
  return Call(ctx, "ListReceivers", [&](const Caller&) -> absl::Status {
    auto list = s_.receivers->List(Labels(req->labels().begin(), req->labels().end()), kAll);
    if (!list.ok()) return list.status();
    for (const Receiver& r : *list) ToSiren(r, resp->add_receivers());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::CreateReceiver(grpc::ServerContext* ctx,
                                              const spb::CreateReceiverRequest* req,
                                              spb::CreateReceiverResponse* resp) {
  return AdminCall(ctx, "CreateReceiver", "create receivers", [&](const Caller& caller) -> absl::Status {
    Receiver r;
    r.parent_id = req->parent_id();
    r.name = req->name();
    r.type = req->type();
    r.labels = Labels(req->labels().begin(), req->labels().end());
    r.configurations = api::StructToJson(req->configurations());
    // Siren's request has no allowed_senders: a child takes its parent's,
    // which also narrow it at send time (security review R3-L4).
    if (r.parent_id != 0) {
      auto parent = s_.receivers->Get(r.parent_id);
      if (parent.ok()) r.allowed_senders = parent->allowed_senders;
    }
    auto id = s_.receivers->Create(std::move(r), caller.identity);
    if (!id.ok()) return id.status();
    resp->set_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::GetReceiver(grpc::ServerContext* ctx,
                                           const spb::GetReceiverRequest* req,
                                           spb::GetReceiverResponse* resp) {
  return Call(ctx, "GetReceiver", [&](const Caller&) -> absl::Status {
    auto r = s_.receivers->Get(req->id());
    if (!r.ok()) return r.status();
    ToSiren(*r, resp->mutable_receiver());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::UpdateReceiver(grpc::ServerContext* ctx,
                                              const spb::UpdateReceiverRequest* req,
                                              spb::UpdateReceiverResponse* resp) {
  return AdminCall(ctx, "UpdateReceiver", "update receivers", [&](const Caller& caller) -> absl::Status {
    // Siren's update has no type and no allowed_senders: both stay.
    auto current = s_.receivers->Get(req->id());
    if (!current.ok()) return current.status();
    Receiver r;
    r.id = req->id();
    r.name = req->name();
    r.labels = Labels(req->labels().begin(), req->labels().end());
    r.configurations = api::StructToJson(req->configurations());
    r.allowed_senders = current->allowed_senders;
    r.parent_id = req->parent_id();  // 0 keeps the stored parent
    if (auto st = s_.receivers->Update(std::move(r), caller.identity); !st.ok()) return st;
    resp->set_id(req->id());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::DeleteReceiver(grpc::ServerContext* ctx,
                                              const spb::DeleteReceiverRequest* req,
                                              spb::DeleteReceiverResponse*) {
  return AdminCall(ctx, "DeleteReceiver", "delete receivers", [&](const Caller& caller) {
    return s_.receivers->Delete(req->id(), caller.identity);
  });
}

// ---- Subscriptions ----

grpc::Status SirenGrpcService::ListSubscriptions(grpc::ServerContext* ctx,
                                                 const spb::ListSubscriptionsRequest* req,
                                                 spb::ListSubscriptionsResponse* resp) {
  return Call(ctx, "ListSubscriptions", [&](const Caller&) -> absl::Status {
    if (!req->silence_id().empty()) return NoSilenceLog();
    auto list = s_.subscriptions->List(FilterOf(*req), kAll);
    if (!list.ok()) return list.status();
    for (const Subscription& s : *list) ToSiren(s, resp->add_subscriptions());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::CreateSubscription(grpc::ServerContext* ctx,
                                                  const spb::CreateSubscriptionRequest* req,
                                                  spb::CreateSubscriptionResponse* resp) {
  return AdminCall(ctx, "CreateSubscription", "create subscriptions", [&](const Caller& caller) -> absl::Status {
    // Siren refuses a subscription to a namespace it does not hold
    // (core/subscription/service.go Create: "namespace id does not exist").
    if (req->namespace_() != 0 && s_.alerting != nullptr) {
      auto ns = s_.alerting->GetNamespace(req->namespace_());
      if (absl::IsNotFound(ns.status())) {
        return absl::NotFoundError(
            absl::StrCat("namespace: ", req->namespace_(), " does not exist; create it first"));
      }
      if (!ns.ok()) return ns.status();
    }
    Subscription s;
    s.urn = req->urn();
    s.namespace_id = req->namespace_();
    s.receivers = FromSiren(req->receivers());
    s.match = Labels(req->match().begin(), req->match().end());
    s.metadata = api::StructToJson(req->metadata());
    s.created_by = req->created_by();
    s.updated_by = req->created_by();
    auto id = s_.subscriptions->Create(std::move(s), caller.identity);
    if (!id.ok()) return id.status();
    resp->set_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::GetSubscription(grpc::ServerContext* ctx,
                                               const spb::GetSubscriptionRequest* req,
                                               spb::GetSubscriptionResponse* resp) {
  return Call(ctx, "GetSubscription", [&](const Caller&) -> absl::Status {
    auto s = s_.subscriptions->Get(req->id());
    if (!s.ok()) return s.status();
    ToSiren(*s, resp->mutable_subscription());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::UpdateSubscription(grpc::ServerContext* ctx,
                                                  const spb::UpdateSubscriptionRequest* req,
                                                  spb::UpdateSubscriptionResponse* resp) {
  return AdminCall(ctx, "UpdateSubscription", "update subscriptions", [&](const Caller& caller) -> absl::Status {
    // allowed_senders (Sluice's) and created_by stay as stored.
    auto current = s_.subscriptions->Get(req->id());
    if (!current.ok()) return current.status();
    Subscription s = *std::move(current);
    s.urn = req->urn();
    s.namespace_id = req->namespace_();
    s.receivers = FromSiren(req->receivers());
    s.match = Labels(req->match().begin(), req->match().end());
    s.metadata = api::StructToJson(req->metadata());
    s.updated_by = req->updated_by();
    if (auto st = s_.subscriptions->Update(std::move(s), caller.identity); !st.ok()) return st;
    resp->set_id(req->id());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::DeleteSubscription(grpc::ServerContext* ctx,
                                                  const spb::DeleteSubscriptionRequest* req,
                                                  spb::DeleteSubscriptionResponse*) {
  return AdminCall(ctx, "DeleteSubscription", "delete subscriptions", [&](const Caller& caller) {
    return s_.subscriptions->Delete(req->id(), caller.identity);
  });
}

grpc::Status SirenGrpcService::ListSubscriptionReceivers(
    grpc::ServerContext* ctx, const spb::ListSubscriptionReceiversRequest* req,
    spb::ListSubscriptionReceiversResponse* resp) {
  return Call(ctx, "ListSubscriptionReceivers", [&](const Caller&) -> absl::Status {
    auto s = s_.subscriptions->Get(req->subscription_id());
    if (!s.ok()) return s.status();
    for (const auto& r : s->receivers) {
      // Siren's filter: the relation's labels contain every requested pair.
      bool contains = true;
      for (const auto& [k, v] : req->labels()) {
        auto it = r.labels.find(k);
        if (it == r.labels.end() || it->second != v) contains = false;
      }
      if (contains) ToSiren(s->id, r, resp->add_subscription_receivers());
    }
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::AddSubscriptionReceiver(
    grpc::ServerContext* ctx, const spb::AddSubscriptionReceiverRequest* req,
    spb::AddSubscriptionReceiverResponse* resp) {
  return AdminCall(ctx, "AddSubscriptionReceiver", "update subscriptions", [&](const Caller& caller) -> absl::Status {
    Labels labels(req->labels().begin(), req->labels().end());
    if (auto st = s_.subscriptions->AddReceiver(req->subscription_id(), req->receiver_id(),
                                                     labels, caller.identity);
        !st.ok()) {
      return st;
    }
    resp->set_subscription_id(req->subscription_id());
    resp->set_receiver_id(req->receiver_id());
    *resp->mutable_labels() = req->labels();
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::UpdateSubscriptionReceiver(
    grpc::ServerContext* ctx, const spb::UpdateSubscriptionReceiverRequest* req,
    spb::UpdateSubscriptionReceiverResponse* resp) {
  return AdminCall(ctx, "UpdateSubscriptionReceiver", "update subscriptions", [&](const Caller& caller) -> absl::Status {
    Labels labels(req->labels().begin(), req->labels().end());
    if (auto st = s_.subscriptions->UpdateReceiverLabels(
            req->subscription_id(), req->receiver_id(), labels, caller.identity);
        !st.ok()) {
      return st;
    }
    resp->set_subscription_id(req->subscription_id());
    resp->set_receiver_id(req->receiver_id());
    *resp->mutable_labels() = req->labels();
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::DeleteSubscriptionReceiver(
    grpc::ServerContext* ctx, const spb::DeleteSubscriptionReceiverRequest* req,
    spb::DeleteSubscriptionReceiverResponse*) {
  return AdminCall(ctx, "DeleteSubscriptionReceiver", "update subscriptions", [&](const Caller& caller) {
    return s_.subscriptions->RemoveReceiver(req->subscription_id(), req->receiver_id(),
                                                 caller.identity);
  });
}

// ---- Templates ----

grpc::Status SirenGrpcService::ListTemplates(grpc::ServerContext* ctx,
                                             const spb::ListTemplatesRequest* req,
                                             spb::ListTemplatesResponse* resp) {
  return Call(ctx, "ListTemplates", [&](const Caller&) -> absl::Status {
    auto list = s_.templates->List(req->tag(), kAll);
    if (!list.ok()) return list.status();
    for (const Template& t : *list) ToSiren(t, resp->add_templates());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::GetTemplate(grpc::ServerContext* ctx,
                                           const spb::GetTemplateRequest* req,
                                           spb::GetTemplateResponse* resp) {
  return Call(ctx, "GetTemplate", [&](const Caller&) -> absl::Status {
    auto t = s_.templates->Get(req->name());
    if (!t.ok()) return t.status();
    ToSiren(*t, resp->mutable_template_());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::UpsertTemplate(grpc::ServerContext* ctx,
                                              const spb::UpsertTemplateRequest* req,
                                              spb::UpsertTemplateResponse*) {
  return AdminCall(ctx, "UpsertTemplate", "change templates", [&](const Caller& caller) -> absl::Status {
    Template t;
    t.name = req->name();
    t.body = req->body();
    t.tags.assign(req->tags().begin(), req->tags().end());
    t.variables = FromSiren(req->variables());
    t.engine = "go";  // Siren's templates: Go text/template with [[ ]], YAML bodies
    return s_.templates->Upsert(std::move(t), caller.identity);
  });
}

grpc::Status SirenGrpcService::DeleteTemplate(grpc::ServerContext* ctx,
                                              const spb::DeleteTemplateRequest* req,
                                              spb::DeleteTemplateResponse*) {
  return AdminCall(ctx, "DeleteTemplate", "delete templates", [&](const Caller& caller) {
    return s_.templates->Delete(req->name(), caller.identity);
  });
}

grpc::Status SirenGrpcService::RenderTemplate(grpc::ServerContext* ctx,
                                              const spb::RenderTemplateRequest* req,
                                              spb::RenderTemplateResponse* resp) {
  return Call(ctx, "RenderTemplate", [&](const Caller& caller) -> absl::Status {
    Sender sender = SenderOf(caller, *s_.admins);
    auto body = s_.templates->Render(req->name(), ObjectOf(req->variables()), "",
                                     [&](const Template& t) { return s_.notifications->CheckRender(t, sender); });
    if (!body.ok()) return body.status();
    resp->set_body(*body);
    return absl::OkStatus();
  });
}

// ---- v1 ----

grpc::Status SirenV1GrpcService::ListSubscriptions(grpc::ServerContext* ctx,
                                                   const spb1::ListSubscriptionsRequest* req,
                                                   spb1::ListSubscriptionsResponse* resp) {
  return auth::WithCaller(*s_.authenticator, ctx, "siren.v1.SirenService/ListSubscriptions",
                          [&](const Caller&) -> absl::Status {
                            if (!req->silence_id().empty()) return NoSilenceLog();
                            auto list = s_.subscriptions->List(FilterOf(*req), kAll);
                            if (!list.ok()) return list.status();
                            for (const Subscription& s : *list) {
                              ToSiren(s, resp->add_subscriptions());
                            }
                            return absl::OkStatus();
                          });
}

}  // namespace sluice::notification::siren
