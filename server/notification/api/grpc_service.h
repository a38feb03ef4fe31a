// gRPC handlers of sluice.notification.v1beta1.NotificationService: decode
// the request, call the core service, encode the reply. Every handler runs
// under WithCaller() (an authenticated identity; errors through ToGrpcStatus
// only) except the alert hook, which takes Alertmanager's bearer token.
// Receivers, subscriptions and templates change only by notification admins;
// notifications are sent by admins and configured senders (NotificationService::
// Post decides, see SendPolicy); a notification's messages are readable by its
// sender and admins.
#ifndef SLUICE_SERVER_NOTIFICATION_API_GRPC_SERVICE_H_
#define SLUICE_SERVER_NOTIFICATION_API_GRPC_SERVICE_H_

#include <map>
#include <string>

#include "common/auth/authenticator.h"
#include "common/auth/caller.h"
#include "proto/sluice/notification/v1beta1/notification.grpc.pb.h"
#include "server/notification/core/alerting.h"
#include "server/notification/core/catalog.h"
#include "server/notification/core/hook_token.h"
#include "server/notification/core/notify.h"

namespace sluice::notification::api {

// The caller as a notification sender (admins per notification.admins).
inline Sender SenderOf(const auth::Caller& caller, const auth::AdminList& admins) {
  return Sender{caller.identity, caller.groups, admins.Contains(caller), /*system=*/false};
}

namespace pb = ::sluice::notification::v1beta1;

// Alert hook bearer tokens of the provider route /alerts/<type>/<id>, by
// "<provider_type>/<provider_id>"; "*" serves every provider route without
// its own entry. Never valid on a namespace route, and never written into a
// generated Alertmanager config (those get NamespaceHookToken, hook_token.h).
using AlertHookTokens = std::map<std::string, std::string>;

// OK when `presented` (the request's bearer token) is the token configured
// for provider route "<type>/<id>" (or "*"); PermissionDenied when none is
// (the hook is closed), Unauthenticated for a missing or wrong token.
// Siren's provider route (server/notification/siren) applies the same rule;
// its namespace route takes CheckNamespaceHookToken instead.
absl::Status CheckAlertHookToken(const AlertHookTokens& tokens, const std::string& type,
                                 const std::string& id, const std::string& presented);

// The core services the handlers call and what authorizes a call; all
// outlive the handler object.
struct Services {
  ReceiverService* receivers;
  SubscriptionService* subscriptions;
  TemplateService* templates;
  NotificationService* notifications;
  AlertService* alerts;
  const auth::Authenticator* authenticator;
  const auth::AdminList* admins;          // notification.admins / admin_groups
  const AlertHookTokens* hook_tokens;     // notification.alert_hook_tokens
  SilenceService* silences = nullptr;     // null: the silence RPCs are Unimplemented
  // Siren's providers, namespaces and rules (issue #31), and the namespace
  // hook's namespace check; null: Unimplemented.
  AlertingService* alerting = nullptr;
  // notification.alert_hook_secrets: the namespace hook's tokens
  // (hook_token.h); null or no entry for a provider: its namespace hooks
  // are closed.
  const AlertHookSecrets* hook_secrets = nullptr;
};

// The namespace hook's checks (review R3-M2), for both
// /api/v1beta1/alerts/{type}/{id}/{namespace_id} and Siren's
// /v1beta1/alerts/{type}/{id}/{namespace_id}: the namespace's own token
// (CheckNamespaceHookToken with s.hook_secrets: 403 closed, 401 missing or
// wrong), then the namespace must exist and belong to alert provider
// `provider_id` of type `type` (AlertingService::CheckHookNamespace:
// NotFound). InvalidArgument for namespace_id 0 or a provider_id that is
// not a number. Nothing is ingested before these pass.
absl::Status CheckNamespaceHook(const Services& s, const std::string& type,
                                const std::string& provider_id, uint64_t namespace_id,
                                const std::string& presented);

class NotificationGrpcService final : public pb::NotificationService::Service {
 public:
  explicit NotificationGrpcService(Services s) : s_(s) {}


