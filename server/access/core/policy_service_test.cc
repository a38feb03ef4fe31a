#include "server/access/core/policy_service.h"

#include <gtest/gtest.h>

#include "server/access/core/fakes.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

pb::Policy Valid(const std::string& id) {
  pb::Policy p;
  (void)JsonStringToProto(R"({
    "id": ")" + id + R"(",
    "steps": [
      {"name": "owner", "strategy": "manual", "approvers": ["a@x.com", "$appeal.resource.details.owner"]},
      {"name": "auto", "strategy": "auto", "approve_if": "$appeal.role == 'viewer'", "allow_failed": true}
    ],
    "iam": {"provider": "http", "config": {"url": "http://iam/{user_id}", "auth": {"type": "basic", "username": "u", "password": "pw"}}},
    "appeal": {"duration_options": [{"name": "1d", "value": "24h"}], "allow_active_access_extension_in": "72h"}
  })", &p);
  return p;
}

class PolicyServiceTest : public ::testing::Test {
 protected:
  testing::FakePolicyRepository repo_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  PolicyService service_{&repo_, crypter_.get()};
};

TEST_F(PolicyServiceTest, CreateVersionsAndEncryptsSecrets) {
  auto p = service_.Create(Valid("p1"), "alice@x.com");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->version(), 1u);
  EXPECT_EQ(p->created_by(), "alice@x.com");
  EXPECT_EQ(p->iam().config().auth().password(), kMaskedSecret);
  const auto& stored = repo_.policies.at({"p1", 1});
  EXPECT_TRUE(Crypter::IsEncrypted(stored.iam().config().auth().password()));
  ASSERT_EQ(repo_.audit.size(), 1u);
  EXPECT_EQ(repo_.audit[0].action, "policy.create");
  EXPECT_TRUE(absl::IsAlreadyExists(service_.Create(Valid("p1"), "alice@x.com").status()));

  pb::Policy next = Valid("p1");
  next.mutable_iam()->mutable_config()->mutable_auth()->set_password(kMaskedSecret);
  auto v2 = service_.Update("p1", next, "bob@x.com");
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v2->version(), 2u);
  auto dec = service_.GetDecrypted("p1", 2);
  ASSERT_TRUE(dec.ok()) << dec.status();
  EXPECT_EQ(dec->iam().config().auth().password(), "pw");  // kept from v1
  EXPECT_EQ(service_.Get("p1", 1)->version(), 1u);
  EXPECT_EQ(service_.Get("p1", 0)->version(), 2u);
  EXPECT_TRUE(absl::IsNotFound(service_.Update("nope", Valid("nope"), "a@x.com").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(service_.Update("p1", Valid("other"), "a@x.com").status()));
}

// Review C5, M1, M9: IAM secrets (auth and headers) are sealed to their
// policy and field, masked, and never follow the IAM call to a new URL.
TEST_F(PolicyServiceTest, IamSecretsStayWithTheirUrl) {
  pb::Policy p = Valid("iam");
  (*p.mutable_iam()->mutable_config()->mutable_headers())["X-Api-Key"] = "key-123";
  auto created = service_.Create(p, "alice@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->iam().config().headers().at("X-Api-Key"), kMaskedSecret);
  EXPECT_EQ(service_.Get("iam", 1)->iam().config().headers().at("X-Api-Key"), kMaskedSecret);
  const std::string& sealed = repo_.policies.at({"iam", 1}).iam().config().headers().at("X-Api-Key");
  EXPECT_TRUE(Crypter::IsEncrypted(sealed));
  EXPECT_EQ(service_.GetDecrypted("iam", 1)->iam().config().headers().at("X-Api-Key"), "key-123");

  // PUT /policies/p with a new url and the secrets masked: refused.
  pb::Policy moved = Valid("iam");
  moved.mutable_iam()->mutable_config()->set_url("https://evil.example.com/{user_id}");
  moved.mutable_iam()->mutable_config()->mutable_auth()->set_password(kMaskedSecret);
  auto refused = service_.Update("iam", moved, "bob@x.com");
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_NE(refused.status().message().find("iam.config.auth.password: must be supplied again"),
            std::string::npos)
      << refused.status();
  // The stored ciphertext pasted back is no secret either.
  moved.mutable_iam()->mutable_config()->mutable_auth()->set_password(sealed);
  EXPECT_TRUE(absl::IsInvalidArgument(service_.Update("iam", moved, "bob@x.com").status()));
  moved.mutable_iam()->mutable_config()->mutable_auth()->set_password("new-pw");
  EXPECT_TRUE(service_.Update("iam", moved, "bob@x.com").ok());

  // Headers may not smuggle lines, and the URL must be http(s).
  pb::Policy bad = Valid("iam2");
  (*bad.mutable_iam()->mutable_config()->mutable_headers())["X-A"] = "v\r\nX-Admin: 1";
  EXPECT_TRUE(absl::IsInvalidArgument(service_.Create(bad, "a@x.com").status()));
  bad = Valid("iam2");
  bad.mutable_iam()->mutable_config()->set_url("file:///proc/self/environ#{user_id}");
  auto file = service_.Create(bad, "a@x.com");
  EXPECT_TRUE(absl::IsInvalidArgument(file.status()));
  EXPECT_NE(file.status().message().find("iam.config.url"), std::string::npos);
}

// Finding L2: lists had no LIMIT (the page bounds: api/filters_test.cc).
TEST_F(PolicyServiceTest, ListIsPagedWithATotal) {
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(service_.Create(Valid(id), "x@x.com").ok());
  int64_t total = 0;
  auto page = service_.List(Page{2, 1}, &total);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(total, 3);
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].id(), "b");
  EXPECT_EQ((*page)[0].iam().config().auth().password(), kMaskedSecret);
  auto all = service_.List(Page{}, &total);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);  // default page: 50
}

