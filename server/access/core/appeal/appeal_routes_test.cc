// Issue 28's core rules with in-memory fakes: PatchAppeal (creator only,
// pending only, a change required, the flow restarted with a new revision),
// AddApprovalStep / UpdateApprovalStep validation, and the approval
// summaries' filter and group checks.
#include <gtest/gtest.h>

#include "server/access/core/access_services.h"
#include "server/access/core/fakes.h"
#include "server/access/core/json.h"

namespace sluice::access {
namespace {

const std::string kResource = "00000000-0000-0000-0000-000000000001";

class AppealRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pb::Policy p;
    ASSERT_TRUE(JsonStringToProto(R"({"id": "pol", "steps": [
        {"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]},
        {"name": "lead", "strategy": "manual", "approvers": ["l@x.com"]}],
        "appeal": {"allow_permanent_access": true}})", &p).ok());
    ASSERT_TRUE(policies_.Create(p, "admin@x.com").ok());
    appeals_.resources = &resources_;
    auto client = std::make_unique<testing::FakeProviderClient>();
    pb::Resource r;
    r.set_id(kResource);
    r.set_type("manual");
    r.set_urn("urn-manual");
    client->resources.push_back(r);
    std::vector<std::unique_ptr<ProviderClient>> clients;
    clients.push_back(std::move(client));
    registry_ = std::make_unique<ProviderRegistry>(std::move(clients));
    r.set_provider_type("fake");
    r.set_provider_urn("f");
    resources_.resources[kResource] = r;
    pb::ProviderConfig c;
    ASSERT_TRUE(JsonStringToProto(R"({"type": "fake", "urn": "f", "allowed_account_types": ["user"],
        "resources": [{"type": "manual", "policy": {"id": "pol", "version": 1},
                       "roles": [{"id": "viewer"}, {"id": "editor"}]}]})", &c).ok());
    providers_ = std::make_unique<ProviderService>(&provider_repo_, &policy_repo_, registry_.get(),
                                                   crypter_.get());
    ASSERT_TRUE(providers_->Create(c, "admin@x.com").ok());
    service_ = std::make_unique<AccessServices>(&appeals_, &resources_, &policies_,
                                                providers_.get(), registry_.get(), nullptr);
  }

  // A pending appeal by bob for `role`.
  pb::Appeal Create(const std::string& role = "viewer") {
    pb::CreateAppealRequest req;
    auto* r = req.add_resources();
    r->set_id(kResource);
    r->set_role(role);
    auto created = service_->appeals().Create(req, "bob@x.com");
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? (*created)[0] : pb::Appeal();
  }

  testing::FakePolicyRepository policy_repo_;
  testing::FakeProviderRepository provider_repo_;
  testing::FakeResourceRepository resources_;
  testing::FakeAppealRepository appeals_;
  std::unique_ptr<ProviderRegistry> registry_;
  std::unique_ptr<Crypter> crypter_ = Crypter::Development();
  PolicyService policies_{&policy_repo_, crypter_.get()};
  std::unique_ptr<ProviderService> providers_;
  std::unique_ptr<AccessServices> service_;
};

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

TEST_F(AppealRoutesTest, AddedStepsAreCheckedAndBlockedBehindUndecidedOnes) {
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

TEST_F(AppealRoutesTest, SummariesCheckFiltersAndGroupsAndScopeToTheApprover) {
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
