// The grant lifecycle with in-memory fakes: owner update, revoke and restore
// with their authorization, bulk revoke by filters, and import.
#include <set>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/access/core/access_services.h"
#include "server/access/core/fakes.h"
#include "server/access/core/grant/grant_actions_fixture.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

TEST_F(GrantActionsTest, OwnerUpdateNeedsTheOwnerOrAnAdmin) {
  pb::Grant g = Granted("u@x.com");
  EXPECT_EQ(g.owner(), "u@x.com");
  auto denied = service_->grants().UpdateGrantOwner(g.id(), "eve@x.com", kEve);
  EXPECT_TRUE(absl::IsPermissionDenied(denied.status())) << denied.status();
  auto empty = service_->grants().UpdateGrantOwner(g.id(), "", {"u@x.com", false});
  EXPECT_TRUE(absl::IsInvalidArgument(empty.status()));
  EXPECT_TRUE(absl::StrContains(empty.status().message(), "owner"));
  EXPECT_TRUE(absl::IsInvalidArgument(
      service_->grants().UpdateGrantOwner("nope", "v@x.com", kAdmin).status()));
  auto moved = service_->grants().UpdateGrantOwner(g.id(), "v@x.com", {"u@x.com", false});
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->owner(), "v@x.com");
  EXPECT_EQ(appeals_.state.grants[g.id()].owner(), "v@x.com");
  // grant.owner_changed went to the outbox with the change, to both owners.
  int owner_events = 0;
  for (const auto& [id, e] : appeals_.state.events) {
    if (e.type != "grant.owner_changed") continue;
    ++owner_events;
    EXPECT_EQ(e.recipients, (std::vector<std::string>{"u@x.com", "v@x.com"}));
  }
  EXPECT_EQ(owner_events, 1);
  // The previous owner no longer owns it; an admin may still move it.
  EXPECT_TRUE(absl::IsPermissionDenied(
      service_->grants().UpdateGrantOwner(g.id(), "u@x.com", {"u@x.com", false}).status()));
  EXPECT_TRUE(service_->grants().UpdateGrantOwner(g.id(), "u@x.com", kAdmin).ok());
}

TEST_F(GrantActionsTest, RevokeThenRestoreGrantsAgainInTheProvider) {
  pb::Grant g = Granted("u@x.com");
  EXPECT_TRUE(absl::IsPermissionDenied(service_->grants().RevokeGrant(g.id(), kEve, "x").status()));
  auto revoked = service_->grants().RevokeGrant(g.id(), {"u@x.com", false}, "done");
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(revoked->status(), "inactive");
  EXPECT_EQ(revoked->revoked_by(), "u@x.com");
  ASSERT_EQ(client_->revoked.size(), 1u);
  EXPECT_TRUE(absl::IsFailedPrecondition(
      service_->grants().RevokeGrant(g.id(), kAdmin, "again").status()));

  auto no_reason = service_->grants().RestoreGrant(g.id(), kAdmin, "", std::nullopt);
  EXPECT_TRUE(absl::IsInvalidArgument(no_reason.status()));
  EXPECT_TRUE(absl::StrContains(no_reason.status().message(), "reason"));
  EXPECT_TRUE(absl::IsPermissionDenied(
      service_->grants().RestoreGrant(g.id(), kEve, "please", std::nullopt).status()));
  size_t grants_before = client_->granted.size();
  auto restored = service_->grants().RestoreGrant(g.id(), {"u@x.com", false}, "mistake", std::nullopt);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->status(), "active");
  EXPECT_EQ(restored->restored_by(), "u@x.com");
  EXPECT_EQ(restored->restore_reason(), "mistake");
  EXPECT_EQ(FromTimestamp(restored->restored_at()), now_);
  ASSERT_EQ(client_->granted.size(), grants_before + 1);
  EXPECT_EQ(client_->granted.back().account_id, "u@x.com");
  EXPECT_EQ(client_->granted.back().permissions, std::vector<std::string>{"read"});
  EXPECT_TRUE(absl::IsFailedPrecondition(
      service_->grants().RestoreGrant(g.id(), kAdmin, "again", std::nullopt).status()));
  // The provider call was journaled and committed.
  for (const auto& [id, e] : journal_.entries) EXPECT_EQ(e.status, kOpCommitted) << id;
}

