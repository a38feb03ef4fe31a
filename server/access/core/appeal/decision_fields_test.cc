// Issue 28, Guardian's fields that make decisions, with in-memory fakes:
// CreateAppeal's dry_run, ProviderConfig.policies picking the flow by
// `when`, and Requirement.on.conditions.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/access/core/fake_access_test.h"
#include "server/access/core/policy_rules.h"

namespace sluice::access {
namespace {

class DecisionFieldsTest : public FakeAccessTest {
 protected:
  void SetUp() override {
    // "auto" approves at once; "strict" waits for a manual approver.
    StorePolicy(R"({"id": "auto", "steps": [{"name": "a", "strategy": "auto", "approve_if": "true"}],
                  "appeal": {"allow_permanent_access": true}})");
    StorePolicy(R"({"id": "strict", "steps": [{"name": "owner", "strategy": "manual",
                  "approvers": ["o@x.com"]}], "appeal": {"allow_permanent_access": true}})");
    AddResource(kPublic, "public", R"({"team": "web"})");
    AddResource(kPii, "pii", R"({"team": "data", "pii": true})");
    StartServices();
  }
  // A table of provider "f" with `details`, stored only (the plugin does
  // not list it).
  void AddResource(const std::string& id, const std::string& urn, const std::string& details) {
    pb::Resource r;
    r.set_id(id);
    r.set_type("table");
    r.set_urn(urn);
    ASSERT_TRUE(JsonStringToProto(details, r.mutable_details()).ok());
    StoreResource(r, "f", /*listed=*/false);
  }
  // Registers provider "f" (tables follow "auto") with `policies` (JSON
  // array of {when, policy}).
  void AddProvider(const std::string& policies = "[]") {
    StoreProvider(absl::StrCat(R"({"type": "fake", "urn": "f",
        "allowed_account_types": ["user"], "policies": )", policies, R"(,
        "resources": [{"type": "table", "policy": {"id": "auto", "version": 1},
                       "roles": [{"id": "viewer", "permissions": ["read"]}]}]})"));
  }
  pb::CreateAppealRequest Request(const std::string& resource_id, bool dry_run = false) {
    pb::CreateAppealRequest req;
    auto* r = req.add_resources();
    r->set_id(resource_id);
    r->set_role("viewer");
    req.set_dry_run(dry_run);
    return req;
  }

  const std::string kPublic = "00000000-0000-0000-0000-000000000001";
  const std::string kPii = "00000000-0000-0000-0000-000000000002";
};

// A dry run on an auto-approving policy returns the appeal as it would be
// stored (active) but stores, grants, emits and audits nothing. Before
// issue 28 dry_run did not exist and the same request granted access.
TEST_F(DecisionFieldsTest, DryRunAppealOnAnAutoApprovingPolicyGrantsNothing) {
  AddProvider();
  auto dry = service_->appeals().Create(Request(kPublic, /*dry_run=*/true), "u@x.com");
  ASSERT_TRUE(dry.ok()) << dry.status();
  ASSERT_EQ(dry->size(), 1u);
  const pb::Appeal& a = (*dry)[0];
  EXPECT_EQ(a.status(), "approved");
  EXPECT_TRUE(a.id().empty());
  EXPECT_EQ(a.policy_id(), "auto");
  EXPECT_EQ(a.account_id(), "u@x.com");
  ASSERT_EQ(a.approvals_size(), 1);
  EXPECT_EQ(a.approvals(0).status(), "approved");
  EXPECT_FALSE(a.has_grant());
  // The provider's account check ran; nothing was granted or written.
  EXPECT_EQ(client_->validated_accounts, std::vector<std::string>{"u@x.com"});
  EXPECT_TRUE(client_->granted.empty());
  EXPECT_TRUE(appeals_.state.appeals.empty());
  EXPECT_TRUE(appeals_.state.grants.empty());
  EXPECT_TRUE(appeals_.state.events.empty());
  EXPECT_TRUE(appeals_.state.audit.empty());
  // Validation errors come back as for a real request.
  pb::CreateAppealRequest bad = Request(kPublic, true);
  bad.mutable_resources(0)->set_role("owner");
  EXPECT_TRUE(absl::IsInvalidArgument(service_->appeals().Create(bad, "u@x.com").status()));
  client_->account_error = absl::InvalidArgumentError("account_id: unknown to the provider");
  EXPECT_TRUE(absl::IsInvalidArgument(service_->appeals().Create(Request(kPublic, true), "u@x.com").status()));
  client_->account_error = absl::OkStatus();
  // The same request without dry_run grants.
  auto real = service_->appeals().Create(Request(kPublic), "u@x.com");
  ASSERT_TRUE(real.ok()) << real.status();
  EXPECT_EQ(client_->granted.size(), 1u);
  EXPECT_EQ(appeals_.state.grants.size(), 1u);
}

