// Access events (issue 17, section 1): what happened to an appeal or a grant,
// whom to tell, and with which template variables. Each event is written to
// an outbox in the transaction of the change it reports (AccessTx::
// InsertEvents) and delivered after commit by the EventDispatcher through the
// notification API. Event kinds and recipients follow Guardian's
// notifications (domain/notifier.go: ApproverNotification, AppealApproved,
// OnBehalfAppealApproved, AppealRejected, AccessRevoked, ExpirationReminder,
// GrantOwnerChanged) under Sluice's dotted event names, plus grant.restored
// (Guardian has no restore event; Sluice's restore re-grants access without
// an approval, so its holder and owner are told).
#ifndef SLUICE_SERVER_ACCESS_CORE_ACCESS_EVENTS_H_
#define SLUICE_SERVER_ACCESS_CORE_ACCESS_EVENTS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "proto/sluice/access/v1beta1/appeal.pb.h"

namespace sluice::access {

namespace pb = ::sluice::access::v1beta1;

// Event types (the `event` label and the access.notifications.disabled_events
// entries).
inline constexpr char kEventAppealCreated[] = "appeal.created";          // → first step's approvers
inline constexpr char kEventStepApproved[] = "appeal.step_approved";     // → next step's approvers
inline constexpr char kEventAppealApproved[] = "appeal.approved";        // → account and creator
inline constexpr char kEventAppealRejected[] = "appeal.rejected";        // → account and creator
inline constexpr char kEventGrantRevoked[] = "grant.revoked";            // → account and owner
inline constexpr char kEventGrantRestored[] = "grant.restored";          // → account and owner
inline constexpr char kEventOwnerChanged[] = "grant.owner_changed";      // → old and new owner
inline constexpr char kEventGrantExpiring[] = "grant.expiring";          // → account and owner
inline constexpr char kEventPendingReminder[] = "appeal.pending_reminder";  // → current approvers

// One access event. Its payload in the outbox is {"recipients", "labels",
// "variables"} (see ToPayload).
struct AccessEvent {
  // "<type>:<subject id>[:<qualifier>]", unique: writing an id again is a
  // no-op, which makes reminders idempotent per (grant, day threshold,
  // expiration) and (appeal, day). Events that can happen again to the same
  // grant carry the time of the change as qualifier (revoked_at,
  // restored_at, updated_at), so a revoke after a restore is told again
  // (security review F-L5). Empty in an event passed to InsertAppeal*: the
  // store sets "<type>:<new appeal id>" and variables.appeal_id.
  std::string id;
  std::string type;                      // one of kEvent*
  std::vector<std::string> recipients;   // emails, deduplicated, in order
  std::map<std::string, std::string> labels;  // event, provider_type, resource_type, …
  nlohmann::json variables = nlohmann::json::object();  // template data
};

// Every event type, in README order.
const std::vector<std::string>& AllEventTypes();

// The default template name of `type`: "access-" + type with '.' and '_'
// turned into '-' (e.g. "access-appeal-created"; template names allow only
// [A-Za-z0-9_-]).
std::string EventTemplateName(const std::string& type);

// The default Mustache body of `type`'s template (README "Default
// templates"): {"text": …} for Slack, {"event", "text", "data"} otherwise.
// Wording follows Guardian's Slack templates.
std::string DefaultEventTemplateBody(const std::string& type);

// {"recipients": [...], "labels": {...}, "variables": {...}}.
nlohmann::json ToPayload(const AccessEvent& e);
// The inverse of ToPayload (missing members stay empty).
AccessEvent FromPayload(const std::string& id, const std::string& type, const nlohmann::json& p);

// Which events are written (config access.notifications).
struct EventPolicy {
  std::set<std::string> disabled;  // event types never written
  // Drops disabled events and events without recipients from `events`.
  std::vector<AccessEvent> Filter(std::vector<AccessEvent> events) const;
};

// The events of a newly created appeal: appeal.created to the first pending
// step's approvers when it is pending, appeal.approved or appeal.rejected
// when its flow decided at once. Ids are left empty when `appeal` has none
// yet (see AccessEvent::id).
std::vector<AccessEvent> CreatedEvents(const pb::Appeal& appeal);
// The events of an approval action on `appeal` (after the action) by
// `actor` on step `step`: appeal.step_approved (next pending step's
// approvers), appeal.approved or appeal.rejected (with the reason).
std::vector<AccessEvent> ActionEvents(const pb::Appeal& appeal, const std::string& step,
                                      const std::string& actor, const std::string& reason);
// grant.revoked for `grant` (with its resource; revoked_by/revoke_reason
// set); id "grant.revoked:<grant id>:<revoked_at, unix µs>".
AccessEvent RevokedEvent(const pb::Grant& grant);
// grant.restored for `grant` after its restore (with its resource;
// restored_by/at, restore_reason and the resulting expiration set), to its
// account and owner; variables restored_by, reason, revoked_by (the revoke
// undone) and expiration_date when it has one; id
// "grant.restored:<grant id>:<restored_at, unix µs>".
AccessEvent RestoredEvent(const pb::Grant& grant);
// grant.owner_changed for `grant` (after the change) from `previous_owner`
// by `actor`; the id is qualified by the change time (updated_at, µs).
AccessEvent OwnerChangedEvent(const pb::Grant& grant, const std::string& previous_owner,
                              const std::string& actor);
// grant.expiring for `grant` (with its resource) at threshold `days`; id
// "grant.expiring:<grant id>:<days>:<expiration_date, unix µs>", so a grant
// restored with a new date is reminded again.
AccessEvent ExpiringEvent(const pb::Grant& grant, int days);
// appeal.pending_reminder for `appeal` (with its resource and approvals) on
// UTC day `day` ("YYYY-MM-DD"), to its first pending step's approvers.
AccessEvent PendingReminderEvent(const pb::Appeal& appeal, const std::string& day);

// The smallest of `thresholds` (days) with expiration <= now + days, or 0
// when none (the grant is not due for a reminder yet, or already expired).
int ExpiringThreshold(absl::Time expiration, absl::Time now, const std::vector<int>& thresholds);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_ACCESS_EVENTS_H_