TEST_F(GrantActionsTest, RestoreRefusesAccessHeldAgainAndAPastExpiration) {
  pb::Grant g = Granted("u@x.com", "viewer", "1h");
  ASSERT_TRUE(service_->grants().RevokeGrant(g.id(), kAdmin, "x").ok());
  pb::Grant again = Granted("u@x.com", "viewer", "1h");  // a new appeal, same access
  auto held = service_->grants().RestoreGrant(g.id(), kAdmin, "r", std::nullopt);
  EXPECT_TRUE(absl::IsFailedPrecondition(held.status())) << held.status();
  ASSERT_TRUE(service_->grants().RevokeGrant(again.id(), kAdmin, "x").ok());

  now_ += absl::Hours(2);  // the first grant's expiration has passed
  auto expired = service_->grants().RestoreGrant(g.id(), kAdmin, "r", std::nullopt);
  EXPECT_TRUE(absl::IsInvalidArgument(expired.status()));
  EXPECT_TRUE(absl::StrContains(expired.status().message(), "expiration_date"));
  EXPECT_TRUE(absl::IsInvalidArgument(
      service_->grants().RestoreGrant(g.id(), kAdmin, "r", now_ - absl::Minutes(1)).status()));
  auto restored = service_->grants().RestoreGrant(g.id(), kAdmin, "r", now_ + absl::Hours(1));
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(FromTimestamp(restored->expiration_date()), now_ + absl::Hours(1));
}

// Finding F-H1: an owner may undo only their own revoke, before the grant's
// original expiration, and never choose a new expiration.
TEST_F(GrantActionsTest, OwnerMayUndoOnlyTheirOwnRevokeBeforeTheOriginalExpiration) {
  const Actor owner{"u@x.com", false};
  pb::Grant g = Granted("u@x.com", "viewer", "24h");
  absl::Time original = FromTimestamp(g.expiration_date());
  ASSERT_TRUE(service_->grants().RevokeGrant(g.id(), owner, "not now").ok());
  now_ += absl::Hours(1);
  auto restored = service_->grants().RestoreGrant(g.id(), owner, "needed after all", std::nullopt);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->status(), "active");
  EXPECT_EQ(FromTimestamp(restored->expiration_date()), original);  // never extended

  // With a date of their own choosing: refused, naming the field; nothing granted.
  now_ += absl::Hours(1);
  ASSERT_TRUE(service_->grants().RevokeGrant(g.id(), owner, "again").ok());
  size_t grants_before = client_->granted.size();
  auto dated = service_->grants().RestoreGrant(g.id(), owner, "r", now_ + absl::Hours(1));
  EXPECT_TRUE(absl::IsPermissionDenied(dated.status()) || absl::IsInvalidArgument(dated.status()))
      << dated.status();
  EXPECT_TRUE(absl::StrContains(dated.status().message(), "expiration_date")) << dated.status();
  EXPECT_EQ(client_->granted.size(), grants_before);
  EXPECT_EQ(appeals_.state.grants[g.id()].status(), "inactive");

  // After the original expiration: refused, even for their own revoke.
  now_ = original + absl::Minutes(1);
  auto late = service_->grants().RestoreGrant(g.id(), owner, "r", std::nullopt);
  EXPECT_TRUE(absl::IsFailedPrecondition(late.status()) || absl::IsPermissionDenied(late.status()))
      << late.status();
  EXPECT_TRUE(absl::StrContains(late.status().message(), "expired")) << late.status();
  EXPECT_EQ(client_->granted.size(), grants_before);
}