// Issue 28: dry_run validates and returns what would be stored; nothing is
// written or audited (Guardian's WithDryRun).
TEST_F(PolicyServiceTest, DryRunWritesNothing) {
  auto dry = service_.Create(Valid("p1"), "admin@x.com", /*dry_run=*/true);
  ASSERT_TRUE(dry.ok()) << dry.status();
  EXPECT_EQ(dry->version(), 1u);
  EXPECT_EQ(dry->created_by(), "admin@x.com");
  EXPECT_TRUE(repo_.policies.empty());
  EXPECT_TRUE(repo_.audit.empty());
  pb::Policy bad = Valid("p1");
  bad.mutable_steps(0)->set_strategy("sometimes");
  EXPECT_TRUE(absl::IsInvalidArgument(service_.Create(bad, "admin@x.com", true).status()));
  ASSERT_TRUE(service_.Create(Valid("p1"), "admin@x.com").ok());
  // What the real create would refuse, the dry run refuses too.
  EXPECT_TRUE(absl::IsAlreadyExists(service_.Create(Valid("p1"), "admin@x.com", true).status()));
  auto dry_update = service_.Update("p1", Valid("p1"), "admin@x.com", /*dry_run=*/true);
  ASSERT_TRUE(dry_update.ok()) << dry_update.status();
  EXPECT_EQ(dry_update->version(), 2u);
  EXPECT_EQ(repo_.policies.size(), 1u);
  EXPECT_EQ(repo_.audit.size(), 1u);
  EXPECT_TRUE(absl::IsNotFound(service_.Update("nope", Valid("nope"), "a@x.com", true).status()));
}

// Guardian's ListPolicies returns every version of every policy, oldest
// first (policy_repository.go Find: ORDER BY created_at ASC).
TEST_F(PolicyServiceTest, ListReturnsEveryVersionOldestFirst) {
  ASSERT_TRUE(service_.Create(Valid("b"), "x@x.com").ok());
  ASSERT_TRUE(service_.Create(Valid("a"), "x@x.com").ok());
  ASSERT_TRUE(service_.Update("b", Valid("b"), "x@x.com").ok());
  int64_t total = 0;
  auto all = service_.List(Page{}, &total);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(total, 3);
  std::vector<std::pair<std::string, uint32_t>> got;
  for (const auto& p : *all) got.push_back({p.id(), p.version()});
  EXPECT_EQ(got, (std::vector<std::pair<std::string, uint32_t>>{{"b", 1}, {"a", 1}, {"b", 2}}));
  for (const auto& p : *all) EXPECT_EQ(p.iam().config().auth().password(), kMaskedSecret);
}

