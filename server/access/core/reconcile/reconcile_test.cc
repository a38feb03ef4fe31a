// ReconcileService (through AccessServices) with in-memory fakes: the expiry
// job and the reconciliation of provider calls left in flight.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/access/core/appeal/appeal_service_fixture.h"

namespace sluice::access {
namespace {

// The shared fixture (appeal_service_fixture.h).
class ReconcileTest : public AppealServiceTest {};

TEST_F(ReconcileTest, ExpiryRetriesProviderFailures) {
  auto created = Service().appeals().Create(Request(kAuto, "1h"), "u@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(Service().reconcile().ExpireGrants().value(), 0);
  now_ += absl::Hours(2);
  client_->revoke_error = absl::UnavailableError("provider down");
  EXPECT_EQ(Service().reconcile().ExpireGrants().value(), 0);
  EXPECT_EQ(appeals_.state.grants.begin()->second.status(), "active");  // kept for retry
  client_->revoke_error = absl::OkStatus();
  EXPECT_EQ(Service().reconcile().ExpireGrants().value(), 1);
  const auto& g = appeals_.state.grants.begin()->second;
  EXPECT_EQ(g.status(), "inactive");
  EXPECT_EQ(g.revoke_reason(), "expired");
  // The appeal stays approved (as in Guardian); the grant says it expired.
  const auto& appeal = appeals_.state.appeals.begin()->second;
  EXPECT_EQ(appeal.status(), "approved");
  EXPECT_EQ(appeal.revoked_by(), "system");
  EXPECT_EQ(appeal.revoke_reason(), "expired");
  EXPECT_EQ(appeals_.state.audit.back().action, "grant.expire");
}

TEST_F(ReconcileTest, ReconcileRevokesAccessWithoutARecord) {
  // What a crash between GrantAccess and COMMIT leaves: an entry in flight,
  // access in the provider, no grant row.
  ProviderOperation op{"", "grant", "ghost@x.com", "user", kAuto, "viewer", {}, "fake", "f",
                       "appeal-1", "", now_ - absl::Minutes(5)};
  ASSERT_TRUE(journal_.Begin(op).ok());
  // A recorded grant's entry left in flight is only confirmed.
  auto created = Service().appeals().Create(Request(kAuto, "24h"), "u@x.com");
  ASSERT_TRUE(created.ok());
  ProviderOperation kept = op;
  kept.account_id = "u@x.com";
  ASSERT_TRUE(journal_.Begin(kept).ok());

  auto report = Service().reconcile().Reconcile(absl::Seconds(60));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->examined, 2);
  EXPECT_EQ(report->revoked, 1);
  EXPECT_EQ(report->confirmed, 1);
  ASSERT_EQ(client_->revoked.size(), 1u);
  EXPECT_EQ(client_->revoked[0].account_id, "ghost@x.com");
  EXPECT_EQ(appeals_.state.grants.begin()->second.status(), "active");  // u@x.com keeps it
  // Settled: a second run finds nothing.
  EXPECT_EQ(Service().reconcile().Reconcile(absl::Seconds(0))->examined, 0);
}

TEST_F(ReconcileTest, ReconcileCompletesAnInterruptedRevokeAndRetriesFailures) {
  auto created = Service().appeals().Create(Request(kAuto, "24h"), "u@x.com");
  ASSERT_TRUE(created.ok());
  const pb::Grant& g = appeals_.state.grants.begin()->second;
  // Revoked in the provider, crashed before the grant row changed.
  ProviderOperation op{"", "revoke", "u@x.com", "user", kAuto, "viewer", {}, "fake", "f",
                       (*created)[0].id(), g.id(), now_ - absl::Minutes(5)};
  ASSERT_TRUE(journal_.Begin(op).ok());
  client_->revoke_error = absl::UnavailableError("provider down");
  auto failed = Service().reconcile().Reconcile(absl::Seconds(60));
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->failed, 1);
  EXPECT_EQ(appeals_.state.grants.begin()->second.status(), "active");
  client_->revoke_error = absl::OkStatus();
  auto done = Service().reconcile().Reconcile(absl::Seconds(60));
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->completed, 1);
  EXPECT_EQ(appeals_.state.grants.begin()->second.status(), "inactive");
  EXPECT_EQ(appeals_.state.audit.back().action, "grant.revoke_reconciled");
}

TEST_F(ReconcileTest, FailedCompensationIsLeftForReconciliation) {
  appeals_.insert_grant_error = absl::UnavailableError("db down");
  client_->revoke_error = absl::UnavailableError("provider down too");
  EXPECT_FALSE(Service().appeals().Create(Request(kAuto, "24h"), "u@x.com").ok());
  EXPECT_EQ(journal_.Statuses(), (std::vector<std::string>{"grant:in_flight"}));
  appeals_.insert_grant_error = absl::OkStatus();
  client_->revoke_error = absl::OkStatus();
  auto report = Service().reconcile().Reconcile(absl::Seconds(0));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->revoked, 1);
  EXPECT_EQ(journal_.Statuses(), (std::vector<std::string>{"grant:revoked"}));
}

}  // namespace
}  // namespace sluice::access