TEST_F(GrantActionsTest, OwnerMayNotRestoreAGrantRevokedByAnAdminTheExpiryJobOrAnother) {
  const Actor owner{"u@x.com", false};
  pb::Grant by_admin = Granted("u@x.com", "viewer");
  ASSERT_TRUE(service_->grants().RevokeGrant(by_admin.id(), kAdmin, "offboarded").ok());
  auto denied = service_->grants().RestoreGrant(by_admin.id(), owner, "please", std::nullopt);
  EXPECT_TRUE(absl::IsPermissionDenied(denied.status())) << denied.status();
  EXPECT_TRUE(absl::StrContains(denied.status().message(), "admin@x.com")) << denied.status();
  EXPECT_EQ(appeals_.state.grants[by_admin.id()].status(), "inactive");

  // Revoked by its previous owner, then handed to v: v did not revoke it.
  pb::Grant moved = Granted("u@x.com", "editor");
  ASSERT_TRUE(service_->grants().RevokeGrant(moved.id(), owner, "x").ok());
  ASSERT_TRUE(service_->grants().UpdateGrantOwner(moved.id(), "v@x.com", kAdmin).ok());
  EXPECT_TRUE(absl::IsPermissionDenied(
      service_->grants().RestoreGrant(moved.id(), {"v@x.com", false}, "r", std::nullopt).status()));

  // The review's reproduction: expired by the job (revoked_by "system"),
  // then restored by its owner until 2099.
  pb::Grant expiring = Granted("w@x.com", "viewer", "1h");
  now_ += absl::Hours(2);
  ASSERT_EQ(*service_->reconcile().ExpireGrants(), 1);
  ASSERT_EQ(appeals_.state.grants[expiring.id()].revoked_by(), "system");
  size_t grants_before = client_->granted.size();
  auto forever = service_->grants().RestoreGrant(expiring.id(), {"w@x.com", false}, "still need it",
                                                 absl::FromCivil(absl::CivilSecond(2099, 12, 31),
                                                                 absl::UTCTimeZone()));
  EXPECT_TRUE(absl::IsPermissionDenied(forever.status()) ||
              absl::IsInvalidArgument(forever.status())) << forever.status();
  auto undated = service_->grants().RestoreGrant(expiring.id(), {"w@x.com", false}, "r", std::nullopt);
  EXPECT_TRUE(absl::IsPermissionDenied(undated.status())) << undated.status();
  EXPECT_TRUE(absl::StrContains(undated.status().message(), "system")) << undated.status();
  EXPECT_EQ(client_->granted.size(), grants_before);
  EXPECT_EQ(appeals_.state.grants[expiring.id()].status(), "inactive");
}

// An admin's new expiration is capped like an appeal's duration: by
// access.max_grant_duration (default 2160h) when the policy lists no
// duration_options, counted from now.
TEST_F(GrantActionsTest, AdminNewExpirationIsCappedByTheMaxGrantDuration) {
  pb::Grant g = Granted("u@x.com", "viewer", "1h");
  now_ += absl::Hours(2);
  ASSERT_EQ(*service_->reconcile().ExpireGrants(), 1);
  auto forever = service_->grants().RestoreGrant(
      g.id(), kAdmin, "r", absl::FromCivil(absl::CivilSecond(2099, 12, 31), absl::UTCTimeZone()));
  EXPECT_TRUE(absl::IsInvalidArgument(forever.status())) << forever.status();
  EXPECT_TRUE(absl::StrContains(forever.status().message(), "expiration_date")) << forever.status();
  EXPECT_TRUE(absl::StrContains(forever.status().message(), "max_grant_duration"))
      << forever.status();
  EXPECT_TRUE(absl::StrContains(forever.status().message(), "2160h")) << forever.status();
  EXPECT_TRUE(absl::IsInvalidArgument(
      service_->grants().RestoreGrant(g.id(), kAdmin, "r", now_ + absl::Hours(2160) + absl::Seconds(1))
          .status()));
  EXPECT_EQ(appeals_.state.grants[g.id()].status(), "inactive");
  auto ok = service_->grants().RestoreGrant(g.id(), kAdmin, "r", now_ + absl::Hours(2160));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(FromTimestamp(ok->expiration_date()), now_ + absl::Hours(2160));
}

// With duration_options, the longest option is the cap (as for an appeal).
TEST_F(GrantActionsTest, AdminNewExpirationIsCappedByThePolicysLongestDurationOption) {
  AddPolicyWithDurationOptions();
  pb::Grant g = Granted("u@x.com", "viewer", "24h", kRes2);
  ASSERT_FALSE(g.id().empty());
  now_ += absl::Hours(25);
  ASSERT_EQ(*service_->reconcile().ExpireGrants(), 1);
  auto over = service_->grants().RestoreGrant(g.id(), kAdmin, "r", now_ + absl::Hours(169));
  EXPECT_TRUE(absl::IsInvalidArgument(over.status())) << over.status();
  EXPECT_TRUE(absl::StrContains(over.status().message(), "expiration_date")) << over.status();
  EXPECT_TRUE(absl::StrContains(over.status().message(), "168h")) << over.status();
  EXPECT_TRUE(absl::StrContains(over.status().message(), "duration_options")) << over.status();
  auto ok = service_->grants().RestoreGrant(g.id(), kAdmin, "r", now_ + absl::Hours(168));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(FromTimestamp(ok->expiration_date()), now_ + absl::Hours(168));
}

