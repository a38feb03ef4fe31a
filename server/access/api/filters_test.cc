#include "server/access/api/filters.h"

#include <gtest/gtest.h>

namespace sluice::access {
namespace {

TEST(OrderByTest, ParsesAndRejects) {
  google::protobuf::RepeatedPtrField<std::string> in;
  *in.Add() = "created_at:desc";
  *in.Add() = "role";
  auto ok = ParseOrderBy(in, {"created_at", "role"});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0], (std::pair<std::string, bool>{"created_at", true}));
  EXPECT_EQ((*ok)[1], (std::pair<std::string, bool>{"role", false}));
  *in.Add() = "created_at;drop";
  EXPECT_TRUE(absl::IsInvalidArgument(ParseOrderBy(in, {"created_at", "role"}).status()));
  google::protobuf::RepeatedPtrField<std::string> dir;
  *dir.Add() = "role:sideways";
  EXPECT_TRUE(absl::IsInvalidArgument(ParseOrderBy(dir, {"role"}).status()));
}

// Appeal statuses are Guardian's; the values before the rename are aliases.
TEST(FiltersTest, AppealStatusesTakeTheOldValuesAsAliases) {
  pb::ListAppealsRequest req;
  req.add_statuses("active");
  req.add_statuses("cancelled");
  req.add_statuses("approved");  // duplicate of the alias: once
  req.add_statuses("pending");
  auto f = AppealFilterOf(req);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->statuses, (std::vector<std::string>{"approved", "canceled", "pending"}));
  req.add_statuses("terminated");
  auto refused = AppealFilterOf(req);
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_NE(refused.status().message().find("statuses: \"terminated\""), std::string::npos);
  EXPECT_NE(refused.status().message().find("statuses=inactive"), std::string::npos);
}

// Approval and grant statuses are not renamed.
TEST(FiltersTest, ApprovalAndGrantStatusesPassUnchanged) {
  pb::ListGrantsRequest grants;
  grants.add_statuses("active");
  auto g = GrantFilterOf(grants);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->statuses, (std::vector<std::string>{"active"}));
  pb::ListApprovalsRequest approvals;
  approvals.add_statuses("approved");
  auto a = ApprovalFilterOf(approvals);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->statuses, (std::vector<std::string>{"approved"}));
}

TEST(FiltersTest, AppealFilterJoinsAccountIdAndReadsThePage) {
  pb::ListAppealsRequest req;
  req.add_account_ids("a@x.com");
  req.set_account_id("b@x.com");
  req.add_order_by("updated_at:desc");
  req.set_size(5);
  req.set_offset(10);
  auto f = AppealFilterOf(req);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->account_ids, (std::vector<std::string>{"a@x.com", "b@x.com"}));
  EXPECT_EQ(f->order_by[0], (std::pair<std::string, bool>{"updated_at", true}));
  EXPECT_EQ(f->size, 5);
  EXPECT_EQ(f->offset, 10);
  EXPECT_TRUE(f->visible_to.empty());
  EXPECT_FALSE(f->with_approvals);  // Guardian's default: no approvals in the list
  req.set_with_approvals(true);
  EXPECT_TRUE(AppealFilterOf(req)->with_approvals);
  req.add_order_by("password");
  EXPECT_TRUE(absl::IsInvalidArgument(AppealFilterOf(req).status()));
}

// Findings L2/L3: an unbounded page size, and an offset >= 2^31 that became
// a negative OFFSET (a 500).
TEST(FiltersTest, PageBoundsNameTheField) {
  pb::ListApprovalsRequest req;
  req.set_size(1001);
  auto big = ApprovalFilterOf(req).status();
  EXPECT_TRUE(absl::IsInvalidArgument(big)) << big;
  EXPECT_NE(big.message().find("size"), std::string::npos);
  req.set_size(0);
  req.set_offset(4294967295u);
  auto far = ApprovalFilterOf(req).status();
  EXPECT_TRUE(absl::IsInvalidArgument(far)) << far;
  EXPECT_NE(far.message().find("offset"), std::string::npos);
}

TEST(FiltersTest, GrantFilterRefusesANonUuidResourceAndAliasesCreatedBy) {
  pb::ListGrantsRequest req;
  req.set_created_by("o@x.com");
  req.set_owner("p@x.com");
  req.add_owners("q@x.com");
  auto f = GrantFilterOf(req);
  ASSERT_TRUE(f.ok());
  // Guardian: owners, owner and created_by are one list, any of them.
  EXPECT_EQ(f->owners, (std::vector<std::string>{"q@x.com", "p@x.com", "o@x.com"}));
  req.add_resource_ids("not-a-uuid");
  auto bad = GrantFilterOf(req).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad));
  EXPECT_NE(bad.message().find("resource_ids"), std::string::npos);
}

TEST(FiltersTest, UnsetSizeIsTheMaxPageSize) {
  auto g = GrantFilterOf(pb::ListGrantsRequest(), 1000);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->size, 1000);
  auto a = AppealFilterOf(pb::ListAppealsRequest(), 7);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size, 7);
  pb::ListApprovalsRequest big;
  big.set_size(8);
  auto bad = ApprovalFilterOf(big, 7).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad));
  EXPECT_NE(bad.message().find("size"), std::string::npos);
}

