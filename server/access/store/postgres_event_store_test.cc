// The access_events outbox against real PostgreSQL: events written with the
// appeal in one statement, idempotent ids, claims that two replicas never
// share, retries and settling, and the reminder queries.
#include "server/access/store/postgres_event_store.h"

#include <gtest/gtest.h>

#include "server/access/store/testing/store_test.h"
#include "server/access/core/validation.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/postgres_repositories.h"

namespace sluice::access {
namespace {

class EventStoreTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (HasFatalFailure()) return;
    resource_id_ = CreateResource("t", "a", "orders");
  }

  pb::Appeal PendingAppeal(const std::string& account) {
    pb::Appeal a;
    a.set_resource_id(resource_id_);
    a.set_policy_id("p1");
    a.set_policy_version(1);
    a.set_status("pending");
    a.set_account_id(account);
    a.set_account_type("user");
    a.set_role("viewer");
    a.set_created_by(account);
    pb::Approval* p = a.add_approvals();
    p->set_name("owner");
    p->set_status("pending");
    p->add_approvers("o@x.com");
    return a;
  }

  std::string resource_id_;
};

TEST_F(EventStoreTest, CreatedEventGoesInWithTheAppealAndIsClaimedOnce) {
  PostgresAppealRepository appeals(pool_.get());
  pb::Appeal a = PendingAppeal("u@x.com");
  auto inserted = appeals.InsertAppealUnlessActiveGrant(
      &a, {"appeal.create", "u@x.com"}, CreatedEvents(a));
  ASSERT_TRUE(inserted.ok() && *inserted) << inserted.status();

  PostgresAccessEventStore store(pool_.get());
  auto first = store.Claim(10, absl::Seconds(60));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 1u);
  const AccessEvent& e = (*first)[0].event;
  EXPECT_EQ(e.id, "appeal.created:" + a.id());
  EXPECT_EQ(e.type, "appeal.created");
  EXPECT_EQ(e.variables["appeal_id"], a.id());
  EXPECT_EQ(e.recipients, std::vector<std::string>{"o@x.com"});
  EXPECT_EQ((*first)[0].attempts, 1);
  // Leased: a second replica's claim gets nothing.
  EXPECT_TRUE(store.Claim(10, absl::Seconds(60))->empty());
  // A transient failure makes it due again; settled, it never comes back.
  ASSERT_TRUE(store.Settle({{e.id, "", absl::ZeroDuration(), "unavailable"}}).ok());
  auto again = store.Claim(10, absl::Seconds(60));
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].attempts, 2);
  ASSERT_TRUE(store.Settle({{e.id, "sent", absl::ZeroDuration(), ""}}).ok());
  ASSERT_TRUE(store.Settle({{e.id, "", absl::ZeroDuration(), "late"}}).ok());
  EXPECT_TRUE(store.Claim(10, absl::ZeroDuration())->empty());
  // Pruned once settled before the cut-off, not earlier.
  EXPECT_EQ(*store.Prune(absl::Now() - absl::Hours(1)), 0);
  EXPECT_EQ(*store.Prune(absl::Now() + absl::Seconds(5)), 1);
}

TEST_F(EventStoreTest, InsertIsIdempotentAndTransactional) {
  PostgresAccessEventStore store(pool_.get());
  AccessEvent e;
  e.id = "grant.expiring:g1:7";
  e.type = kEventGrantExpiring;
  e.recipients = {"u@x.com"};
  EXPECT_EQ(*store.Insert({e}), 1);
  EXPECT_EQ(*store.Insert({e}), 0);
  // Rolled back with its transaction.
  PostgresAppealRepository appeals(pool_.get());
  e.id = "grant.revoked:g2";
  EXPECT_FALSE(appeals.InTransaction([&](AccessTx& tx) {
    EXPECT_TRUE(tx.InsertEvents({e}).ok());
    return absl::AbortedError("rollback");
  }).ok());
  auto claimed = store.Claim(10, absl::Seconds(1));
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].event.id, "grant.expiring:g1:7");
}

TEST_F(EventStoreTest, ReminderQueries) {
  PostgresAppealRepository appeals(pool_.get());
  pb::Appeal a = PendingAppeal("u@x.com");
  ASSERT_TRUE(appeals.InsertAppealUnlessActiveGrant(&a, {"appeal.create", "u@x.com"}).ok());
  PostgresAccessEventStore store(pool_.get());
  auto none = store.PendingAppeals(absl::Now() - absl::Hours(1), 10);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  auto pending = store.PendingAppeals(absl::Now() + absl::Seconds(5), 10);
  ASSERT_TRUE(pending.ok() && pending->size() == 1u);
  EXPECT_EQ((*pending)[0].approvals_size(), 1);
  EXPECT_EQ((*pending)[0].resource().name(), "orders");

  absl::Time now = absl::Now();
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) {
    for (int days : {2, 9}) {
      pb::Grant g;
      g.set_status("active");
      g.set_account_id(absl::StrCat("g", days, "@x.com"));
      g.set_account_type("user");
      g.set_resource_id(resource_id_);
      g.set_role("viewer");
      g.set_source("appeal");
      *g.mutable_expiration_date() = ToTimestamp(now + absl::Hours(24 * days));
      if (auto st = tx.InsertGrant(&g); !st.ok()) return st;
    }
    return absl::OkStatus();
  }).ok());
  auto expiring = store.ExpiringGrants(now, now + absl::Hours(24 * 7), 10);
  ASSERT_TRUE(expiring.ok()) << expiring.status();
  ASSERT_EQ(expiring->size(), 1u);
  EXPECT_EQ((*expiring)[0].account_id(), "g2@x.com");
  EXPECT_EQ((*expiring)[0].resource().name(), "orders");
}

}  // namespace
}  // namespace sluice::access
