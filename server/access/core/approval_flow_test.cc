#include "server/access/core/approval_flow.h"

#include <gtest/gtest.h>

#include "server/access/core/json.h"

namespace sluice::access {
namespace {

pb::Policy PolicyFrom(const std::string& steps_json) {
  pb::Policy p;
  EXPECT_TRUE(JsonStringToProto(R"({"id": "p", "version": 3, "steps": )" + steps_json + "}", &p).ok());
  return p;
}

pb::Appeal NewAppeal(const std::string& role, const std::string& owner_json = R"("o@x.com")") {
  pb::Appeal a;
  EXPECT_TRUE(JsonStringToProto(R"({"role": ")" + role + R"(", "account_id": "u@x.com",
      "resource": {"urn": "r", "details": {"owner": )" + owner_json + R"(}},
      "creator": {"manager_email": "m@x.com"}})", &a).ok());
  a.set_status("pending");
  return a;
}

std::vector<std::string> Statuses(const pb::Appeal& a) {
  std::vector<std::string> out;
  for (const auto& ap : a.approvals()) out.push_back(ap.status());
  return out;
}

TEST(FlowTest, ManualStepsResolveApproversAndBlockLaterSteps) {
  auto policy = PolicyFrom(R"([
    {"name": "owner", "strategy": "manual", "approvers": ["$appeal.resource.details.owner", "x@x.com"]},
    {"name": "manager", "strategy": "manual", "approvers": ["$appeal.creator.manager_email"]}])");
  auto a = NewAppeal("viewer");
  ASSERT_TRUE(InitApprovals(&a, policy).ok());
  ASSERT_TRUE(AdvanceFlow(&a, policy).ok());
  EXPECT_EQ(Statuses(a), (std::vector<std::string>{"pending", "blocked"}));
  EXPECT_EQ(a.approvals(0).approvers_size(), 2);
  EXPECT_EQ(a.approvals(0).approvers(0), "o@x.com");
  EXPECT_EQ(a.approvals(1).approvers(0), "m@x.com");
  EXPECT_EQ(a.approvals(0).policy_version(), 3u);
  a.mutable_approvals(0)->set_status("approved");
  ASSERT_TRUE(AdvanceFlow(&a, policy).ok());
  EXPECT_EQ(Statuses(a), (std::vector<std::string>{"approved", "pending"}));
  EXPECT_EQ(a.status(), "pending");
  a.mutable_approvals(1)->set_status("approved");
  ASSERT_TRUE(AdvanceFlow(&a, policy).ok());
  EXPECT_EQ(a.status(), "approved");
}

TEST(FlowTest, ApproverListsAndNonEmails) {
  auto policy = PolicyFrom(R"([{"name": "s", "strategy": "manual", "approvers": ["$appeal.resource.details.owner"]}])");
  auto list = NewAppeal("viewer", R"(["a@x.com", "b@x.com"])");
  ASSERT_TRUE(InitApprovals(&list, policy).ok());
  EXPECT_EQ(list.approvals(0).approvers_size(), 2);
  auto bad = NewAppeal("viewer", R"("nobody")");
  auto st = InitApprovals(&bad, policy);
  EXPECT_TRUE(absl::IsInvalidArgument(st));
  EXPECT_NE(st.message().find("\"s\""), std::string::npos) << st;
  auto null_owner = NewAppeal("viewer", "null");
  EXPECT_TRUE(absl::IsInvalidArgument(InitApprovals(&null_owner, policy)));
  auto empty = NewAppeal("viewer", "[]");
  EXPECT_TRUE(absl::IsInvalidArgument(InitApprovals(&empty, policy)));
}

TEST(FlowTest, AutoStepsWhenAndRejection) {
  auto policy = PolicyFrom(R"([
    {"name": "soft", "strategy": "auto", "approve_if": "false", "allow_failed": true},
    {"name": "admins", "strategy": "manual", "approvers": ["$appeal.resource.details.owner"], "when": "$appeal.role == 'admin'"},
    {"name": "hard", "strategy": "auto", "approve_if": "$appeal.role != 'root'", "rejection_reason": "no root"},
    {"name": "last", "strategy": "manual", "approvers": ["l@x.com"]}])");
  auto viewer = NewAppeal("viewer", "null");  // skipped step: its approvers are not resolved
  ASSERT_TRUE(InitApprovals(&viewer, policy).ok());
  ASSERT_TRUE(AdvanceFlow(&viewer, policy).ok());
  EXPECT_EQ(Statuses(viewer), (std::vector<std::string>{"skipped", "skipped", "approved", "pending"}));
  auto root = NewAppeal("root");
  ASSERT_TRUE(InitApprovals(&root, policy).ok());
  ASSERT_TRUE(AdvanceFlow(&root, policy).ok());
  EXPECT_EQ(root.status(), "rejected");
  EXPECT_EQ(Statuses(root), (std::vector<std::string>{"skipped", "skipped", "rejected", "skipped"}));
  EXPECT_EQ(root.approvals(2).reason(), "no root");
}

TEST(FlowTest, FullyAutomaticAppealIsActiveAtCreation) {
  auto policy = PolicyFrom(R"([{"name": "a", "strategy": "auto", "approve_if": "true"}])");
  auto a = NewAppeal("viewer");
  ASSERT_TRUE(InitApprovals(&a, policy).ok());
  ASSERT_TRUE(AdvanceFlow(&a, policy).ok());
  EXPECT_EQ(a.status(), "approved");
  auto none = PolicyFrom("[]");
  auto b = NewAppeal("viewer");
  ASSERT_TRUE(InitApprovals(&b, none).ok());
  ASSERT_TRUE(AdvanceFlow(&b, none).ok());
  EXPECT_EQ(b.status(), "approved");
}

TEST(FlowTest, ExpressionErrorsNameTheStep) {
  auto policy = PolicyFrom(R"([{"name": "bad", "strategy": "auto", "approve_if": "$appeal.resource.urn.x.y"}])");
  auto a = NewAppeal("viewer");
  ASSERT_TRUE(InitApprovals(&a, policy).ok());
  auto st = AdvanceFlow(&a, policy);
  EXPECT_TRUE(absl::IsInvalidArgument(st));
  EXPECT_NE(st.message().find("\"bad\""), std::string::npos) << st;
}

// Steps appended by AddApprovalStep (issue 28) follow the policy's steps and
// run as manual steps: the flow stops at them until they are approved.
TEST(FlowTest, AddedStepsRunAfterThePolicysSteps) {
  auto policy = PolicyFrom(R"([
    {"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]}])");
  auto a = NewAppeal("viewer");
  ASSERT_TRUE(InitApprovals(&a, policy).ok());
  ASSERT_TRUE(AdvanceFlow(&a, policy).ok());
  pb::Approval* added = a.add_approvals();
  added->set_name("security");
  added->set_status("blocked");
  added->add_approvers("sec@x.com");
  a.mutable_approvals(0)->set_status("approved");
  ASSERT_TRUE(AdvanceFlow(&a, policy).ok());
  EXPECT_EQ(Statuses(a), (std::vector<std::string>{"approved", "pending"}));
  EXPECT_EQ(a.status(), "pending");
  a.mutable_approvals(1)->set_status("approved");
  ASSERT_TRUE(AdvanceFlow(&a, policy).ok());
  EXPECT_EQ(a.status(), "approved");
  // Fewer approvals than the policy's steps is still a bug.
  a.clear_approvals();
  EXPECT_EQ(AdvanceFlow(&a, policy).code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace sluice::access
