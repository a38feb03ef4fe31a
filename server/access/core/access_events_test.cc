// Event builders, the dispatcher's outcomes and the reminder selection.
#include "server/access/core/access_events.h"

#include <map>

#include <gtest/gtest.h>

#include "common/trace/trace_context.h"
#include "server/access/core/event_outbox.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

using Strings = std::vector<std::string>;

pb::Grant GrantExpiringAt(const std::string& id, absl::Time t) {
  pb::Grant g;
  g.set_id(id);
  g.set_account_id("u@x.com");
  g.set_owner("u@x.com");
  *g.mutable_expiration_date() = ToTimestamp(t);
  g.mutable_resource()->set_name("orders");
  return g;
}

// An outbox in memory; Insert skips existing ids as the table does.
class FakeEventStore : public AccessEventStore {
 public:
  absl::StatusOr<int> Insert(const std::vector<AccessEvent>& events) override {
    int n = 0;
    for (const auto& e : events) n += rows.emplace(e.id, Row{e}).second;
    return n;
  }
  absl::StatusOr<std::vector<ClaimedEvent>> Claim(int limit, absl::Duration) override {
    std::vector<ClaimedEvent> out;
    for (auto& [id, r] : rows) {
      if (!r.outcome.empty() || static_cast<int>(out.size()) >= limit) continue;
      out.push_back({r.event, ++r.attempts});
    }
    return out;
  }
  absl::Status Settle(const std::vector<Settlement>& settlements) override {
    ++settle_calls;
    for (const Settlement& s : settlements) {
      rows[s.id].outcome = s.outcome;
      rows[s.id].delay = s.delay;
    }
    return absl::OkStatus();
  }
  absl::StatusOr<int> Prune(absl::Time) override { return 0; }
  absl::StatusOr<std::vector<pb::Grant>> ExpiringGrants(absl::Time now, absl::Time until,
                                                        int) override {
    std::vector<pb::Grant> out;
    for (const auto& g : grants) {
      absl::Time t = FromTimestamp(g.expiration_date());
      if (t > now && t <= until) out.push_back(g);
    }
    return out;
  }
  absl::StatusOr<std::vector<pb::Appeal>> PendingAppeals(absl::Time before, int) override {
    std::vector<pb::Appeal> out;
    for (const auto& a : appeals) {
      if (FromTimestamp(a.created_at()) < before) out.push_back(a);
    }
    return out;
  }
  struct Row {
    AccessEvent event;
    int attempts = 0;
    std::string outcome;
    absl::Duration delay;
  };
  std::map<std::string, Row> rows;
  int settle_calls = 0;
  std::vector<pb::Grant> grants;
  std::vector<pb::Appeal> appeals;
};

class ScriptedNotifier : public EventNotifier {
 public:
  absl::Status Send(const AccessEvent& e) override {
    sent.push_back(e.id);
    auto it = results.find(e.id);
    return it == results.end() ? absl::OkStatus() : it->second;
  }
  std::map<std::string, absl::Status> results;
  Strings sent;
};

AccessEvent Ev(const std::string& id) {
  AccessEvent e;
  e.id = id;
  e.type = kEventAppealCreated;
  e.recipients = {"o@x.com"};
  return e;
}

TEST(EventDispatcherTest, SettlesSentUnmatchedAndPermanentFailuresAndRetriesTheRest) {
  FakeEventStore store;
  ScriptedNotifier notifier;
  DispatchSettings s;
  s.max_attempts = 3;
  ASSERT_TRUE(store.Insert({Ev("ok"), Ev("nobody"), Ev("bad"), Ev("down")}).ok());
  notifier.results["nobody"] = absl::NotFoundError("no receiver matched");
  notifier.results["bad"] = absl::InvalidArgumentError("bad selector");
  notifier.results["down"] = absl::UnavailableError("db down");
  EventDispatcher d(&store, &notifier, s);
  auto r = d.RunOnce();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->sent, 1);
  EXPECT_EQ(r->no_receiver, 1);
  EXPECT_EQ(r->failed, 1);
  EXPECT_EQ(r->retried, 1);
  EXPECT_EQ(store.rows["ok"].outcome, "sent");
  EXPECT_EQ(store.rows["nobody"].outcome, "no_receiver");
  EXPECT_EQ(store.rows["bad"].outcome, "failed");
  EXPECT_EQ(store.rows["down"].outcome, "");
  EXPECT_EQ(store.rows["down"].delay, absl::Seconds(1));
  EXPECT_EQ(store.settle_calls, 1);  // one write for the whole pass
  // Settled events are not sent again; the transient one is, until the cap.
  notifier.sent.clear();
  ASSERT_TRUE(d.RunOnce().ok());
  EXPECT_EQ(notifier.sent, Strings{"down"});
  EXPECT_EQ(store.rows["down"].delay, absl::Seconds(2));
  ASSERT_TRUE(d.RunOnce().ok());
  EXPECT_EQ(store.rows["down"].outcome, "failed");
}

