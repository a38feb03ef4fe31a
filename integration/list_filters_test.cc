// Guardian's list filters and paging through the gateway (issue 28, items 4
// and 5): GET /grants?resource_urns=x returns only x's grants, an unset
// size returns up to access.max_page_size with `total`, and
// access.read_scope decides whether a non-admin lists everyone's appeals,
// approvals and grants (all, as Guardian) or only their own (own).
#include <gtest/gtest.h>

#include <set>

#include "integration/appeal_fixture.h"

namespace sluice::integration {
namespace {

using json = nlohmann::json;

const char kConfig[] = "access:\n  grant_expiry_interval: 1h\n";

class ListFiltersTest : public AppealTest {
 protected:
  static void SetUpTestSuite() { StartSuiteStack(kConfig); }

  // Two resources with an auto-approving policy, and a manual one (owner
  // approves) for pending appeals; made once per suite.
  void SetUp() override {
    if (!x_.empty()) return;
    json auto_policy = json::parse(R"({"steps": [{"name": "auto", "strategy": "auto",
        "approve_if": "true"}], "appeal": {"allow_permanent_access": true,
        "allow_on_behalf": true}})");
    x_ = Setup("lf-x", auto_policy);
    y_ = Setup("lf-y", auto_policy);
    manual_ = Setup("lf-manual", json::parse(R"({"steps": [{"name": "owner",
        "strategy": "manual", "approvers": ["$appeal.resource.details.owner"]}],
        "appeal": {"allow_permanent_access": true, "allow_on_behalf": true}})"),
                    "approver@example.com");
    for (const char* who : {"lf-a@example.com", "lf-b@example.com"}) {
      ASSERT_EQ(Appeal(x_, "viewer", "", kAlice, who).status, 200);
      ASSERT_EQ(Appeal(y_, "viewer", "", kAlice, who).status, 200);
    }
    ASSERT_EQ(Appeal(manual_, "viewer", "", kAlice, "lf-a@example.com").status, 200);
  }

  static std::set<std::string> UrnsOf(const json& grants) {
    std::set<std::string> urns;
    for (const auto& g : grants) urns.insert(g["resource"]["urn"].get<std::string>());
    return urns;
  }

  static inline std::string x_, y_, manual_;
};

// The issue's case: today the filter is dropped and every grant comes back.
TEST_F(ListFiltersTest, GrantsByResourceUrnReturnOnlyThatResourcesGrants) {
  auto all = Call("GET", "/grants?account_ids=lf-a@example.com&account_ids=lf-b@example.com");
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(all.Json()["total"], 4);
  auto only_x = Call("GET", "/grants?resource_urns=noop-lf-x");
  ASSERT_EQ(only_x.status, 200) << only_x.body;
  EXPECT_EQ(only_x.Json()["total"], 2) << only_x.body;
  EXPECT_EQ(UrnsOf(only_x.Json()["grants"]), std::set<std::string>{"noop-lf-x"});
  // Other Guardian filters through the gateway: owners, expiring_in_days,
  // start_time/end_time (RFC 3339), with_pending_appeal.
  // A grant's owner is its appeal's creator (alice, on behalf of lf-a/lf-b).
  EXPECT_EQ(Call("GET", "/grants?resource_urns=noop-lf-x&owners=nobody@example.com"
                        "&owners=alice@example.com").Json()["total"], 2);
  EXPECT_EQ(Call("GET", "/grants?resource_urns=noop-lf-x&owners=lf-b@example.com")
                .Json()["total"], 0);
  EXPECT_EQ(Call("GET", "/grants?resource_urns=noop-lf-x&statuses=active&expiring_in_days=3")
                .Json()["total"], 0);  // permanent grants never expire
  EXPECT_EQ(Call("GET", "/grants?resource_urns=noop-lf-x&start_time=2000-01-01T00:00:00Z"
                        "&end_time=2999-01-01T00:00:00Z").Json()["total"], 2);
  EXPECT_EQ(Call("GET", "/grants?resource_urns=noop-lf-x&start_time=2999-01-01T00:00:00Z")
                .Json()["total"], 0);
  ExpectCode(Call("GET", "/grants?start_time=yesterday"), 400, 3, "yesterday");
  // Appeals, approvals, resources, providers, policies.
  EXPECT_EQ(Call("GET", "/appeals?resource_ids=" + x_ + "&account_types=user").Json()["total"], 2);
  EXPECT_EQ(Call("GET", "/appeals?q=lf-manual").Json()["total"], 1);
  // Guardian's with_approvals: the appeal list carries approval steps only
  // when asked (the lf-manual appeal has one pending step).
  EXPECT_EQ(Call("GET", "/appeals?q=lf-manual").Json()["appeals"][0]["approvals"].size(), 0u);
  auto steps = Call("GET", "/appeals?q=lf-manual&with_approvals=true").Json()["appeals"][0]["approvals"];
  ASSERT_EQ(steps.size(), 1u) << steps;
  EXPECT_EQ(steps[0]["status"], "pending");
  EXPECT_EQ(Call("GET", "/approvals?resource_urns=noop-lf-manual&appeal_statuses=pending")
                .Json()["total"], 1);
  auto res = Call("GET", "/resources?urn_starts_with=noop-lf-&urn_not_ends_with=manual"
                         "&order_by=urn:desc");
  ASSERT_EQ(res.status, 200) << res.body;
  ASSERT_EQ(res.Json()["resources"].size(), 2u);
  EXPECT_EQ(res.Json()["resources"][0]["urn"], "noop-lf-y");
  ExpectCode(Call("GET", "/resources?urn_contains=a&urn_starts_with=b"), 400, 3, "urn_contains");
  EXPECT_EQ(Call("GET", "/providers?urns=noop-lf-x:noop&urns=noop-lf-y").Json()["total"], 2);
  EXPECT_EQ(Call("GET", "/providers?types=gcs").Json()["total"], 0);
  EXPECT_EQ(Call("GET", "/policies?ids=lf-x&ids=lf-y:0").Json()["total"], 2);
}

