// Accepting notifications (POST /notifications) and alerts (the
// Alertmanager hook): receiver selection, subscription matching, enqueueing.
#ifndef SLUICE_SERVER_NOTIFICATION_CORE_NOTIFY_H_
#define SLUICE_SERVER_NOTIFICATION_CORE_NOTIFY_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/notification/core/catalog.h"
#include "server/notification/core/model.h"
#include "server/notification/core/repository.h"

namespace sluice::notification {

// Delivery settings applied to new messages.
struct QueuePolicy {
  int max_tries = 3;                              // tries before `failed`
  absl::Duration validity = absl::Hours(24);      // after this a waiting message is `expired`
};

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
                      QueuePolicy policy, std::function<void()> wake)
      : receivers_(receivers),
        subscriptions_(subscriptions),
        templates_(templates),
        notifications_(notifications),
        policy_(policy),
        wake_(std::move(wake)) {}

  // Returns the notification id. InvalidArgument for a missing `data`, no
  // receivers and no labels, or a bad selector; NotFound for an unknown
  // template or when nothing matched. With `idempotency_key` already used by
  // the same `caller` (the authenticated identity, required), returns the
  // earlier id and enqueues nothing. Keys are scoped per caller, so two teams
  // using the same key never receive each other's notification id or lose a
  // send. `caller` is recorded as the notification's sender.
  absl::StatusOr<uint64_t> Post(const NotificationRequest& req, absl::string_view idempotency_key,
                                absl::string_view caller);

  // NotFound for an unknown notification.
  absl::StatusOr<std::vector<Message>> ListMessages(uint64_t notification_id);
  // ListMessages for `caller`: PermissionDenied unless `admin` or the
  // notification's sender.
  absl::StatusOr<std::vector<Message>> ListMessagesFor(uint64_t notification_id,
                                                       const std::string& caller, bool admin);

  // The deliveries for receivers of subscriptions matching `labels`
  // (deduplicated by receiver and override).
  absl::StatusOr<std::vector<Delivery>> SubscribedDeliveries(const Labels& labels);

  // Stores `n` with `deliveries` (non-empty) and wakes the workers.
  absl::StatusOr<uint64_t> Enqueue(const Notification& n, const std::vector<Delivery>& deliveries);

 private:
  ReceiverRepository* receivers_;
  SubscriptionRepository* subscriptions_;
  TemplateRepository* templates_;
  NotificationRepository* notifications_;
  QueuePolicy policy_;
  std::function<void()> wake_;
};

// The Alertmanager hook.
class AlertService {
 public:
  AlertService(NotificationService* notifications, AlertRepository* alerts)
      : notifications_(notifications), alerts_(alerts) {}

  // Stores the group's alerts; when subscriptions match the group's common
  // labels, one notification (template kAlertTemplate, dedup key = group key)
  // reaches their receivers. Returns that notification's id, or 0 when
  // nothing matched (logged, still OK).
  absl::StatusOr<uint64_t> Ingest(AlertGroup group);

  // One page of a provider's alerts, newest first; `total` (may be null)
  // counts every match.
  absl::StatusOr<std::vector<Alert>> List(absl::string_view provider_type,
                                          absl::string_view provider_id, absl::Time from,
                                          absl::Time to, const Page& page = {},
                                          int* total = nullptr) {
    return alerts_->List(provider_type, provider_id, from, to, page, total);
  }

 private:
  NotificationService* notifications_;
  AlertRepository* alerts_;
};

// The template data of an alert group (see template_engine.h for the
// built-in alert templates that read it).
nlohmann::json AlertTemplateData(const AlertGroup& group);

}  // namespace sluice::notification

#endif  // SLUICE_SERVER_NOTIFICATION_CORE_NOTIFY_H_
