// The access events AppealService writes to the outbox (issue 17, section 1),
// with in-memory fakes: which event, to whom, in the change's transaction.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/access/core/fake_access_test.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

class AppealEventsTest : public FakeAccessTest {
 protected:
  void SetUp() override {
    // Two manual steps: the second one's approvers hear of the first's approval.
    StorePolicy(R"({"id": "pol", "steps": [
        {"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]},
        {"name": "security", "strategy": "manual", "approvers": ["s1@x.com", "s2@x.com"]}],
        "appeal": {"allow_permanent_access": true, "allow_on_behalf": true}})");
    pb::Resource r;
    r.set_id(kResource);
    r.set_type("table");
    r.set_urn("urn-t");
    r.set_name("orders");
    StoreResource(r);
    StoreProvider(R"({"type": "fake", "urn": "f", "allowed_account_types": ["user"],
        "resources": [{"type": "table", "policy": {"id": "pol", "version": 1},
                       "roles": [{"id": "viewer"}]}]})");
    StartServices(/*fixed_clock=*/false);
    service_->set_events(policy_, [this] { ++wakes_; });
  }
  pb::Appeal Create(const std::string& account = "") {
    pb::CreateAppealRequest req;
    req.set_account_id(account);
    auto* r = req.add_resources();
    r->set_id(kResource);
    r->set_role("viewer");
    auto created = service_->appeals().Create(req, "u@x.com");
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? (*created)[0] : pb::Appeal();
  }
  const AccessEvent* Event(const std::string& id) {
    auto it = appeals_.state.events.find(id);
    return it == appeals_.state.events.end() ? nullptr : &it->second;
  }
  using Strings = std::vector<std::string>;
  const std::string kResource = "00000000-0000-0000-0000-000000000001";
  EventPolicy policy_;
  int wakes_ = 0;
};

TEST_F(AppealEventsTest, AFullLifeWritesOneEventPerChangeToTheRightPeople) {
  pb::Appeal a = Create();
  const AccessEvent* created = Event("appeal.created:" + a.id());
  ASSERT_NE(created, nullptr);
  EXPECT_EQ(created->recipients, Strings{"o@x.com"});
  EXPECT_EQ(created->variables["appeal_id"], a.id());
  EXPECT_EQ(created->variables["resource_name"], "orders (fake: urn-t)");
  EXPECT_EQ(created->labels.at("event"), "appeal.created");
  EXPECT_EQ(created->labels.at("provider_type"), "fake");
  EXPECT_EQ(created->labels.at("resource_type"), "table");
  EXPECT_EQ(wakes_, 1);

  ASSERT_TRUE(service_->approvals().Act(a.id(), "owner", "approve", "o@x.com", "fine").ok());
  const AccessEvent* step = Event("appeal.step_approved:" + a.id() + ":owner");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->recipients, (Strings{"s1@x.com", "s2@x.com"}));
  EXPECT_EQ(step->variables["step"], "security");
  EXPECT_EQ(step->variables["actor"], "o@x.com");

  ASSERT_TRUE(service_->approvals().Act(a.id(), "security", "approve", "s1@x.com", "").ok());
  const AccessEvent* approved = Event("appeal.approved:" + a.id());
  ASSERT_NE(approved, nullptr);
  EXPECT_EQ(approved->recipients, Strings{"u@x.com"});

  auto revoked = service_->appeals().Revoke(a.id(), {"admin@x.com", true}, "left the team");
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  const AccessEvent* rv = Event(absl::StrCat(
      "grant.revoked:", revoked->grant().id(), ":",
      absl::ToUnixMicros(FromTimestamp(revoked->revoked_at()))));  // the grant's too
  ASSERT_NE(rv, nullptr);
  EXPECT_EQ(rv->recipients, Strings{"u@x.com"});
  EXPECT_EQ(rv->variables["revoked_by"], "admin@x.com");
  EXPECT_EQ(rv->variables["reason"], "left the team");
  EXPECT_EQ(appeals_.state.events.size(), 4u);
  EXPECT_EQ(wakes_, 4);
}

TEST_F(AppealEventsTest, RejectionTellsAccountAndCreatorWithTheReason) {
  pb::Appeal a = Create("acct@x.com");
  ASSERT_TRUE(service_->approvals().Act(a.id(), "owner", "reject", "o@x.com", "not needed").ok());
  const AccessEvent* e = Event("appeal.rejected:" + a.id());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->recipients, (Strings{"acct@x.com", "u@x.com"}));
  EXPECT_EQ(e->variables["reason"], "not needed");
  EXPECT_EQ(e->variables["on_behalf"], true);
}

TEST_F(AppealEventsTest, DisabledTypesAreNotWritten) {
  policy_.disabled = {kEventAppealCreated};
  service_->set_events(policy_, nullptr);
  pb::Appeal a = Create();
  EXPECT_EQ(Event("appeal.created:" + a.id()), nullptr);
  ASSERT_TRUE(service_->approvals().Act(a.id(), "owner", "reject", "o@x.com", "").ok());
  EXPECT_NE(Event("appeal.rejected:" + a.id()), nullptr);
}

TEST_F(AppealEventsTest, AFailedActionWritesNoEvent) {
  pb::Appeal a = Create();
  size_t before = appeals_.state.events.size();
  EXPECT_TRUE(absl::IsPermissionDenied(
      service_->approvals().Act(a.id(), "owner", "approve", "eve@x.com", "").status()));
  EXPECT_EQ(appeals_.state.events.size(), before);
}

TEST_F(AppealEventsTest, OwnerChangeIsRecordedInTheCallersTransaction) {
  pb::Grant g;
  g.set_id("g1");
  g.set_owner("new@x.com");
  g.set_role("viewer");
  *g.mutable_updated_at() = ToTimestamp(absl::FromUnixSeconds(1800000000));
  *g.mutable_resource() = resources_.resources[kResource];
  ASSERT_TRUE(appeals_.InTransaction([&](AccessTx& tx) {
    return service_->grants().RecordOwnerChange(tx, g, "old@x.com", "admin@x.com");
  }).ok());
  const AccessEvent* e = Event("grant.owner_changed:g1:1800000000000000");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->recipients, (Strings{"old@x.com", "new@x.com"}));
  EXPECT_EQ(e->variables["previous_owner"], "old@x.com");
  EXPECT_EQ(e->variables["new_owner"], "new@x.com");
  // A rolled-back transaction leaves nothing behind; an unchanged owner writes nothing.
  g.set_id("g2");
  EXPECT_FALSE(appeals_.InTransaction([&](AccessTx& tx) {
    EXPECT_TRUE(service_->grants().RecordOwnerChange(tx, g, "old@x.com", "a@x.com").ok());
    return absl::AbortedError("rolled back");
  }).ok());
  ASSERT_TRUE(appeals_.InTransaction([&](AccessTx& tx) {
    return service_->grants().RecordOwnerChange(tx, g, "new@x.com", "a@x.com");
  }).ok());
  EXPECT_EQ(appeals_.state.events.size(), 1u);
}

}  // namespace
}  // namespace sluice::access