// Both caps hold: a policy option longer than access.max_grant_duration
// (default 2160h) does not let a restore skip past the server's maximum.
TEST_F(GrantActionsTest, AdminNewExpirationIsCappedByMaxGrantDurationEvenWithALongerOption) {
  AddPolicyWithDurationOptions("8760h");
  pb::Grant g = Granted("u@x.com", "viewer", "24h", kRes2);
  ASSERT_FALSE(g.id().empty());
  now_ += absl::Hours(25);
  ASSERT_EQ(*service_->reconcile().ExpireGrants(), 1);
  auto over = service_->grants().RestoreGrant(g.id(), kAdmin, "r", now_ + absl::Hours(2161));
  EXPECT_TRUE(absl::IsInvalidArgument(over.status())) << over.status();
  EXPECT_TRUE(absl::StrContains(over.status().message(), "max_grant_duration")) << over.status();
  auto ok = service_->grants().RestoreGrant(g.id(), kAdmin, "r", now_ + absl::Hours(2160));
  ASSERT_TRUE(ok.ok()) << ok.status();
}

TEST_F(GrantActionsTest, RestoreRefusesAGrantWhoseResourceIsDeleted) {
  pb::Grant g = Granted("u@x.com");
  ASSERT_TRUE(service_->grants().RevokeGrant(g.id(), kAdmin, "x").ok());
  resources_.resources[kRes].set_is_deleted(true);
  size_t grants_before = client_->granted.size();
  auto st = service_->grants().RestoreGrant(g.id(), kAdmin, "r", std::nullopt);
  EXPECT_TRUE(absl::IsFailedPrecondition(st.status())) << st.status();
  EXPECT_TRUE(absl::StrContains(st.status().message(), "deleted")) << st.status();
  EXPECT_EQ(client_->granted.size(), grants_before);
}

// Each restore is audited with the resulting expiration and tells the
// grant's account and owner (grant.restored).
TEST_F(GrantActionsTest, RestoreWritesAnAuditRowAndAGrantRestoredEvent) {
  pb::Grant g = Granted("u@x.com", "viewer", "1h");
  ASSERT_TRUE(service_->grants().UpdateGrantOwner(g.id(), "o@x.com", kAdmin).ok());
  now_ += absl::Hours(2);
  ASSERT_EQ(*service_->reconcile().ExpireGrants(), 1);
  absl::Time until = now_ + absl::Hours(24);
  auto restored = service_->grants().RestoreGrant(g.id(), kAdmin, "approved by ops", until);
  ASSERT_TRUE(restored.ok()) << restored.status();
  AuditEntry audit = LastAudit("grant.restore");
  EXPECT_EQ(audit.actor, "admin@x.com");
  EXPECT_EQ(audit.data.value("grant_id", ""), g.id());
  EXPECT_EQ(audit.data.value("reason", ""), "approved by ops");
  EXPECT_EQ(audit.data.value("expiration_date", ""),
            absl::FormatTime(absl::RFC3339_sec, until, absl::UTCTimeZone()));
  EXPECT_EQ(audit.data.value("revoked_by", ""), "system");
  auto events = Events("grant.restored", g.id());
  ASSERT_EQ(events.size(), 1u);
  const AccessEvent& e = events[0];
  EXPECT_EQ(e.recipients, (std::vector<std::string>{"u@x.com", "o@x.com"}));
  EXPECT_EQ(e.variables.value("restored_by", ""), "admin@x.com");
  EXPECT_EQ(e.variables.value("reason", ""), "approved by ops");
  EXPECT_EQ(e.variables.value("expiration_date", ""),
            absl::FormatTime(absl::RFC3339_sec, until, absl::UTCTimeZone()));
  EXPECT_EQ(e.labels.at("event"), "grant.restored");
}