// The store as it answers for events written under a traced request.
class TracedEventStore : public FakeEventStore {
 public:
  absl::StatusOr<std::vector<ClaimedEvent>> Claim(int limit, absl::Duration lease) override {
    auto out = FakeEventStore::Claim(limit, lease);
    if (out.ok()) {
      for (auto& c : *out) c.traceparent = traceparent;
    }
    return out;
  }
  std::string traceparent;
};

// Records the trace context each event is sent under.
class TraceRecordingNotifier : public EventNotifier {
 public:
  absl::Status Send(const AccessEvent&) override {
    const trace::TraceContext* c = trace::Current();
    seen.push_back(c == nullptr ? "" : c->TraceIdHex() + "/" + c->SpanIdHex());
    return absl::OkStatus();
  }
  Strings seen;
};

TEST(EventDispatcherTest, DispatchContinuesTheTraceStoredWithTheEvent) {
  TracedEventStore store;
  store.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  TraceRecordingNotifier notifier;
  ASSERT_TRUE(store.Insert({Ev("traced")}).ok());
  EventDispatcher d(&store, &notifier, DispatchSettings{});
  ASSERT_TRUE(d.RunOnce().ok());
  ASSERT_EQ(notifier.seen.size(), 1u);
  // The request's trace id, under a span of the dispatcher's own.
  EXPECT_EQ(notifier.seen[0].substr(0, 33), "4bf92f3577b34da6a3ce929d0e0e4736/");
  EXPECT_NE(notifier.seen[0].substr(33), "00f067aa0ba902b7");
  EXPECT_EQ(trace::Current(), nullptr);  // restored after the dispatch
  // Without a stored context (a reminder job's event): a trace of its own.
  TracedEventStore plain;
  TraceRecordingNotifier n2;
  ASSERT_TRUE(plain.Insert({Ev("reminder")}).ok());
  EventDispatcher d2(&plain, &n2, DispatchSettings{});
  ASSERT_TRUE(d2.RunOnce().ok());
  ASSERT_EQ(n2.seen.size(), 1u);
  EXPECT_EQ(n2.seen[0].size(), 49u);
  EXPECT_NE(n2.seen[0].substr(0, 32), "4bf92f3577b34da6a3ce929d0e0e4736");
}

TEST(EventDispatcherTest, BackoffDoublesUpToTheCap) {
  FakeEventStore store;
  ScriptedNotifier notifier;
  DispatchSettings s;
  s.backoff = absl::Seconds(1);
  s.backoff_max = absl::Seconds(5);
  EventDispatcher d(&store, &notifier, s);
  EXPECT_EQ(d.RetryDelay(1), absl::Seconds(1));
  EXPECT_EQ(d.RetryDelay(3), absl::Seconds(4));
  EXPECT_EQ(d.RetryDelay(4), absl::Seconds(5));
  EXPECT_EQ(d.RetryDelay(60), absl::Seconds(5));
}

TEST(EventDispatcherTest, WakeDeliversWithoutWaitingForThePoll) {
  FakeEventStore store;
  ScriptedNotifier notifier;
  DispatchSettings s;
  s.poll_interval = absl::Hours(1);
  EventDispatcher d(&store, &notifier, s);
  d.Start();
  ASSERT_TRUE(store.Insert({Ev("e1")}).ok());
  d.Wake();
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (store.rows["e1"].outcome.empty() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  d.Stop();
  EXPECT_EQ(store.rows["e1"].outcome, "sent");
}

TEST(RemindersTest, ExpiringGrantsGetTheSmallestReachedThresholdOnce) {
  absl::Time now = absl::FromUnixSeconds(1800000000);
  FakeEventStore store;
  store.grants = {GrantExpiringAt("g6", now + absl::Hours(24 * 6)),
                  GrantExpiringAt("g2", now + absl::Hours(24 * 2)),
                  GrantExpiringAt("g10", now + absl::Hours(24 * 10))};
  ReminderSettings s;
  auto n = WriteExpiringReminders(store, {}, s, now);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2);
  EXPECT_TRUE(store.rows.count(ExpiringEvent(store.grants[0], 7).id));
  EXPECT_TRUE(store.rows.count(ExpiringEvent(store.grants[1], 3).id));
  EXPECT_EQ(store.rows[ExpiringEvent(store.grants[1], 3).id].event.variables["days"], 3);
  EXPECT_EQ(*WriteExpiringReminders(store, {}, s, now), 0);  // idempotent per (grant, days)
  // A day later g2 reaches the 1-day threshold: one new reminder.
  EXPECT_EQ(*WriteExpiringReminders(store, {}, s, now + absl::Hours(25)), 1);
  EXPECT_TRUE(store.rows.count(ExpiringEvent(store.grants[1], 1).id));
  EventPolicy off;
  off.disabled = {kEventGrantExpiring};
  EXPECT_EQ(*WriteExpiringReminders(store, off, s, now + absl::Hours(24 * 4)), 0);
}

