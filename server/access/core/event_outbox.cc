#include "server/access/core/event_outbox.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/trace/span.h"
#include "spdlog/spdlog.h"

namespace sluice::access {
namespace {

// At most this many rows per reminder query (the job runs again tomorrow,
// and each event id is written once).
constexpr int kReminderScanLimit = 5000;

// Permanent: retrying cannot help (bad selector or template, no caller).
bool IsPermanent(const absl::Status& st) {
  return absl::IsInvalidArgument(st) || absl::IsFailedPrecondition(st) ||
         absl::IsPermissionDenied(st) || absl::IsUnauthenticated(st);
}

}  // namespace

absl::Duration EventDispatcher::RetryDelay(int attempts) const {
  absl::Duration d = settings_.backoff;
  for (int i = 1; i < attempts && d < settings_.backoff_max; ++i) d *= 2;
  return std::min(d, settings_.backoff_max);
}

Settlement EventDispatcher::Handle(const ClaimedEvent& c, DispatchReport* report) {
  const AccessEvent& e = c.event;
  // Continues the trace of the request that wrote the event: the
  // notification it creates stores this context, and so do its deliveries.
  auto parent = trace::ParseTraceparent(c.traceparent);
  trace::ScopedSpan span("access_event.dispatch", trace::SpanKind::kConsumer,
                         parent ? &*parent : nullptr);
  span.span().SetAttribute("sluice.access_event.type", e.type);
  absl::Status st = notifier_->Send(e);
  Settlement s{e.id, "", absl::ZeroDuration(), std::string(st.message())};
  if (st.ok()) {
    ++report->sent;
    s.outcome = "sent";
  } else if (absl::IsNotFound(st)) {
    // Nothing subscribed to it: not an error, and never retried.
    ++report->no_receiver;
    s.outcome = "no_receiver";
  } else if (IsPermanent(st) || c.attempts >= settings_.max_attempts) {
    ++report->failed;
    spdlog::warn("msg=\"access event not delivered\" id={} attempts={} error=\"{}\"", e.id,
                 c.attempts, s.error);
    s.outcome = "failed";
  } else {
    ++report->retried;
    s.delay = RetryDelay(c.attempts);
  }
  return s;
}

absl::StatusOr<DispatchReport> EventDispatcher::RunOnce() {
  auto claimed = store_->Claim(settings_.batch_size, settings_.lease);
  if (!claimed.ok()) return claimed.status();
  DispatchReport report;
  std::vector<Settlement> settled;
  for (const ClaimedEvent& c : *claimed) settled.push_back(Handle(c, &report));
  if (settled.empty()) return report;
  // One statement for the whole pass. If it fails, the lease returns the
  // events later and the idempotency keys keep a resend from reaching
  // anyone twice.
  if (auto st = store_->Settle(settled); !st.ok()) return st;
  return report;
}

void EventDispatcher::Start() { thread_ = std::thread([this] { Loop(); }); }

void EventDispatcher::Wake() {
  absl::MutexLock lock(&mu_);
  woken_ = true;
}

void EventDispatcher::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void EventDispatcher::Loop() {
  while (true) {
    auto report = RunOnce();
    if (!report.ok()) {
      spdlog::warn("msg=\"access event dispatch failed\" error=\"{}\"",
                   std::string(report.status().message()));
    }
    if (report.ok() && report->total() > 0 && observer_) observer_(*report);
    bool full = report.ok() && report->total() >= settings_.batch_size;
    absl::MutexLock lock(&mu_);
    if (!full) {
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return woken_ || stopping_; };
      mu_.AwaitWithTimeout(absl::Condition(&ready), settings_.poll_interval);
    }
    if (stopping_) return;
    woken_ = false;
  }
}

absl::StatusOr<int> WriteExpiringReminders(AccessEventStore& store, const EventPolicy& policy,
                                           const ReminderSettings& settings, absl::Time now) {
  if (policy.disabled.count(kEventGrantExpiring) || settings.expiring_grant_days.empty()) return 0;
  int max_days = *std::max_element(settings.expiring_grant_days.begin(),
                                    settings.expiring_grant_days.end());
  auto grants = store.ExpiringGrants(now, now + absl::Hours(24) * max_days, kReminderScanLimit);
  if (!grants.ok()) return grants.status();
  std::vector<AccessEvent> events;
  for (const pb::Grant& g : *grants) {
    absl::Time exp = absl::FromUnixSeconds(g.expiration_date().seconds());
    int days = ExpiringThreshold(exp, now, settings.expiring_grant_days);
    if (days > 0) events.push_back(ExpiringEvent(g, days));
  }
  return store.Insert(policy.Filter(std::move(events)));
}

absl::Duration EventRetention(const ReminderSettings& settings) {
  int days = 30;
  for (int d : settings.expiring_grant_days) days = std::max(days, d + 2);
  return absl::Hours(24) * days;
}

absl::StatusOr<int> WritePendingReminders(AccessEventStore& store, const EventPolicy& policy,
                                          const ReminderSettings& settings, absl::Time now) {
  if (policy.disabled.count(kEventPendingReminder)) return 0;
  auto appeals = store.PendingAppeals(now - settings.pending_approval_age, kReminderScanLimit);
  if (!appeals.ok()) return appeals.status();
  std::string day = absl::FormatTime("%Y-%m-%d", now, absl::UTCTimeZone());
  std::vector<AccessEvent> events;
  for (const pb::Appeal& a : *appeals) events.push_back(PendingReminderEvent(a, day));
  return store.Insert(policy.Filter(std::move(events)));
}

}  // namespace sluice::access