TEST(ValidatePolicyTest, NamesTheField) {
  auto expect = [](pb::Policy p, absl::string_view field) {
    auto st = ValidatePolicy(p);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << field;
    EXPECT_NE(st.message().find(std::string(field)), std::string::npos) << st.message();
  };
  EXPECT_TRUE(ValidatePolicy(Valid("ok")).ok());
  expect(Valid("white space"), "id:");
  pb::Policy p = Valid("x");
  p.mutable_steps(1)->set_name("owner");
  expect(p, "steps[1].name");
  p = Valid("x");
  p.mutable_steps(0)->set_strategy("sometimes");
  expect(p, "steps[0].strategy");
  p = Valid("x");
  p.mutable_steps(1)->clear_approve_if();
  expect(p, "steps[1].approve_if");
  p = Valid("x");
  p.mutable_steps(1)->set_approve_if("$appeal.role ==");
  expect(p, "steps[1].approve_if");
  p = Valid("x");
  p.mutable_steps(0)->set_when("(1");
  expect(p, "column");
  p = Valid("x");
  p.mutable_steps(0)->set_approvers(1, "$appeal.(");
  expect(p, "steps[0].approvers[1]");
  p = Valid("x");
  p.mutable_appeal()->mutable_duration_options(0)->set_value("-1h");
  expect(p, "appeal.duration_options[0].value");
  p = Valid("x");
  p.mutable_iam()->set_provider("ldap");
  expect(p, "iam.provider");
  p = Valid("x");
  p.mutable_iam()->mutable_config()->mutable_auth()->set_type("digest");
  expect(p, "iam.config.auth.type");
  p = Valid("x");
  auto* req = p.add_requirements();
  req->mutable_on()->set_expression("1 +");
  req->add_appeals()->set_role("viewer");
  expect(p, "requirements[0].on.expression");
}

// Issue 17: Guardian's questions, dont_allow_self_approval and the
// requirement fields are validated with the field named.
TEST(ValidatePolicyTest, QuestionsSelfApprovalAndRequirementFields) {
  auto expect = [](const pb::Policy& p, absl::string_view field) {
    auto st = ValidatePolicy(p);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << field;
    EXPECT_NE(st.message().find(std::string(field)), std::string::npos) << st.message();
  };
  pb::Policy p = Valid("x");
  auto* q = p.mutable_appeal()->add_questions();
  q->set_key("team");
  q->set_question("Which team?");
  q->set_required(true);
  p.mutable_steps(0)->set_dont_allow_self_approval(true);  // Guardian's field alone loads
  EXPECT_TRUE(ValidatePolicy(p).ok()) << ValidatePolicy(p);
  pb::Policy both = p;
  both.mutable_steps(0)->set_allow_self_approval(true);
  expect(both, "steps[0].dont_allow_self_approval");
  pb::Policy dup = p;
  *dup.mutable_appeal()->add_questions() = *q;
  expect(dup, "appeal.questions[1].key");
  pb::Policy no_text = p;
  no_text.mutable_appeal()->mutable_questions(0)->clear_question();
  expect(no_text, "appeal.questions[0].question");
  pb::Policy no_key = p;
  no_key.mutable_appeal()->mutable_questions(0)->clear_key();
  expect(no_key, "appeal.questions[0].key");
  auto* req = p.add_requirements();
  req->mutable_on()->set_role("viewer");
  auto* add = req->add_appeals();
  add->set_role("viewer");
  add->mutable_resource()->set_id("r1");
  req->set_on_failure("hard");
  EXPECT_TRUE(ValidatePolicy(p).ok()) << ValidatePolicy(p);
  req->set_on_failure("sometimes");
  expect(p, "requirements[0].on_failure");
  req->set_on_failure("soft");
  add->mutable_policy()->set_id("bad id");
  expect(p, "requirements[0].appeals[0].policy.id");
}

// Issue 28: a trigger with no field set would fire for every appeal
// (Guardian's required_without_all); conditions need a $resource path and
// a match.eq.
TEST(ValidatePolicyTest, RequirementTriggersNeedAFieldAndWellFormedConditions) {
  auto expect = [](const pb::Policy& p, absl::string_view field) {
    auto st = ValidatePolicy(p);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << field;
    EXPECT_NE(st.message().find(std::string(field)), std::string::npos) << st.message();
  };
  pb::Policy p = Valid("x");
  auto* req = p.add_requirements();
  auto* add = req->add_appeals();
  add->set_role("viewer");
  add->mutable_resource()->set_id("r1");
  expect(p, "requirements[0].on:");
  req->mutable_on();  // present but empty: the same
  expect(p, "requirements[0].on:");
  auto* c = req->mutable_on()->add_conditions();
  c->set_field("$appeal.resource.details.team");
  c->mutable_match()->mutable_eq()->set_string_value("data");
  expect(p, "requirements[0].on.conditions[0].field");
  c->set_field("$resource.details.team");
  EXPECT_TRUE(ValidatePolicy(p).ok()) << ValidatePolicy(p);
  c->mutable_match()->clear_eq();
  expect(p, "requirements[0].on.conditions[0].match.eq");
}

}  // namespace
}  // namespace sluice::access