// Finding F-L5: revoke, restore, revoke: both revokes are notified (the
// ids are qualified by revoked_at), and so is each restore.
TEST_F(GrantActionsTest, ASecondRevokeAfterARestoreIsNotifiedToo) {
  const Actor owner{"u@x.com", false};
  pb::Grant g = Granted("u@x.com");
  ASSERT_TRUE(service_->grants().RevokeGrant(g.id(), owner, "first").ok());
  now_ += absl::Minutes(1);
  ASSERT_TRUE(service_->grants().RestoreGrant(g.id(), owner, "back", std::nullopt).ok());
  now_ += absl::Minutes(1);
  ASSERT_TRUE(service_->grants().RevokeGrant(g.id(), owner, "second").ok());
  now_ += absl::Minutes(1);
  ASSERT_TRUE(service_->grants().RestoreGrant(g.id(), owner, "back again", std::nullopt).ok());
  auto revoked = Events("grant.revoked", g.id());
  ASSERT_EQ(revoked.size(), 2u);
  std::set<std::string> reasons;
  for (const auto& e : revoked) reasons.insert(e.variables.value("reason", ""));
  EXPECT_EQ(reasons, (std::set<std::string>{"first", "second"}));
  EXPECT_EQ(Events("grant.restored", g.id()).size(), 2u);
}

// Finding F-L7: the owner is an email address or the grant's own account
// id, without control characters.
TEST_F(GrantActionsTest, OwnerMustBeAnEmailOrTheAccountWithoutControlCharacters) {
  pb::Grant g = Granted("u@x.com");
  for (const std::string bad : {std::string("evil\x1b[31m@x.com"), std::string("a\x07@x.com"),
                                std::string("a\xc2\x9b" "31m@x.com"), std::string("not an email"),
                                std::string("bob")}) {
    auto st = service_->grants().UpdateGrantOwner(g.id(), bad, kAdmin);
    EXPECT_TRUE(absl::IsInvalidArgument(st.status())) << bad << ": " << st.status();
    EXPECT_TRUE(absl::StartsWith(st.status().message(), "owner")) << st.status();
  }
  EXPECT_EQ(appeals_.state.grants[g.id()].owner(), "u@x.com");
  // A service account's grant (imported) may be owned by the account itself.
  client_->lists_access = true;
  client_->access = {{"table", "t1", "u@x.com", "user", {"read"}},
                     {"table", "t1", "sa-1", "serviceAccount", {"read"}}};
  auto imported = service_->grants().ImportGrants({provider_id_, {}, {}, {}}, true, "admin@x.com");
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->grants.size(), 1u);
  std::string sa = imported->grants[0].id();
  auto own = service_->grants().UpdateGrantOwner(sa, "sa-1", kAdmin);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(own->owner(), "sa-1");
  EXPECT_TRUE(absl::IsInvalidArgument(service_->grants().UpdateGrantOwner(sa, "sa-2", kAdmin).status()));
}

TEST_F(GrantActionsTest, ProviderFailureOnRestoreLeavesTheGrantInactive) {
  pb::Grant g = Granted("u@x.com");
  ASSERT_TRUE(service_->grants().RevokeGrant(g.id(), kAdmin, "x").ok());
  client_->grant_error = absl::UnavailableError("down");
  EXPECT_FALSE(service_->grants().RestoreGrant(g.id(), kAdmin, "r", std::nullopt).ok());
  EXPECT_EQ(appeals_.state.grants[g.id()].status(), "inactive");
}

TEST_F(GrantActionsTest, BulkRevokeNeedsAFilterAndAcceptsAnyOne) {
  Granted("u@x.com");
  Granted("v@x.com");
  auto none = service_->grants().RevokeGrants({}, "admin@x.com", "r");
  EXPECT_TRUE(absl::IsInvalidArgument(none.status()));
  EXPECT_TRUE(absl::StrContains(none.status().message(), "account_ids, provider_types"));
  GrantSelector by_type;
  by_type.provider_types = {"fake"};
  auto result = service_->grants().RevokeGrants(by_type, "admin@x.com", "cleanup");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->grants.size(), 2u);
  EXPECT_TRUE(result->failed.empty());
  for (const auto& g : result->grants) EXPECT_EQ(g.status(), "inactive");
  GrantSelector other;
  other.provider_types = {"bigquery"};
  auto nothing = service_->grants().RevokeGrants(other, "admin@x.com", "r");
  ASSERT_TRUE(nothing.ok());
  EXPECT_TRUE(nothing->grants.empty());
}