// Finding F-L5: a grant restored with a new expiration date is reminded
// again at the same threshold (the id carries the expiration date).
TEST(RemindersTest, ANewExpirationIsRemindedAgainAtTheSameThreshold) {
  absl::Time now = absl::FromUnixSeconds(1800000000);
  FakeEventStore store;
  store.grants = {GrantExpiringAt("g2", now + absl::Hours(24 * 2))};
  ReminderSettings s;
  EXPECT_EQ(*WriteExpiringReminders(store, {}, s, now), 1);
  EXPECT_EQ(*WriteExpiringReminders(store, {}, s, now), 0);
  // Expired, restored by an admin until a day and a half later, same threshold.
  store.grants = {GrantExpiringAt("g2", now + absl::Hours(24 * 2 + 12))};
  EXPECT_EQ(*WriteExpiringReminders(store, {}, s, now + absl::Hours(1)), 1);
  EXPECT_EQ(store.rows.size(), 2u);
}

TEST(AccessEventsTest, RepeatableGrantEventIdsAreQualified) {
  absl::Time t = absl::FromUnixSeconds(1800000000);
  pb::Grant g = GrantExpiringAt("g", t + absl::Hours(1));
  *g.mutable_revoked_at() = ToTimestamp(t);
  AccessEvent first = RevokedEvent(g);
  *g.mutable_revoked_at() = ToTimestamp(t + absl::Minutes(5));
  AccessEvent second = RevokedEvent(g);
  EXPECT_EQ(first.id, "grant.revoked:g:1800000000000000");
  EXPECT_NE(first.id, second.id);
  AccessEvent expiring = ExpiringEvent(g, 1);
  EXPECT_EQ(expiring.id, "grant.expiring:g:1:1800003600000000");
}

TEST(RemindersTest, PendingAppealsOlderThanTheAgeRemindCurrentApproversOncePerDay) {
  absl::Time now = absl::FromUnixSeconds(1800000000);
  FakeEventStore store;
  pb::Appeal a;
  a.set_id("a1");
  *a.mutable_created_at() = ToTimestamp(now - absl::Hours(30));
  auto* done = a.add_approvals();
  done->set_name("owner");
  done->set_status("approved");
  done->add_approvers("o@x.com");
  auto* cur = a.add_approvals();
  cur->set_name("security");
  cur->set_status("pending");
  cur->add_approvers("s@x.com");
  pb::Appeal young = a;
  young.set_id("a2");
  *young.mutable_created_at() = ToTimestamp(now - absl::Hours(2));
  store.appeals = {a, young};
  ReminderSettings s;
  EXPECT_EQ(*WritePendingReminders(store, {}, s, now), 1);
  const AccessEvent& e = store.rows.begin()->second.event;
  EXPECT_EQ(e.id, "appeal.pending_reminder:a1:2027-01-15");
  EXPECT_EQ(e.recipients, Strings{"s@x.com"});
  EXPECT_EQ(*WritePendingReminders(store, {}, s, now + absl::Hours(1)), 0);
  // The next day: a1 again, and a2, now older than the age, for the first time.
  EXPECT_EQ(*WritePendingReminders(store, {}, s, now + absl::Hours(24)), 2);
  EXPECT_TRUE(store.rows.count("appeal.pending_reminder:a1:2027-01-16"));
}

TEST(AccessEventsTest, NamesPayloadAndThresholds) {
  EXPECT_EQ(EventTemplateName(kEventStepApproved), "access-appeal-step-approved");
  EXPECT_EQ(AllEventTypes().size(), 9u);
  EXPECT_EQ(EventTemplateName(kEventGrantRestored), "access-grant-restored");
  AccessEvent e = Ev("x");
  e.labels = {{"event", "appeal.created"}};
  e.variables = {{"role", "viewer"}};
  AccessEvent back = FromPayload("x", e.type, ToPayload(e));
  EXPECT_EQ(back.recipients, e.recipients);
  EXPECT_EQ(back.labels, e.labels);
  EXPECT_EQ(back.variables, e.variables);
  absl::Time now = absl::UnixEpoch();
  EXPECT_EQ(ExpiringThreshold(now + absl::Hours(23), now, {7, 3, 1}), 1);
  EXPECT_EQ(ExpiringThreshold(now + absl::Hours(24 * 8), now, {7, 3, 1}), 0);
  EXPECT_EQ(ExpiringThreshold(now - absl::Hours(1), now, {7, 3, 1}), 0);
  EXPECT_EQ(EventRetention({}), absl::Hours(24 * 30));
  EXPECT_EQ(EventRetention({{90, 7}}), absl::Hours(24 * 92));
  // Service accounts are no recipients; empty events are dropped.
  pb::Grant g = GrantExpiringAt("g", now);
  g.set_account_id("sa-123");
  g.set_owner("");
  EXPECT_TRUE(EventPolicy{}.Filter({RevokedEvent(g)}).empty());
}

}  // namespace
}  // namespace sluice::access
