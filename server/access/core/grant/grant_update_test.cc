// Issue 28: PATCH /grants/{id}'s expiration_date (admins, capped as a
// restore, audited) and RevokeGrant's skip_revoke_in_provider (admins) and
// skip_notification.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "server/access/core/grant/grant_actions_fixture.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

using GrantUpdateTest = GrantActionsTest;

// Before issue 28 an expiration-only body was "owner: required".
TEST_F(GrantUpdateTest, ExpirationIsForAdminsWithinTheCapAndAudited) {
  pb::Grant g = Granted("u@x.com");  // permanent
  ASSERT_TRUE(g.is_permanent());
  const Actor owner{"u@x.com", false};
  absl::Time day = now_ + absl::Hours(24);
  auto denied = service_->grants().UpdateGrant(g.id(), "", day, "shorten", owner);
  EXPECT_TRUE(absl::IsPermissionDenied(denied.status())) << denied.status();
  EXPECT_TRUE(absl::StrContains(denied.status().message(), "expiration_date"));
  auto expect_invalid = [&](std::optional<absl::Time> when, const std::string& reason,
                            const std::string& field) {
    auto st = service_->grants().UpdateGrant(g.id(), "", when, reason, kAdmin).status();
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
    EXPECT_TRUE(absl::StrContains(st.message(), field)) << st.message();
  };
  expect_invalid(now_ - absl::Hours(1), "past", "expiration_date");
  expect_invalid(day, "", "expiration_date_reason");
  expect_invalid(std::nullopt, "reason alone", "expiration_date");
  expect_invalid(std::nullopt, "", "owner");
  // The restore cap: access.max_grant_duration (90 days by default).
  expect_invalid(now_ + absl::Hours(24 * 91), "too far", "access.max_grant_duration");
  EXPECT_TRUE(appeals_.state.grants[g.id()].is_permanent());

  auto updated = service_->grants().UpdateGrant(g.id(), "", day, "project ends", kAdmin);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_FALSE(updated->is_permanent());
  EXPECT_EQ(FromTimestamp(updated->expiration_date()), day);
  EXPECT_EQ(updated->expiration_date_reason(), "project ends");
  EXPECT_EQ(updated->owner(), "u@x.com");  // untouched
  AuditEntry audit = LastAudit("grant.update_expiration");
  EXPECT_EQ(audit.actor, "admin@x.com");
  EXPECT_EQ(audit.data.value("previous_expiration_date", ""), "permanent");
  EXPECT_EQ(audit.data.value("expiration_date_reason", ""), "project ends");
  // Guardian's rule: only brought forward, never extended.
  expect_invalid(day + absl::Hours(1), "later", "expiration_date");
  // Owner and expiration together, in one update.
  auto both = service_->grants().UpdateGrant(g.id(), "v@x.com", day - absl::Hours(1), "sooner", kAdmin);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->owner(), "v@x.com");
  EXPECT_EQ(FromTimestamp(both->expiration_date()), day - absl::Hours(1));
}

TEST_F(GrantUpdateTest, ExpirationIsCappedByThePolicysLongestDurationOption) {
  AddPolicyWithDurationOptions("48h");
  pb::Grant g = Granted("u@x.com", "viewer", "24h", kRes2);
  // A permanent grant (e.g. imported) under that policy: the cap, not its
  // own date, bounds the new one.
  appeals_.state.grants[g.id()].set_is_permanent(true);
  appeals_.state.grants[g.id()].clear_expiration_date();
  auto over = service_->grants().UpdateGrant(g.id(), "", now_ + absl::Hours(49), "x", kAdmin).status();
  EXPECT_TRUE(absl::IsInvalidArgument(over)) << over;
  EXPECT_TRUE(absl::StrContains(over.message(), "duration_options")) << over.message();
  auto within = service_->grants().UpdateGrant(g.id(), "", now_ + absl::Hours(47), "x", kAdmin);
  EXPECT_TRUE(within.ok()) << within.status();
}

// Before issue 28 both flags were dropped: the provider was always called
// and the holder always notified.
TEST_F(GrantUpdateTest, SkipRevokeInProviderIsForAdmins) {
  pb::Grant g = Granted("u@x.com");
  RevokeOptions skip;
  skip.skip_revoke_in_provider = true;
  auto denied = service_->grants().RevokeGrant(g.id(), {"u@x.com", false}, "gone", skip);
  EXPECT_TRUE(absl::IsPermissionDenied(denied.status())) << denied.status();
  EXPECT_TRUE(absl::StrContains(denied.status().message(), "skip_revoke_in_provider"));
  EXPECT_EQ(appeals_.state.grants[g.id()].status(), "active");
  auto revoked = service_->grants().RevokeGrant(g.id(), kAdmin, "already gone there", skip);
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(revoked->status(), "inactive");
  EXPECT_EQ(revoked->status_in_provider(), "active");  // not touched there
  EXPECT_TRUE(client_->revoked.empty());
  EXPECT_EQ(Events(kEventGrantRevoked, g.id()).size(), 1u);
  EXPECT_EQ(LastAudit("grant.revoke").data.value("skip_revoke_in_provider", false), true);
}

TEST_F(GrantUpdateTest, SkipNotificationWritesNoRevokedEvent) {
  pb::Grant g = Granted("u@x.com");
  RevokeOptions quiet;
  quiet.skip_notification = true;
  auto revoked = service_->grants().RevokeGrant(g.id(), {"u@x.com", false}, "done", quiet);
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(revoked->status(), "inactive");
  EXPECT_EQ(client_->revoked.size(), 1u);  // revoked in the provider as usual
  EXPECT_TRUE(Events(kEventGrantRevoked, g.id()).empty());
  pb::Grant other = Granted("w@x.com", "editor");
  ASSERT_TRUE(service_->grants().RevokeGrant(other.id(), kAdmin, "done").ok());
  EXPECT_EQ(Events(kEventGrantRevoked, other.id()).size(), 1u);
}

}  // namespace
}  // namespace sluice::access