TEST_F(GrantActionsTest, ImportDryRunThenApplyAndReportsDrift) {
  pb::Grant kept = Granted("u@x.com");              // viewer: still in the provider
  pb::Grant gone = Granted("w@x.com", "editor");    // missing in the provider: drift
  client_->lists_access = true;
  client_->access = {{"table", "t1", "u@x.com", "user", {"read"}},
                     {"table", "t1", "v@x.com", "user", {"read"}},
                     {"table", "t1", "v@x.com", "user", {"write"}},
                     {"table", "t1", "sa", "serviceAccount", {"admin"}},
                     {"table", "unknown", "v@x.com", "user", {"read"}}};
  auto dry = service_->grants().ImportGrants({provider_id_, {}, {}, {}}, false, "admin@x.com");
  ASSERT_TRUE(dry.ok()) << dry.status();
  EXPECT_FALSE(dry->applied);
  EXPECT_EQ(dry->unchanged, 1);
  ASSERT_EQ(dry->grants.size(), 2u);
  std::map<std::string, pb::Grant> by_account;
  for (const auto& g : dry->grants) by_account[g.account_id()] = g;
  EXPECT_EQ(by_account["v@x.com"].role(), "editor");  // read+write: the larger role
  EXPECT_EQ(by_account["v@x.com"].owner(), "v@x.com");
  EXPECT_EQ(by_account["sa"].role(), "admin");  // no role: the permission itself (Guardian)
  EXPECT_EQ(by_account["sa"].owner(), "");
  for (const auto& g : dry->grants) EXPECT_EQ(g.source(), "import");
  ASSERT_EQ(dry->drift.size(), 1u);
  EXPECT_EQ(dry->drift[0].id(), gone.id());
  EXPECT_EQ(appeals_.state.grants.size(), 2u);  // nothing written

  auto applied = service_->grants().ImportGrants({provider_id_, {}, {}, {}}, true, "admin@x.com");
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_TRUE(applied->applied);
  EXPECT_EQ(appeals_.state.grants.size(), 4u);
  for (const auto& g : applied->grants) {
    ASSERT_FALSE(g.id().empty());
    EXPECT_EQ(appeals_.state.grants[g.id()].source(), "import");
  }
  EXPECT_EQ(appeals_.state.grants[gone.id()].status_in_provider(), "inactive");
  EXPECT_EQ(appeals_.state.grants[gone.id()].status(), "active");
  // A second run finds nothing new.
  auto again = service_->grants().ImportGrants({provider_id_, {}, {}, {}}, false, "admin@x.com");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->grants.empty());
  EXPECT_EQ(again->unchanged, 3);
}

// A drifted grant revoked between the comparison and the write stays
// revoked: apply re-reads it under its row lock.
TEST_F(GrantActionsTest, ImportApplyDoesNotReviveAGrantRevokedMeanwhile) {
  pb::Grant gone = Granted("w@x.com");
  client_->lists_access = true;  // and lists nothing: the grant is drift
  int transactions = 0;
  appeals_.before_transaction = [&] {
    // The import's second transaction is the apply; revoke just before it.
    if (++transactions == 2) appeals_.state.grants[gone.id()].set_status("inactive");
  };
  auto applied = service_->grants().ImportGrants({provider_id_, {}, {}, {}}, true, "admin@x.com");
  appeals_.before_transaction = nullptr;
  ASSERT_TRUE(applied.ok()) << applied.status();
  ASSERT_EQ(transactions, 2);
  EXPECT_EQ(appeals_.state.grants[gone.id()].status(), "inactive");
  EXPECT_EQ(appeals_.state.grants[gone.id()].status_in_provider(), "active");
}

TEST_F(GrantActionsTest, ImportNeedsAPluginThatListsAccess) {
  auto st = service_->grants().ImportGrants({provider_id_, {}, {}, {}}, false, "admin@x.com");
  EXPECT_TRUE(absl::IsFailedPrecondition(st.status())) << st.status();
  EXPECT_TRUE(absl::StrContains(st.status().message(), "ListAccess"));
  EXPECT_TRUE(absl::IsInvalidArgument(
      service_->grants().ImportGrants({"", {}, {}, {}}, false, "a").status()));
}

}  // namespace
}  // namespace sluice::access
