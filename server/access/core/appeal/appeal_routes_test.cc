// Issue 28's appeal rules with in-memory fakes: PatchAppeal (creator only,
// pending only, a change required, the flow restarted with a new revision).
// The approval step and summary routes are tested in
// approval/approval_routes_test.cc (same fixture, appeal_routes_fixture.h).
#include <gtest/gtest.h>

#include "server/access/core/appeal/appeal_routes_fixture.h"

namespace sluice::access {
namespace {

TEST_F(AppealRoutesTest, PatchIsForThePendingAppealsCreatorAndNeedsAChange) {
  pb::Appeal a = Create();
  ASSERT_TRUE(service_->approvals().Act(a.id(), "owner", "approve", "o@x.com", "ok").ok());
  pb::PatchAppealRequest req;
  req.set_id(a.id());
  req.set_role("editor");
  EXPECT_EQ(service_->appeals().Patch(req, "carol@x.com").status().code(),
            absl::StatusCode::kPermissionDenied);
  pb::PatchAppealRequest same;
  same.set_id(a.id());
  same.set_role("viewer");
  EXPECT_EQ(service_->appeals().Patch(same, "bob@x.com").status().code(),
            absl::StatusCode::kFailedPrecondition);
  pb::PatchAppealRequest bad;
  bad.set_id(a.id());
  bad.set_role("root");
  EXPECT_EQ(service_->appeals().Patch(bad, "bob@x.com").status().code(), absl::StatusCode::kInvalidArgument);

  auto patched = service_->appeals().Patch(req, "bob@x.com");
  ASSERT_TRUE(patched.ok()) << patched.status();
  EXPECT_EQ(patched->role(), "editor");
  EXPECT_EQ(patched->revision(), 1u);
  ASSERT_EQ(patched->approvals_size(), 2);
  EXPECT_EQ(patched->approvals(0).status(), "pending");  // the flow restarts
  EXPECT_EQ(patched->approvals(0).appeal_revision(), 1u);
  EXPECT_EQ(patched->approvals(1).status(), "blocked");
  EXPECT_EQ(appeals_.state.audit.back().action, "appeal.patch");

  ASSERT_TRUE(service_->appeals().Cancel(a.id(), "bob@x.com").ok());
  pb::PatchAppealRequest later;
  later.set_id(a.id());
  later.set_description("x");
  EXPECT_EQ(service_->appeals().Patch(later, "bob@x.com").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(AppealRoutesTest, ActivitiesAreTheAppealsAuditEventsInGuardiansTypes) {
  pb::Appeal a = Create();
  pb::Appeal other = Create("editor");
  ASSERT_TRUE(service_->approvals().AddApprover(a.id(), "owner", "x@x.com", "admin@x.com").ok());
  ASSERT_TRUE(service_->approvals().Act(a.id(), "owner", "approve", "o@x.com", "ok").ok());
  pb::PatchAppealRequest req;
  req.set_id(a.id());
  req.set_description("why");
  ASSERT_TRUE(service_->appeals().Patch(req, "bob@x.com").ok());
  ASSERT_TRUE(service_->appeals().Cancel(other.id(), "bob@x.com").ok());
  ASSERT_TRUE(service_->appeals().Cancel(a.id(), "bob@x.com").ok());

  auto got = service_->appeals().ListActivities(a.id(), Actor{"bob@x.com", false});
  ASSERT_TRUE(got.ok()) << got.status();
  // Newest first; appeal.create is not an activity (Guardian lists neither
  // create nor bulkInsert); the other appeal's cancel is not listed.
  std::vector<std::string> types;
  for (const auto& e : *got) {
    types.push_back(e.type());
    EXPECT_EQ(e.appeal_id(), a.id());
    EXPECT_EQ(e.data().fields().at("appeal_id").string_value(), a.id());
  }
  EXPECT_EQ(types, (std::vector<std::string>{"appeal.cancel", "appeal.update", "appeal.approve",
                                             "appeal.addApprover"}));
  EXPECT_EQ((*got)[2].actor(), "o@x.com");
  EXPECT_EQ((*got)[3].actor(), "admin@x.com");

  // Whoever may read the appeal: an approver may, a stranger may not.
  EXPECT_TRUE(service_->appeals().ListActivities(a.id(), Actor{"o@x.com", false}).ok());
  EXPECT_EQ(service_->appeals().ListActivities(a.id(), Actor{"eve@x.com", false}).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(service_->appeals()
                .ListActivities("00000000-0000-0000-0000-0000000000ff", Actor{"admin@x.com", true})
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sluice::access
