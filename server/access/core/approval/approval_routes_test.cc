// Issue 28's approval rules with in-memory fakes: AddApprovalStep /
// UpdateApprovalStep validation, and the approval summaries' filter and
// group checks.
#include <string>

#include <gtest/gtest.h>

#include "server/access/core/appeal/appeal_routes_fixture.h"

namespace sluice::access {
namespace {

// The shared fixture (appeal_routes_fixture.h).
class ApprovalRoutesTest : public AppealRoutesTest {};

TEST_F(ApprovalRoutesTest, AddedStepsAreCheckedAndBlockedBehindUndecidedOnes) {
  pb::Appeal a = Create();
  pb::AddApprovalStepRequest req;
  auto* s = req.add_steps();
  s->set_name("security");
  s->add_approvers("sec@x.com");
  auto added = service_->approvals().AddApprovalSteps(a.id(), req.steps(), "admin@x.com");
  ASSERT_TRUE(added.ok()) << added.status();
  ASSERT_EQ(added->approvals_size(), 3);
  EXPECT_EQ(added->approvals(2).status(), "blocked");
  // Refusals name the step's field.
  auto again = service_->approvals().AddApprovalSteps(a.id(), req.steps(), "admin@x.com");
  EXPECT_EQ(again.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(again.status().message().find("steps[0].name"), std::string::npos);
  s->set_name("other");
  s->set_approvers(0, "$appeal.creator");
  EXPECT_NE(service_->approvals().AddApprovalSteps(a.id(), req.steps(), "admin@x.com")
                .status().message().find("steps[0].approvers[0]"), std::string::npos);
  s->set_approvers(0, "x@x.com");
  s->set_stage("parallel");
  EXPECT_NE(service_->approvals().AddApprovalSteps(a.id(), req.steps(), "admin@x.com")
                .status().message().find("steps[0].stage"), std::string::npos);
  s->clear_stage();
  s->set_index(1);
  EXPECT_NE(service_->approvals().AddApprovalSteps(a.id(), req.steps(), "admin@x.com")
                .status().message().find("steps[0].index"), std::string::npos);

  google::protobuf::Struct details = JsonToStruct(nlohmann::json{{"ticket", "T-1"}});
  auto updated = service_->approvals().UpdateApprovalStep(a.id(), "security", &details, "admin@x.com");
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(StructToJson(updated->approvals(2).details())["ticket"], "T-1");
  EXPECT_EQ(service_->approvals().UpdateApprovalStep(a.id(), "nope", &details, "admin@x.com").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ApprovalRoutesTest, SummariesCheckFiltersAndGroupsAndScopeToTheApprover) {
  google::protobuf::Map<std::string, pb::SummaryParameters> items;
  pb::SummaryParameters& p = items["k"];
  (*p.mutable_filters())["statuses"].set_string_value("pending");
  (*p.mutable_filters())["created_by"].set_string_value("someone@x.com");
  p.add_group_bys("appeal.role");
  appeals_.summary_groups = {{{"viewer"}, 2}, {{"editor"}, 3}};
  auto out = service_->approvals().SummarizeApprovals(items, "me@x.com");
  ASSERT_TRUE(out.ok()) << out.status();
  const pb::SummaryResult& r = out->at("k");
  EXPECT_EQ(r.groups_count(), 5);
  EXPECT_EQ(r.count(), 5);
  ASSERT_EQ(r.groups_size(), 2);
  EXPECT_EQ(r.groups(1).group_fields().at("appeal.role").string_value(), "editor");
  ASSERT_EQ(appeals_.summary_queries.size(), 1u);
  // The caller's own approvals, whatever created_by says.
  EXPECT_EQ(appeals_.summary_queries[0].approvers, std::vector<std::string>{"me@x.com"});
  EXPECT_EQ(appeals_.summary_queries[0].statuses, std::vector<std::string>{"pending"});
  EXPECT_EQ(appeals_.summary_queries[0].group_columns, std::vector<std::string>{"a.role"});

  p.set_group_bys(0, "appeal.colour");
  auto bad = service_->approvals().SummarizeApprovals(items, "");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("summary_items.k.group_bys[0]"), std::string::npos);
  p.set_group_bys(0, "appeal.role");
  (*p.mutable_filters())["colour"].set_string_value("red");
  EXPECT_NE(service_->approvals().SummarizeApprovals(items, "").status().message().find(
                "summary_items.k.filters.colour"), std::string::npos);
}

}  // namespace
}  // namespace sluice::access
