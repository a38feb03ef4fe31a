#include "server/access/event_notifier.h"

#include "absl/strings/str_cat.h"

namespace sluice::access {

notification::NotificationRequest ToNotificationRequest(const AccessEvent& e) {
  notification::NotificationRequest req;
  for (const std::string& r : e.recipients) req.receivers.push_back({{"email", r}});
  nlohmann::json data = e.variables.is_object() ? e.variables : nlohmann::json::object();
  data["event"] = e.type;
  data["recipients"] = e.recipients;
  req.data = std::move(data);
  req.template_name = EventTemplateName(e.type);
  req.labels = e.labels;
  return req;
}

std::string EventIdempotencyKey(const AccessEvent& e) { return absl::StrCat("access-event:", e.id); }

absl::Status NotificationEventNotifier::Send(const AccessEvent& event) {
  // The system sender: the only one allowed the access-* templates and the
  // `event` label (security review round 2, F-M1).
  return service_
      ->Post(ToNotificationRequest(event), EventIdempotencyKey(event),
             notification::Sender::System(kEventSender))
      .status();
}

absl::StatusOr<int> SeedEventTemplates(notification::TemplateService* templates) {
  int added = 0;
  for (const std::string& type : AllEventTypes()) {
    std::string name = EventTemplateName(type);
    auto existing = templates->Get(name);
    if (existing.ok()) continue;
    if (!absl::IsNotFound(existing.status())) return existing.status();
    notification::Template t;
    t.name = name;
    t.body = DefaultEventTemplateBody(type);
    t.tags = {"access", "access-event", type};
    if (auto st = templates->Upsert(t, kEventSender); !st.ok()) return st;
    ++added;
  }
  return added;
}

}  // namespace sluice::access
