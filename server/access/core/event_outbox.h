// Delivery of access events (issue 17, section 1): the outbox the events are
// written to (AccessEventStore), the port that sends one event as a
// notification (EventNotifier), the dispatcher that delivers committed
// events after commit, and the two reminder jobs (Guardian's
// expiring_grant_notification and pending_approvals_reminder).
#ifndef SLUICE_SERVER_ACCESS_CORE_EVENT_OUTBOX_H_
#define SLUICE_SERVER_ACCESS_CORE_EVENT_OUTBOX_H_

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/access/core/access_events.h"

namespace sluice::access {

// What became of one claimed event.
struct Settlement {
  std::string id;
  std::string outcome;  // sent | no_receiver | failed; "" = due again after `delay`
  absl::Duration delay;
  std::string error;    // the last error, "" when none
};

// An event claimed from the outbox.
struct ClaimedEvent {
  AccessEvent event;
  int attempts = 0;  // claims so far, this one included
  // The W3C traceparent of the request whose change wrote the event ("":
  // none, e.g. a reminder job's); its dispatch continues that trace.
  std::string traceparent;
};

// The outbox table (PostgreSQL: access_events).
class AccessEventStore {
 public:
  virtual ~AccessEventStore() = default;
  // Writes `events` (ON CONFLICT (id) DO NOTHING); returns how many were new.
  virtual absl::StatusOr<int> Insert(const std::vector<AccessEvent>& events) = 0;
  // Claims up to `limit` undelivered events that are due, oldest first,
  // skipping rows another replica is claiming (FOR UPDATE SKIP LOCKED), and
  // leases them: attempts + 1 and not due again before now + `lease`, so
  // another replica does not take them while they are being sent.
  virtual absl::StatusOr<std::vector<ClaimedEvent>> Claim(int limit, absl::Duration lease) = 0;
  // Records every settlement of one dispatch pass at once: an outcome
  // settles the event for good; none makes it due again after its delay
  // (only while it is not settled).
  virtual absl::Status Settle(const std::vector<Settlement>& settlements) = 0;
  // Deletes events settled before `before`; returns how many.
  virtual absl::StatusOr<int> Prune(absl::Time before) = 0;
  // Active grants (with their resource) expiring in (now, until], by
  // expiration date, at most `limit`.
  virtual absl::StatusOr<std::vector<pb::Grant>> ExpiringGrants(absl::Time now, absl::Time until,
                                                                int limit) = 0;
  // Pending appeals created before `created_before`, with their resource and
  // approvals (step order), oldest first, at most `limit`.
  virtual absl::StatusOr<std::vector<pb::Appeal>> PendingAppeals(absl::Time created_before,
                                                                 int limit) = 0;
};

// Sends one event as a notification. NotFound when no receiver or
// subscription matched (the event is settled, never retried);
// InvalidArgument/FailedPrecondition for a permanent error; anything else is
// retried with backoff.
class EventNotifier {
 public:
  virtual ~EventNotifier() = default;
  virtual absl::Status Send(const AccessEvent& event) = 0;
};

// Dispatcher settings (access.notifications).
struct DispatchSettings {
  absl::Duration poll_interval = absl::Seconds(1);  // idle wait between outbox polls
  int batch_size = 50;                              // events claimed per query
  absl::Duration lease = absl::Seconds(60);         // a claim's hold on its events
  absl::Duration backoff = absl::Seconds(1);        // first retry delay (doubles per try)
  absl::Duration backoff_max = absl::Minutes(5);    // the delay's cap
  int max_attempts = 10;                            // then the event is settled as failed
};

// What one dispatch pass did.
struct DispatchReport {
  int sent = 0, no_receiver = 0, retried = 0, failed = 0;
  int total() const { return sent + no_receiver + retried + failed; }
};

// Delivers the outbox: claims due events and sends each through the
// notifier, settling or rescheduling it. Woken after a commit that wrote
// events (Wake) and polling every poll_interval (events written by another
// replica or a job). Sending never runs inside an access transaction.
class EventDispatcher {
 public:
  // Borrowed pointers must outlive the dispatcher.
  EventDispatcher(AccessEventStore* store, EventNotifier* notifier, DispatchSettings settings)
      : store_(store), notifier_(notifier), settings_(settings) {}
  ~EventDispatcher() { Stop(); }
  EventDispatcher(const EventDispatcher&) = delete;
  EventDispatcher& operator=(const EventDispatcher&) = delete;

  // One pass: claims and handles up to batch_size events.
  absl::StatusOr<DispatchReport> RunOnce();
  // The delay before retry `attempts` + 1: backoff·2^(attempts-1), capped.
  absl::Duration RetryDelay(int attempts) const;
  // Called with the report of every pass that handled events (metrics);
  // set before Start.
  void set_observer(std::function<void(const DispatchReport&)> observer) {
    observer_ = std::move(observer);
  }
  // Starts the background thread. Call once.
  void Start();
  // Makes the thread poll now (after a commit that wrote events).
  void Wake();
  // Stops the thread, finishing the pass in progress. Idempotent.
  void Stop();

 private:
  void Loop();
  // Sends one event; counts the outcome in `report`.
  Settlement Handle(const ClaimedEvent& c, DispatchReport* report);

  AccessEventStore* store_;
  EventNotifier* notifier_;
  DispatchSettings settings_;
  std::function<void(const DispatchReport&)> observer_;
  absl::Mutex mu_;
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// Reminder settings (access.notifications).
struct ReminderSettings {
  std::vector<int> expiring_grant_days = {7, 3, 1};  // Guardian's daysBeforeExpired
  absl::Duration pending_approval_age = absl::Hours(24);
};

// expiring_grant_notification: one grant.expiring event per active grant
// whose expiration falls within the smallest threshold it has reached
// (ExpiringThreshold), id "grant.expiring:<grant>:<days>:<expiration µs>",
// so each (grant, threshold, expiration date) is announced once however
// often the job runs, and again after a restore with a new date. Returns how many
// events were new.
absl::StatusOr<int> WriteExpiringReminders(AccessEventStore& store, const EventPolicy& policy,
                                           const ReminderSettings& settings, absl::Time now);
// How long settled events are kept: 30 days, or longer than the largest
// expiring_grant_days threshold, whose event ids must outlive it to stay
// written once.
absl::Duration EventRetention(const ReminderSettings& settings);

// pending_approvals_reminder: one appeal.pending_reminder per appeal pending
// longer than pending_approval_age, to its current step's approvers, id
// qualified by the UTC day of `now` (once per appeal and day). Returns how
// many events were new.
absl::StatusOr<int> WritePendingReminders(AccessEventStore& store, const EventPolicy& policy,
                                          const ReminderSettings& settings, absl::Time now);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_CORE_EVENT_OUTBOX_H_