TEST_F(ListFiltersTest, UnsetSizeReturnsUpToMaxPageSizeWithTotal) {
  // More than the old default page of 50.
  for (int i = 0; i < 55; ++i) {
    ASSERT_EQ(Appeal(y_, "viewer", "", kAlice, absl::StrCat("lf-many-", i, "@example.com")).status,
              200);
  }
  auto all = Call("GET", "/grants?resource_urns=noop-lf-y");
  ASSERT_EQ(all.status, 200);
  EXPECT_EQ(all.Json()["total"], 57);
  EXPECT_EQ(all.Json()["grants"].size(), 57u);
  ExpectCode(Call("GET", "/grants?size=1001"), 400, 3, "size");

  ASSERT_TRUE(stack_->RestartServer(absl::StrCat(kConfig, "  max_page_size: 5\n")).ok());
  auto five = Call("GET", "/grants?resource_urns=noop-lf-y");
  ASSERT_EQ(five.status, 200) << five.body;
  EXPECT_EQ(five.Json()["total"], 57);
  EXPECT_EQ(five.Json()["grants"].size(), 5u);
  EXPECT_EQ(Call("GET", "/appeals").Json()["appeals"].size(), 5u);
  ExpectCode(Call("GET", "/grants?size=6"), 400, 3, "size: at most 5");
  ASSERT_TRUE(stack_->RestartServer(kConfig).ok());
}

TEST_F(ListFiltersTest, ReadScopeOwnAndAll) {
  const std::string bob = "bob-lf@example.com";  // not an access admin
  // own (the default): bob holds, owns, created and approves nothing.
  EXPECT_EQ(Call("GET", "/grants", nullptr, bob).Json()["total"], 0);
  EXPECT_EQ(Call("GET", "/appeals", nullptr, bob).Json()["total"], 0);
  EXPECT_EQ(Call("GET", "/approvals", nullptr, bob).Json()["total"], 0);
  // ... while the approver sees the pending approval it is asked for.
  EXPECT_EQ(Call("GET", "/approvals", nullptr, "approver@example.com").Json()["total"], 1);
  // all: as Guardian, any authenticated caller lists everything; filters
  // still apply.
  ASSERT_TRUE(stack_->RestartServer(absl::StrCat(kConfig, "  read_scope: all\n")).ok());
  int admin_grants = Call("GET", "/grants").Json()["total"];
  EXPECT_GE(admin_grants, 4);
  EXPECT_EQ(Call("GET", "/grants", nullptr, bob).Json()["total"], admin_grants);
  EXPECT_EQ(Call("GET", "/grants?resource_urns=noop-lf-x", nullptr, bob).Json()["total"], 2);
  EXPECT_EQ(Call("GET", "/appeals", nullptr, bob).Json()["total"],
            Call("GET", "/appeals").Json()["total"]);
  EXPECT_EQ(Call("GET", "/approvals", nullptr, bob).Json()["total"],
            Call("GET", "/approvals").Json()["total"]);
  // Reading one works the same way; reading is all it widens: bob still
  // may not act on others' grants.
  std::string gid = Call("GET", "/grants?resource_urns=noop-lf-x", nullptr, bob)
                        .Json()["grants"][0]["id"];
  EXPECT_EQ(Call("GET", "/grants/" + gid, nullptr, bob).status, 200);
  std::string aid = Call("GET", "/appeals?q=lf-manual", nullptr, bob).Json()["appeals"][0]["id"];
  EXPECT_EQ(Call("GET", "/appeals/" + aid, nullptr, bob).status, 200);
  EXPECT_EQ(Call("PUT", "/grants/" + gid + "/revoke", json{{"reason", "x"}}, bob).status, 403);
  // /me lists stay the caller's own.
  EXPECT_EQ(Call("GET", "/me/grants", nullptr, bob).Json()["total"], 0);
  ASSERT_TRUE(stack_->RestartServer(kConfig).ok());
  EXPECT_EQ(Call("GET", "/grants", nullptr, bob).Json()["total"], 0);
  EXPECT_EQ(Call("GET", "/grants/" + gid, nullptr, bob).status, 403);
  EXPECT_EQ(Call("GET", "/appeals/" + aid, nullptr, bob).status, 403);
}

}  // namespace
}  // namespace sluice::integration