  grpc::Status CreateReceiver(grpc::ServerContext* ctx, const pb::CreateReceiverRequest* req,
                              pb::CreateReceiverResponse* resp) override;
  grpc::Status ListReceivers(grpc::ServerContext* ctx, const pb::ListReceiversRequest* req,
                             pb::ListReceiversResponse* resp) override;
  grpc::Status GetReceiver(grpc::ServerContext* ctx, const pb::GetReceiverRequest* req,
                           pb::GetReceiverResponse* resp) override;
  grpc::Status UpdateReceiver(grpc::ServerContext* ctx, const pb::UpdateReceiverRequest* req,
                              pb::UpdateReceiverResponse* resp) override;
  grpc::Status DeleteReceiver(grpc::ServerContext* ctx, const pb::DeleteReceiverRequest* req,
                              pb::DeleteReceiverResponse* resp) override;

  grpc::Status CreateSubscription(grpc::ServerContext* ctx,
                                  const pb::CreateSubscriptionRequest* req,
                                  pb::CreateSubscriptionResponse* resp) override;
  grpc::Status ListSubscriptions(grpc::ServerContext* ctx, const pb::ListSubscriptionsRequest* req,
                                 pb::ListSubscriptionsResponse* resp) override;
  grpc::Status GetSubscription(grpc::ServerContext* ctx, const pb::GetSubscriptionRequest* req,
                               pb::GetSubscriptionResponse* resp) override;
  grpc::Status UpdateSubscription(grpc::ServerContext* ctx,
                                  const pb::UpdateSubscriptionRequest* req,
                                  pb::UpdateSubscriptionResponse* resp) override;
  grpc::Status DeleteSubscription(grpc::ServerContext* ctx,
                                  const pb::DeleteSubscriptionRequest* req,
                                  pb::DeleteSubscriptionResponse* resp) override;

  grpc::Status UpsertTemplate(grpc::ServerContext* ctx, const pb::UpsertTemplateRequest* req,
                              pb::UpsertTemplateResponse* resp) override;
  grpc::Status ListTemplates(grpc::ServerContext* ctx, const pb::ListTemplatesRequest* req,
                             pb::ListTemplatesResponse* resp) override;
  grpc::Status GetTemplate(grpc::ServerContext* ctx, const pb::GetTemplateRequest* req,
                           pb::GetTemplateResponse* resp) override;
  grpc::Status DeleteTemplate(grpc::ServerContext* ctx, const pb::DeleteTemplateRequest* req,
                              pb::DeleteTemplateResponse* resp) override;
  grpc::Status RenderTemplate(grpc::ServerContext* ctx, const pb::RenderTemplateRequest* req,
                              pb::RenderTemplateResponse* resp) override;

  grpc::Status PostNotification(grpc::ServerContext* ctx, const pb::PostNotificationRequest* req,
                                pb::PostNotificationResponse* resp) override;
  grpc::Status ListNotificationMessages(grpc::ServerContext* ctx,
                                        const pb::ListNotificationMessagesRequest* req,
                                        pb::ListNotificationMessagesResponse* resp) override;

  grpc::Status CreateAlerts(grpc::ServerContext* ctx, const pb::CreateAlertsRequest* req,
                            pb::CreateAlertsResponse* resp) override;
  grpc::Status ListAlerts(grpc::ServerContext* ctx, const pb::ListAlertsRequest* req,
                          pb::ListAlertsResponse* resp) override;

  // Silences: create and expire for notification admins,
  // list and get for any authenticated caller.
  grpc::Status CreateSilence(grpc::ServerContext* ctx, const pb::CreateSilenceRequest* req,
                             pb::CreateSilenceResponse* resp) override;
  grpc::Status ListSilences(grpc::ServerContext* ctx, const pb::ListSilencesRequest* req,
                            pb::ListSilencesResponse* resp) override;
  grpc::Status GetSilence(grpc::ServerContext* ctx, const pb::GetSilenceRequest* req,
                          pb::GetSilenceResponse* resp) override;
  grpc::Status ExpireSilence(grpc::ServerContext* ctx, const pb::ExpireSilenceRequest* req,
                             pb::ExpireSilenceResponse* resp) override;

 private:
  // Runs `fn(const auth::Caller&)` for `method` after authenticating.
  template <typename Fn>
  grpc::Status Call(grpc::ServerContext* ctx, const char* method, Fn&& fn);
  // Call, for notification admins only (PermissionDenied naming `what`).
  template <typename Fn>
  grpc::Status AdminCall(grpc::ServerContext* ctx, const char* method, const char* what, Fn&& fn);
  Services s_;
};

}  // namespace sluice::notification::api

#endif  // SLUICE_SERVER_NOTIFICATION_API_GRPC_SERVICE_H_
