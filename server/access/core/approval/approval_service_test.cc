// ApprovalService (through AccessServices) with in-memory fakes: approving
// grants once, and who may act on a step.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/access/core/appeal/appeal_service_fixture.h"

namespace sluice::access {
namespace {

// The shared fixture (appeal_service_fixture.h).
class ApprovalServiceTest : public AppealServiceTest {};

TEST_F(ApprovalServiceTest, ApproveGrantsOnceWithPermissions) {
  auto created = Service().appeals().Create(Request(kManual), "u@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  std::string id = (*created)[0].id();
  EXPECT_TRUE(absl::IsPermissionDenied(Service().approvals().Act(id, "owner", "approve", "z@x.com", "").status()));
  auto done = Service().approvals().Act(id, "owner", "approve", "o@x.com", "ok");
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status(), "approved");  // Guardian's value (was "active")
  EXPECT_EQ(done->grant().status(), "active");
  ASSERT_EQ(client_->granted.size(), 1u);
  EXPECT_EQ(client_->granted[0].permissions, std::vector<std::string>{"read"});
  EXPECT_EQ(client_->granted[0].account_id, "u@x.com");
  EXPECT_TRUE(done->grant().is_permanent());
  EXPECT_TRUE(absl::IsFailedPrecondition(Service().approvals().Act(id, "owner", "approve", "o@x.com", "").status()));
  EXPECT_EQ(client_->granted.size(), 1u);
}

TEST_F(ApprovalServiceTest, NobodyApprovesTheirOwnAppealUnlessTheStepAllowsIt) {
  // o@x.com is the step's only approver and asks for access for themselves:
  // nobody could approve it, so it is refused at creation (issue 17).
  auto created = Service().appeals().Create(Request(kManual), "o@x.com");
  EXPECT_TRUE(absl::IsFailedPrecondition(created.status())) << created.status();
  EXPECT_NE(created.status().message().find("allow_self_approval"), std::string::npos);
  EXPECT_TRUE(client_->granted.empty());

  // A new policy version that allows it.
  SetManualPolicy(R"({"steps": [{"name": "owner", "strategy": "manual",
      "approvers": ["o@x.com"], "allow_self_approval": true}],
      "appeal": {"allow_permanent_access": true}})");
  auto again = Service().appeals().Create(Request(kManual), "o@x.com");
  ASSERT_TRUE(again.ok()) << again.status();
  auto allowed = Service().approvals().Act((*again)[0].id(), "owner", "approve", "o@x.com", "");
  EXPECT_TRUE(allowed.ok()) << allowed.status();
}

}  // namespace
}  // namespace sluice::access