// ProviderConfig.policies: the first `when` true for the appeal picks the
// policy (Guardian's getPolicy); no match falls back to the resource type's.
// Before issue 28 the field did not exist and every appeal followed "auto".
TEST_F(DecisionFieldsTest, ProviderPoliciesWhenPicksTheFlow) {
  AddProvider(R"([{"when": "$appeal.resource.details.pii == true", "policy": "strict@1"},
                  {"when": "$appeal.role == 'nobody'", "policy": "auto@1"}])");
  auto pii = service_->appeals().Create(Request(kPii), "u@x.com");
  ASSERT_TRUE(pii.ok()) << pii.status();
  EXPECT_EQ((*pii)[0].policy_id(), "strict");
  EXPECT_EQ((*pii)[0].status(), "pending");
  auto open = service_->appeals().Create(Request(kPublic), "u@x.com");
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_EQ((*open)[0].policy_id(), "auto");
  EXPECT_EQ((*open)[0].status(), "approved");
  EXPECT_EQ(client_->granted.size(), 1u);  // only the non-matching one
  // The strict flow goes on as usual; an appeal without a creator profile
  // keeps none (an empty google.protobuf.Value would not serialize to JSON).
  auto approved = service_->approvals().Act((*pii)[0].id(), "owner", "approve", "o@x.com", "ok");
  ASSERT_TRUE(approved.ok()) << approved.status();
  EXPECT_EQ(approved->status(), "approved");
  EXPECT_FALSE(approved->has_creator());
  EXPECT_EQ(client_->granted.size(), 2u);
}

TEST_F(DecisionFieldsTest, ProviderPolicySpecs) {
  auto ref = ParsePolicySpec("p", "strict@2");
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(ref->id(), "strict");
  EXPECT_EQ(ref->version(), 2u);
  EXPECT_EQ(ParsePolicySpec("p", "strict")->version(), 0u);
  EXPECT_EQ(ParsePolicySpec("p", "strict@latest")->version(), 0u);
  EXPECT_TRUE(absl::IsInvalidArgument(ParsePolicySpec("p", "strict@0").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParsePolicySpec("p", "@1").status()));
}

// Requirement.on.conditions: `$resource.<path>` equals match.eq (Guardian's
// Condition.IsMatch). Before issue 28 the conditions were dropped and the
// requirement fired for every appeal.
TEST_F(DecisionFieldsTest, ConditionsRequirementFiresOnlyWhenItsConditionsMatch) {
  pb::Requirement req;
  ASSERT_TRUE(JsonStringToProto(R"({"on": {"conditions": [
      {"field": "$resource.details.team", "match": {"eq": "data"}},
      {"field": "$resource.details.pii", "match": {"eq": true}}]},
      "appeals": [{"resource": {"id": "r"}, "role": "viewer"}]})", &req).ok());
  pb::Appeal appeal;
  appeal.set_role("viewer");
  *appeal.mutable_resource() = resources_.resources[kPii];
  EXPECT_TRUE(RequirementMatches(req, appeal));
  *appeal.mutable_resource() = resources_.resources[kPublic];
  EXPECT_FALSE(RequirementMatches(req, appeal));  // team "web", no pii
  // Types count: "true" (a string) is not true.
  pb::Condition c;
  c.set_field("$resource.details.pii");
  c.mutable_match()->mutable_eq()->set_string_value("true");
  *appeal.mutable_resource() = resources_.resources[kPii];
  EXPECT_FALSE(*ConditionMatches(c, appeal));
  c.set_field("$resource.urn");
  c.mutable_match()->mutable_eq()->set_string_value("pii");
  EXPECT_TRUE(*ConditionMatches(c, appeal));
  c.set_field("$appeal.role");
  EXPECT_TRUE(absl::IsInvalidArgument(ConditionMatches(c, appeal).status()));
  c.set_field("$resource.details.absent");
  EXPECT_TRUE(absl::IsInvalidArgument(ConditionMatches(c, appeal).status()));
}

// Through the flow: an approved appeal on the pii table creates the
// additional appeal, one on the public table does not.
TEST_F(DecisionFieldsTest, ConditionsRequirementThroughApproval) {
  StorePolicy(absl::StrCat(R"({"id": "req", "steps": [{"name": "a", "strategy": "auto",
      "approve_if": "true"}], "appeal": {"allow_permanent_access": true},
      "requirements": [{"on": {"conditions": [{"field": "$resource.details.team",
                                               "match": {"eq": "data"}}]},
                        "appeals": [{"resource": {"id": ")", kPublic, R"("}, "role": "viewer",
                                     "policy": {"id": "strict", "version": 1}}]}]})"));
  AddProvider(R"([{"when": "$appeal.resource.urn == 'pii'", "policy": "req@1"}])");
  auto on_pii = service_->appeals().Create(Request(kPii), "u@x.com");
  ASSERT_TRUE(on_pii.ok()) << on_pii.status();
  int additional = 0;
  for (const auto& [id, a] : appeals_.state.appeals) {
    if (a.resource_id() == kPublic && a.policy_id() == "strict") ++additional;
  }
  EXPECT_EQ(additional, 1);
  // A requirement whose conditions do not match creates nothing.
  appeals_.state.appeals.clear();
  resources_.resources[kPii].mutable_details()->mutable_fields()->at("team").set_string_value("x");
  pb::CreateAppealRequest again = Request(kPii);
  again.set_account_id("v@x.com");
  ASSERT_TRUE(service_->appeals().Create(again, "v@x.com").ok());
  EXPECT_EQ(appeals_.state.appeals.size(), 1u);
}

}  // namespace
}  // namespace sluice::access
