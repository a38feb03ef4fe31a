// The access module's side of the notification API (issue 17, section 1):
// sends access events through the notification module's own
// NotificationService::Post and seeds the default event templates through
// its TemplateService.
#ifndef SLUICE_SERVER_ACCESS_EVENT_NOTIFIER_H_
#define SLUICE_SERVER_ACCESS_EVENT_NOTIFIER_H_

#include <string>

#include "server/access/core/event_outbox.h"
#include "server/notification/core/catalog.h"
#include "server/notification/core/notify.h"

namespace sluice::access {

// The fixed identity access events are posted as (the notifications'
// created_by, and the scope of their idempotency keys).
inline constexpr char kEventSender[] = "system:sluice-access";

// The notification request of `e`: one receiver selector {"email": <r>} per
// recipient (a receiver labelled with that email, e.g. a Slack receiver of
// channel_type "user"), e.labels for subscriptions, template
// EventTemplateName(e.type), data = e.variables plus "recipients".
notification::NotificationRequest ToNotificationRequest(const AccessEvent& e);

// "access-event:<event id>", the notification idempotency key of `e`: a
// retry or a second replica gets the first notification back.
std::string EventIdempotencyKey(const AccessEvent& e);

// EventNotifier over NotificationService::Post (borrowed).
class NotificationEventNotifier : public EventNotifier {
 public:
  explicit NotificationEventNotifier(notification::NotificationService* service)
      : service_(service) {}
  // Post's status: NotFound when nothing matched.
  absl::Status Send(const AccessEvent& event) override;

 private:
  notification::NotificationService* service_;
};

// Stores the default template of every event type whose name is not stored
// yet (an operator's version is never overwritten). Returns how many were
// added; the first error otherwise.
absl::StatusOr<int> SeedEventTemplates(notification::TemplateService* templates);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_EVENT_NOTIFIER_H_
