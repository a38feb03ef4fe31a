// Accepting notifications (POST /notifications) and alerts (the
// Alertmanager hook): receiver selection, subscription matching, enqueueing.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_NOTIFY_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_NOTIFY_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/notification/core/catalog.h"
#include "server/notification/core/model.h"
#include "server/notification/core/repository.h"
#include "server/notification/core/silence.h"
#include "server/notification/core/silence.h"

namespace sluice::notification {

// Delivery settings applied to new messages.
struct QueuePolicy {
  int max_tries = 3;                              // tries before `failed`
  absl::Duration validity = absl::Hours(24);      // after this a waiting message is `expired`
};

// Who may send notifications (security review round 2, F-M1).
//
// - The system sender (Sender::system: the access module's events, posted in
//   process as "system:sluice-access") may send anything.
// - Notification admins may send, and are never narrowed by allowed_senders.
// - Others only when listed in `senders` (identities) or a member of one of
//   `sender_groups` (the JWT groups claim): config `notification.senders` /
//   `notification.sender_groups`. Both empty (the default): admins only.
//   kAnySender in `senders` lets every authenticated caller send (a dev
//   convenience: `make run` uses it).
// - Such a sender must also be on the allowed_senders of every receiver the
//   message reaches, and of every subscription it reaches one through (an
//   empty list does not narrow).
// - Templates named access-* or system-* (the access events' wording and the
//   built-in alert templates; system-default excepted) and the `event` label
//   (what access-event subscriptions match) are the system sender's alone:
//   refused to everyone else, admins included.
// - Identities beginning with "system:" are reserved: refused from callers.
struct SendPolicy {
  std::set<std::string> senders;
  std::set<std::string> sender_groups;
};

// A `notification.senders` entry letting every authenticated caller send
// (development only).
inline constexpr char kAnySender[] = "*";
// An allowed_senders entry "group:<name>" names the members of a group.
inline constexpr char kGroupEntryPrefix[] = "group:";
// The label access events carry their type in (reserved for the system sender).
inline constexpr char kEventLabel[] = "event";

// Who posts a notification.
struct Sender {
  std::string identity;             // recorded as created_by; scopes idempotency keys
  std::vector<std::string> groups;  // the caller's groups (JWT groups claim)
  bool admin = false;               // a notification admin
  bool system = false;              // a module of this server, never an RPC caller

  // A module of this server posting as `identity` (e.g. "system:sluice-access").
  static Sender System(std::string identity) { return Sender{std::move(identity), {}, false, true}; }
};

// Whether `sender` is on `list` (identities and "group:<name>" entries);
// true for an empty list.
bool AllowedSendersAdmit(const std::vector<std::string>& list, const Sender& sender);

// InvalidArgument "<field>[i]: ..." unless every entry of an allowed_senders
// list is a non-empty identity without spaces or control characters, or
// "group:<name>" (kAnySender is refused: an empty list already admits all).
absl::Status ValidateAllowedSenders(const std::vector<std::string>& list, absl::string_view field);

// A POST /notifications body.
struct NotificationRequest {
  std::vector<nlohmann::json> receivers;  // selector objects
  std::optional<nlohmann::json> data;     // required object
  std::string template_name;              // "" = kDefaultTemplate
  Labels labels;
};

// Builds deliveries and stores notifications with their messages.
class NotificationService {
 public:
  // `wake` (may be empty) is called after messages were enqueued.
  NotificationService(ReceiverRepository* receivers, SubscriptionRepository* subscriptions,
                      TemplateRepository* templates, NotificationRepository* notifications,
                      QueuePolicy policy, std::function<void()> wake, SendPolicy senders = {})
      : receivers_(receivers),
        subscriptions_(subscriptions),
        templates_(templates),
        notifications_(notifications),
        policy_(policy),
        wake_(std::move(wake)),
        senders_(std::move(senders)) {}

  // Returns the notification id. PermissionDenied when `sender` may not send
  // this (see SendPolicy: the message names the setting, template, label,
  // receiver or subscription). InvalidArgument for a missing `data`, no
  // receivers and no labels, or a bad selector; NotFound for an unknown
  // template or when nothing matched. With `idempotency_key` already used by
  // the same sender (sender.identity, required), returns the earlier id and
  // enqueues nothing. Keys are scoped per sender, so two teams using the
  // same key never receive each other's notification id or lose a send.
  // sender.identity is recorded as the notification's sender.
  absl::StatusOr<uint64_t> Post(const NotificationRequest& req, absl::string_view idempotency_key,
                                const Sender& sender);

  // NotFound for an unknown notification.
  absl::StatusOr<std::vector<Message>> ListMessages(uint64_t notification_id);
  // ListMessages for `caller`: PermissionDenied unless `admin` or the
  // notification's sender.
  absl::StatusOr<std::vector<Message>> ListMessagesFor(uint64_t notification_id,
                                                       const std::string& caller, bool admin);

  // Notifications passing `filter`, newest first, at most `limit`: a
  // non-admin `caller` sees only those it sent (filter.created_by is set to
  // it), as for ListMessagesFor.
  absl::StatusOr<std::vector<Notification>> ListFor(NotificationFilter filter, int limit,
                                                    const std::string& caller, bool admin) {
    if (!admin) filter.created_by = caller;
    return notifications_->ListNotifications(filter, limit);
  }
  // The deliveries for receivers of subscriptions matching `labels`
  // (deduplicated by receiver and override).
  absl::StatusOr<std::vector<Delivery>> SubscribedDeliveries(const Labels& labels) {
    return Subscribed(labels, nullptr);
  }
  // The deliveries for receivers of subscriptions of `namespace_id` (0: any
  // namespace, as Siren's MatchByLabelsV2) matching `labels`, each with its
  // subscription, not deduplicated across subscriptions.
  absl::StatusOr<std::vector<SubscribedDelivery>> SubscribedRoutes(uint64_t namespace_id,
                                                                   const Labels& labels) {
    return Routes(namespace_id, labels, nullptr);
  }

