// Siren's API at Siren's paths (issue #30, part 1): gRPC handlers of
// gotocompany.siren.v1beta1.SirenService and gotocompany.siren.v1.SirenService (Siren's
// own package, service and message names and field numbers, so Siren's CLI and
// SDK call them unchanged), which
// the gateway serves at /v1beta1/... and /v1/subscriptions. Each handler
// translates Siren's request to the notification core services (the same
// ones NotificationGrpcService calls, so there is one code path for the
// domain rules) and the result back to Siren's shapes (siren_convert.h).
//
// Authentication and roles are Sluice's, as on /api/v1beta1: every call
// needs an authenticated caller (README "Security model"); receivers,
// subscriptions, templates and silences change only by notification admins;
// notifications are sent as NotificationService::Post allows; the alert hook
// takes its bearer token (notification.alert_hook_tokens), as
// /api/v1beta1/alerts does, and the namespace hook its namespace's own token
// (notification.alert_hook_secrets, hook_token.h). Siren's lists have no
// paging: they answer the first kMaxPageSize (1000) matches.
#ifndef SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_SERVICE_H_
#define SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_SERVICE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/sluice/siren/v1/siren.grpc.pb.h"
#include "proto/sluice/siren/v1beta1/siren.grpc.pb.h"
#include "server/notification/api/grpc_service.h"
#include "server/notification/core/silence.h"

namespace sluice::notification::siren {

namespace spb = ::gotocompany::siren::v1beta1;
namespace spb1 = ::gotocompany::siren::v1;

class SirenGrpcService final : public spb::SirenService::Service {
 public:
  explicit SirenGrpcService(api::Services s) : s_(s) {}

  grpc::Status NotifyReceiver(grpc::ServerContext*, const spb::NotifyReceiverRequest*,
                              spb::NotifyReceiverResponse*) override;

  grpc::Status ListSubscriptions(grpc::ServerContext*, const spb::ListSubscriptionsRequest*,
                                 spb::ListSubscriptionsResponse*) override;
  grpc::Status CreateSubscription(grpc::ServerContext*, const spb::CreateSubscriptionRequest*,
                                  spb::CreateSubscriptionResponse*) override;
  grpc::Status GetSubscription(grpc::ServerContext*, const spb::GetSubscriptionRequest*,
                               spb::GetSubscriptionResponse*) override;
  grpc::Status UpdateSubscription(grpc::ServerContext*, const spb::UpdateSubscriptionRequest*,
                                  spb::UpdateSubscriptionResponse*) override;
  grpc::Status DeleteSubscription(grpc::ServerContext*, const spb::DeleteSubscriptionRequest*,
                                  spb::DeleteSubscriptionResponse*) override;
  grpc::Status ListSubscriptionReceivers(grpc::ServerContext*,
                                         const spb::ListSubscriptionReceiversRequest*,
                                         spb::ListSubscriptionReceiversResponse*) override;
  grpc::Status AddSubscriptionReceiver(grpc::ServerContext*,
                                       const spb::AddSubscriptionReceiverRequest*,
                                       spb::AddSubscriptionReceiverResponse*) override;
  grpc::Status UpdateSubscriptionReceiver(grpc::ServerContext*,
                                          const spb::UpdateSubscriptionReceiverRequest*,
                                          spb::UpdateSubscriptionReceiverResponse*) override;
  grpc::Status DeleteSubscriptionReceiver(grpc::ServerContext*,
                                          const spb::DeleteSubscriptionReceiverRequest*,
                                          spb::DeleteSubscriptionReceiverResponse*) override;

  grpc::Status ListReceivers(grpc::ServerContext*, const spb::ListReceiversRequest*,
                             spb::ListReceiversResponse*) override;
  grpc::Status CreateReceiver(grpc::ServerContext*, const spb::CreateReceiverRequest*,
                              spb::CreateReceiverResponse*) override;
  grpc::Status GetReceiver(grpc::ServerContext*, const spb::GetReceiverRequest*,
                           spb::GetReceiverResponse*) override;
  grpc::Status UpdateReceiver(grpc::ServerContext*, const spb::UpdateReceiverRequest*,
                              spb::UpdateReceiverResponse*) override;
  grpc::Status DeleteReceiver(grpc::ServerContext*, const spb::DeleteReceiverRequest*,
                              spb::DeleteReceiverResponse*) override;

  grpc::Status ListAlerts(grpc::ServerContext*, const spb::ListAlertsRequest*,
                          spb::ListAlertsResponse*) override;
  grpc::Status CreateAlerts(grpc::ServerContext*, const spb::CreateAlertsRequest*,
                            spb::CreateAlertsResponse*) override;
  grpc::Status CreateAlertsWithNamespace(grpc::ServerContext*,
                                         const spb::CreateAlertsWithNamespaceRequest*,
                                         spb::CreateAlertsWithNamespaceResponse*) override;

  grpc::Status ListTemplates(grpc::ServerContext*, const spb::ListTemplatesRequest*,
                             spb::ListTemplatesResponse*) override;
  grpc::Status GetTemplate(grpc::ServerContext*, const spb::GetTemplateRequest*,
                           spb::GetTemplateResponse*) override;
  grpc::Status UpsertTemplate(grpc::ServerContext*, const spb::UpsertTemplateRequest*,
                              spb::UpsertTemplateResponse*) override;
  grpc::Status DeleteTemplate(grpc::ServerContext*, const spb::DeleteTemplateRequest*,
                              spb::DeleteTemplateResponse*) override;
  grpc::Status RenderTemplate(grpc::ServerContext*, const spb::RenderTemplateRequest*,
                              spb::RenderTemplateResponse*) override;