TEST(FiltersTest, GuardianGrantFieldsAndTimeRange) {
  pb::ListGrantsRequest req;
  req.add_resource_urns("x");
  req.add_statuses("active");
  req.set_expiring_in_days(7);
  req.set_with_pending_appeal(true);
  req.mutable_start_time()->set_seconds(100);
  req.mutable_end_time()->set_seconds(200);
  req.add_order_by("updated_at:desc");
  auto f = GrantFilterOf(req);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->resource_urns, std::vector<std::string>{"x"});
  EXPECT_EQ(f->expiring_in_days, 7);
  EXPECT_TRUE(f->with_pending_appeal);
  EXPECT_EQ(f->created.start_micros, 100000000);
  EXPECT_EQ(f->created.end_micros, 200000000);
  ASSERT_EQ(f->order_by.size(), 1u);
  EXPECT_EQ(f->order_by[0], (std::pair<std::string, bool>{"updated_at", true}));
  req.mutable_end_time()->set_seconds(50);
  auto bad = GrantFilterOf(req).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad));
  EXPECT_NE(bad.message().find("end_time"), std::string::npos);

  pb::ListAppealsRequest ar;
  ar.add_ids("nope");
  EXPECT_NE(AppealFilterOf(ar).status().message().find("ids"), std::string::npos);
}

TEST(FiltersTest, ResourceMatchersFollowGuardiansRules) {
  pb::ListResourcesRequest req;
  req.set_urn_starts_with("a");
  req.set_urn_not_contains("b");
  req.add_urns("c");
  req.set_provider_urn_ends_with("d");
  req.set_q("e");
  req.add_order_by("name:desc");
  auto f = ResourceFilterOf(req);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->urn_match.starts_with, "a");
  EXPECT_EQ(f->urn_match.not_contains, "b");
  EXPECT_EQ(f->urns, std::vector<std::string>{"c"});
  EXPECT_EQ(f->provider_urn_match.ends_with, "d");
  EXPECT_EQ(f->q, "e");
  req.set_urn_contains("x");  // contains with starts_with: refused
  auto bad = ResourceFilterOf(req).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad));
  EXPECT_NE(bad.message().find("urn_contains"), std::string::npos);
  pb::ListResourcesRequest order;
  order.add_order_by("provider_type");
  EXPECT_TRUE(absl::IsInvalidArgument(ResourceFilterOf(order).status()));
}

TEST(FiltersTest, RoleAndProviderUrnMatchersOnAppealsApprovalsAndGrants) {
  pb::ListAppealsRequest appeals;
  appeals.set_role_starts_with("edi");
  appeals.set_provider_urn_not_contains("when");
  auto a = AppealFilterOf(appeals, 100);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->role_match.starts_with, "edi");
  EXPECT_EQ(a->provider_urn_match.not_contains, "when");
  appeals.set_role_contains("x");  // contains with starts_with: refused, as Guardian's
  EXPECT_NE(AppealFilterOf(appeals, 100).status().message().find("role_contains"),
            std::string::npos);

  pb::ListApprovalsRequest approvals;
  approvals.add_step_names("owner_approval");
  approvals.set_provider_urn_contains("noop");
  auto p = ApprovalFilterOf(approvals, 100);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->step_names, std::vector<std::string>{"owner_approval"});
  EXPECT_EQ(p->provider_urn_match.contains, "noop");

  pb::ListGrantsRequest grants;
  grants.set_role_not_ends_with("er");
  auto g = GrantFilterOf(grants, 100);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->role_match.not_ends_with, "er");
  grants.set_provider_urn_contains("a");
  grants.set_provider_urn_ends_with("b");
  EXPECT_TRUE(absl::IsInvalidArgument(GrantFilterOf(grants, 100).status()));
}

TEST(FiltersTest, ResourceFilterParsesDetailPaths) {
  pb::ListResourcesRequest req;
  req.add_details("team.name:data");
  auto f = ResourceFilterOf(req);
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->details.size(), 1u);
  EXPECT_EQ(f->details[0].first, (std::vector<std::string>{"team", "name"}));
  EXPECT_EQ(f->details[0].second, "data");
  req.add_details("team..name:x");
  EXPECT_TRUE(absl::IsInvalidArgument(ResourceFilterOf(req).status()));
  pb::ListResourcesRequest no_colon;
  no_colon.add_details("team");
  auto bad = ResourceFilterOf(no_colon).status();
  EXPECT_NE(bad.message().find("details"), std::string::npos);
}

TEST(FiltersTest, RevokeSelectorTakesBodyFieldsOverQueryFieldByField) {
  pb::RevokeAppealsRequest req;
  req.add_account_ids("query@x.com");
  req.add_provider_types("bigquery");
  req.mutable_body()->add_account_ids("body@x.com");
  GrantSelector s = GrantSelectorOf(req);
  EXPECT_EQ(s.account_ids, (std::vector<std::string>{"body@x.com"}));
  EXPECT_EQ(s.provider_types, (std::vector<std::string>{"bigquery"}));
  EXPECT_TRUE(s.resource_urns.empty());
  pb::RevokeGrantsRequest grants;
  grants.add_resource_urns("t1");
  EXPECT_EQ(GrantSelectorOf(grants).resource_urns, (std::vector<std::string>{"t1"}));
}

}  // namespace
}  // namespace sluice::access