  // PermissionDenied unless `sender` may render `t` (security review R3-H1):
  // templates named system-* or access-* (the built-in alert templates and
  // the access events' wording) only for notification admins; "go" and
  // "go-content" templates only for those who may send (SendPolicy's role
  // rule); mustache templates for every authenticated caller.
  absl::Status CheckRender(const Template& t, const Sender& sender) const;

  // Stores `n` with `deliveries` (non-empty) and wakes the workers.
  absl::StatusOr<uint64_t> Enqueue(const Notification& n, const std::vector<Delivery>& deliveries);

 private:
  // PermissionDenied unless `sender` may send `req` at all (role, reserved
  // templates and labels).
  absl::Status CheckSender(const NotificationRequest& req, const Sender& sender) const;
  // PermissionDenied unless receiver `r`'s allowed_senders admit `sender`,
  // and so do its parent's when it has one (a child sends with the parent's
  // credentials); `through` is appended to the receiver's name.
  absl::Status CheckReceiverAdmits(const Receiver& r, const Sender& sender, absl::string_view through) const;
  // PermissionDenied unless `sender` has the sender role (admin, or listed
  // in senders_); `what` names the action ("send notifications").
  absl::Status CheckSenderRole(const Sender& sender, absl::string_view what) const;
  // SubscribedDeliveries; with `narrowed` (a sender allowed_senders apply
  // to), PermissionDenied for a subscription or receiver not admitting it.
  absl::StatusOr<std::vector<Delivery>> Subscribed(const Labels& labels, const Sender* narrowed);
  // SubscribedRoutes with the `narrowed` checks of Subscribed.
  absl::StatusOr<std::vector<SubscribedDelivery>> Routes(uint64_t namespace_id,
                                                         const Labels& labels,
                                                         const Sender* narrowed);
  ReceiverRepository* receivers_;
  SubscriptionRepository* subscriptions_;
  TemplateRepository* templates_;
  NotificationRepository* notifications_;
  QueuePolicy policy_;
  std::function<void()> wake_;
  SendPolicy senders_;
};

// The Alertmanager hook.
class AlertService {
 public:
  // `silences` may be null (nothing is ever silenced).
  AlertService(NotificationService* notifications, AlertRepository* alerts,
               SilenceRepository* silences = nullptr)
      : notifications_(notifications), alerts_(alerts), silences_(silences) {}

  // Stores the group's alerts with Siren's fields (DeriveSirenFields) and
  // the group's namespace. When subscriptions (of the group's namespace, if
  // set) match the group's common labels, one notification (template
  // kAlertTemplate, dedup key = group key) reaches their receivers, except
  // the deliveries active silences stop (ApplySilences); every alert is
  // stored with the resulting silence_status and silence_ids. Returns that
  // notification's id, or 0 when nothing is delivered (logged, still OK).
  // With `stored` (may be null), the alerts as stored (ids, Siren's fields,
  // silence outcome), in payload order: Siren's CreateAlerts reply.
  //
  // Provider type "cortex" follows Siren's cortex plugin instead
  // (IngestAsSiren): alerts without a severity label or the annotations
  // resource, template, metric_name and metric_value are dropped (logged,
  // not stored), and each distinct label set is one notification routed by
  // its own labels, whose data carries Siren's flat details for the http
  // and file receivers (`_details_json`, core/alert/service.go
  // BuildNotifications). Returns the first notification's id.
  absl::StatusOr<uint64_t> Ingest(AlertGroup group, std::vector<Alert>* stored = nullptr);

  // One page of the alerts matching `filter`, newest first; `total` (may be
  // null) counts every match. InvalidArgument without provider type and id.
  absl::StatusOr<std::vector<Alert>> List(const AlertFilter& filter, const Page& page = {},
                                          int* total = nullptr);

 private:
  absl::StatusOr<uint64_t> IngestAsSiren(AlertGroup group, std::vector<Alert>* stored);
  // The silences in force (none when there is no silence repository).
  absl::StatusOr<std::vector<Silence>> ActiveSilences();
  // Enqueues `data` (template kAlertTemplate, labels `match`) to the
  // subscriptions of `namespace_id` matching `match`, except what the
  // `active` silences stop (`outcome`). The notification's id, or 0 (logged
  // with `what`) when nothing is delivered.
  absl::StatusOr<uint64_t> Route(uint64_t namespace_id, const Labels& match, nlohmann::json data,
                                 const std::string& created_by, const std::string& what,
                                 const std::vector<Silence>& active, SilenceOutcome* outcome);
  // Inserts `alerts`; fills `stored` (may be null) with them and their ids.
  absl::StatusOr<uint64_t> Store(std::vector<Alert> alerts, uint64_t notification_id,
                                 std::vector<Alert>* stored);

  NotificationService* notifications_;
  AlertRepository* alerts_;
  SilenceRepository* silences_;
};

// Fills Siren's alert fields from the Alertmanager alert, as Siren's cortex
// plugin (TransformToAlerts): resource_name, metric_name, metric_value and
// rule from the annotations resource, metric_name, metric_value and
// template; severity from the label severity, or "resolved" for a resolved
// alert; triggered_at = starts_at. Missing keys leave fields empty (Siren
// drops such alerts; Sluice stores them, as it did before).
void DeriveSirenFields(Alert& a);

// The template data of an alert group (see template_engine.h for the
// built-in alert templates that read it).
nlohmann::json AlertTemplateData(const AlertGroup& group);

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_NOTIFY_H_