  grpc::Status CreateSilence(grpc::ServerContext*, const spb::CreateSilenceRequest*,
                             spb::CreateSilenceResponse*) override;
  grpc::Status ListSilences(grpc::ServerContext*, const spb::ListSilencesRequest*,
                            spb::ListSilencesResponse*) override;
  grpc::Status GetSilence(grpc::ServerContext*, const spb::GetSilenceRequest*,
                          spb::GetSilenceResponse*) override;
  grpc::Status ExpireSilence(grpc::ServerContext*, const spb::ExpireSilenceRequest*,
                             spb::ExpireSilenceResponse*) override;

  grpc::Status PostNotification(grpc::ServerContext*, const spb::PostNotificationRequest*,
                                spb::PostNotificationResponse*) override;
  grpc::Status PostBulkNotifications(grpc::ServerContext*, const spb::PostBulkNotificationsRequest*,
                                     spb::PostBulkNotificationsResponse*) override;
  grpc::Status ListNotificationMessages(grpc::ServerContext*,
                                        const spb::ListNotificationMessagesRequest*,
                                        spb::ListNotificationMessagesResponse*) override;
  grpc::Status ListNotifications(grpc::ServerContext*, const spb::ListNotificationsRequest*,
                                 spb::ListNotificationsResponse*) override;

  // Alert providers, namespaces and rules (siren_alerting.cc, issue #31):
  // reads by any authenticated caller, changes by notification admins.
  grpc::Status ListProviders(grpc::ServerContext*, const spb::ListProvidersRequest*,
                             spb::ListProvidersResponse*) override;
  grpc::Status CreateProvider(grpc::ServerContext*, const spb::CreateProviderRequest*,
                              spb::CreateProviderResponse*) override;
  grpc::Status GetProvider(grpc::ServerContext*, const spb::GetProviderRequest*,
                           spb::GetProviderResponse*) override;
  grpc::Status UpdateProvider(grpc::ServerContext*, const spb::UpdateProviderRequest*,
                              spb::UpdateProviderResponse*) override;
  grpc::Status DeleteProvider(grpc::ServerContext*, const spb::DeleteProviderRequest*,
                              spb::DeleteProviderResponse*) override;
  grpc::Status ListNamespaces(grpc::ServerContext*, const spb::ListNamespacesRequest*,
                              spb::ListNamespacesResponse*) override;
  grpc::Status CreateNamespace(grpc::ServerContext*, const spb::CreateNamespaceRequest*,
                               spb::CreateNamespaceResponse*) override;
  grpc::Status GetNamespace(grpc::ServerContext*, const spb::GetNamespaceRequest*,
                            spb::GetNamespaceResponse*) override;
  grpc::Status UpdateNamespace(grpc::ServerContext*, const spb::UpdateNamespaceRequest*,
                               spb::UpdateNamespaceResponse*) override;
  grpc::Status DeleteNamespace(grpc::ServerContext*, const spb::DeleteNamespaceRequest*,
                               spb::DeleteNamespaceResponse*) override;
  grpc::Status ListRules(grpc::ServerContext*, const spb::ListRulesRequest*,
                         spb::ListRulesResponse*) override;
  grpc::Status UpdateRule(grpc::ServerContext*, const spb::UpdateRuleRequest*,
                          spb::UpdateRuleResponse*) override;

 private:
  template <typename Fn>
  grpc::Status Call(grpc::ServerContext* ctx, const char* method, Fn&& fn);
  template <typename Fn>
  grpc::Status AdminCall(grpc::ServerContext* ctx, const char* method, const char* what, Fn&& fn);
  // The hook: request checks and the token check, then AlertService::Ingest
  // of the payload in `body`; returns the alerts as stored. `namespace_id`
  // is the namespace route's (nullopt: the provider route, which takes
  // notification.alert_hook_tokens). The namespace route takes only the
  // namespace's own token (CheckNamespaceHookToken), and the namespace must
  // belong to the provider of the URL (NotFound otherwise). Every check,
  // namespace_id 0 included (InvalidArgument), comes before the ingest,
  // which notifies.
  absl::StatusOr<std::vector<Alert>> Hook(grpc::ServerContext* ctx, const std::string& type,
                                          uint64_t provider_id,
                                          const google::protobuf::Struct& body,
                                          std::optional<uint64_t> namespace_id);
  api::Services s_;
};

// Siren's v1 API: GET /v1/subscriptions.
class SirenV1GrpcService final : public spb1::SirenService::Service {
 public:
  explicit SirenV1GrpcService(api::Services s) : s_(s) {}
  grpc::Status ListSubscriptions(grpc::ServerContext*, const spb1::ListSubscriptionsRequest*,
                                 spb1::ListSubscriptionsResponse*) override;

 private:
  api::Services s_;
};

}  // namespace sluice::notification::siren

#endif  // SLUICE_SERVER_NOTIFICATION_SIREN_SIREN_SERVICE_H_
