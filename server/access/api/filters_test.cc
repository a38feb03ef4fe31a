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
  auto f = GrantFilterOf(req);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->owner, "o@x.com");
  req.add_resource_ids("not-a-uuid");
  auto bad = GrantFilterOf(req).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bad));
  EXPECT_NE(bad.message().find("resource_ids"), std::string::npos);
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
