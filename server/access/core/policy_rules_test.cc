// Issue 17's per-appeal policy rules: questions, self-approval, the
// approver-left check and requirement matching.
#include "server/access/core/policy_rules.h"

#include <gtest/gtest.h>

#include "server/access/core/json.h"

namespace sluice::access {
namespace {

pb::Policy PolicyOf(const std::string& json) {
  pb::Policy p;
  EXPECT_TRUE(JsonStringToProto(json, &p).ok()) << json;
  return p;
}

TEST(PolicyRulesTest, SelfApprovalNeedsAllowAndNotGuardiansDont) {
  pb::Step s;
  EXPECT_FALSE(AllowsSelfApproval(s));  // the default blocks it
  s.set_allow_self_approval(true);
  EXPECT_TRUE(AllowsSelfApproval(s));
  s.set_dont_allow_self_approval(true);
  EXPECT_FALSE(AllowsSelfApproval(s));
}

TEST(PolicyRulesTest, QuestionAnswersAreNonEmptyStrings) {
  pb::Policy p = PolicyOf(R"({"appeal": {"questions": [
      {"key": "team", "question": "Team?", "required": true}, {"key": "why", "question": "Why?"}]}})");
  google::protobuf::Struct d;
  EXPECT_TRUE(absl::IsInvalidArgument(CheckQuestionAnswers(p, d)));
  ASSERT_TRUE(JsonStringToProto(R"({"__policy_questions": "team"})", &d).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(CheckQuestionAnswers(p, d)));
  ASSERT_TRUE(JsonStringToProto(R"({"__policy_questions": {"team": 3}})", &d).ok());
  auto st = CheckQuestionAnswers(p, d);
  EXPECT_TRUE(absl::IsInvalidArgument(st));
  EXPECT_NE(st.message().find("details.__policy_questions.team"), std::string::npos) << st;
  ASSERT_TRUE(JsonStringToProto(R"({"__policy_questions": {"team": "data"}})", &d).ok());
  EXPECT_TRUE(CheckQuestionAnswers(p, d).ok());
  EXPECT_TRUE(CheckQuestionAnswers(pb::Policy(), google::protobuf::Struct()).ok());
}

TEST(PolicyRulesTest, ApproversLeftIgnoresSkippedAndUnresolvedSteps) {
  pb::Policy p = PolicyOf(R"({"id": "p", "steps": [
      {"name": "a", "strategy": "manual", "approvers": ["x"]},
      {"name": "b", "strategy": "manual", "approvers": ["y"], "when": "false"}]})");
  pb::Appeal a;
  a.set_account_id("u@x.com");
  a.set_created_by("c@x.com");
  auto* first = a.add_approvals();
  first->set_name("a");
  first->set_status("pending");
  first->add_approvers("u@x.com");
  first->add_approvers("c@x.com");
  auto* second = a.add_approvals();
  second->set_name("b");
  second->set_status("blocked");  // `when` false at creation: nothing resolved
  auto st = CheckApproversLeft(a, p);
  EXPECT_TRUE(absl::IsFailedPrecondition(st));
  EXPECT_NE(st.message().find("step \"a\""), std::string::npos) << st;
  first->add_approvers("o@x.com");
  EXPECT_TRUE(CheckApproversLeft(a, p).ok());
  first->clear_approvers();
  first->set_status("skipped");
  EXPECT_TRUE(CheckApproversLeft(a, p).ok());
}

TEST(PolicyRulesTest, RequirementMatchesFieldsAndExpression) {
  pb::Appeal a;
  a.set_role("viewer");
  a.mutable_resource()->set_provider_type("noop");
  pb::Requirement r;
  EXPECT_TRUE(RequirementMatches(r, a));
  r.mutable_on()->set_role("admin");
  EXPECT_FALSE(RequirementMatches(r, a));
  r.mutable_on()->set_role("viewer");
  r.mutable_on()->set_expression("$appeal.resource.provider_type == 'noop'");
  EXPECT_TRUE(RequirementMatches(r, a));
  r.mutable_on()->set_expression("$appeal.resource.provider_type == 'bq'");
  EXPECT_FALSE(RequirementMatches(r, a));
}

// Guardian's RequirementTrigger.IsMatch (domain/policy.go) matches
// provider_type, provider_urn, resource_type, resource_urn and role with Go's
// regexp.MatchString: an unanchored RE2 search, not equality.
TEST(PolicyRulesTest, TriggerFieldsAreRegularExpressionsAsInGuardian) {
  pb::Appeal a;
  a.set_role("roles/bigquery.dataViewer");
  a.mutable_resource()->set_provider_type("bigquery");
  a.mutable_resource()->set_provider_urn("gcp-prod");
  a.mutable_resource()->set_type("dataset");
  a.mutable_resource()->set_urn("project-a:sales");
  pb::Requirement r;
  r.mutable_on()->set_resource_urn("^project-a:.*");
  EXPECT_TRUE(RequirementMatches(r, a)) << "anchored pattern";
  r.mutable_on()->set_resource_urn("sales");
  EXPECT_TRUE(RequirementMatches(r, a)) << "unanchored: a substring matches, as Go's MatchString";
  r.mutable_on()->set_resource_urn("^sales$");
  EXPECT_FALSE(RequirementMatches(r, a));
  r.mutable_on()->set_resource_urn("");
  r.mutable_on()->set_role("dataViewer|dataEditor");
  r.mutable_on()->set_provider_type("^big");
  r.mutable_on()->set_provider_urn("prod$");
  r.mutable_on()->set_resource_type("^(dataset|table)$");
  EXPECT_TRUE(RequirementMatches(r, a));
  r.mutable_on()->set_resource_type("^table$");
  EXPECT_FALSE(RequirementMatches(r, a)) << "every set field must match";
}

TEST(PolicyRulesTest, AnInvalidTriggerPatternIsRefusedNamingTheField) {
  pb::RequirementTrigger on;
  on.set_resource_urn("[InvalidRegex");
  absl::Status st = ValidateTrigger(on, "requirements[1].on");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("requirements[1].on.resource_urn"), std::string::npos) << st;
  on.set_resource_urn("^project-a:.*");
  EXPECT_TRUE(ValidateTrigger(on, "requirements[1].on").ok());
}

}  // namespace
}  // namespace sluice::access
