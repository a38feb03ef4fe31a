// AppealService (through AccessServices) with in-memory fakes: creation and
// its checks, granting and compensation, extension, cancel/revoke rules,
// bulk revoke, requirements. The approve path is tested in
// approval/approval_service_test.cc, expiry and reconciliation in
// reconcile/reconcile_test.cc (same fixture, appeal_service_fixture.h).
#include "server/access/core/appeal/appeal_service_fixture.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "server/access/core/fakes.h"
#include "server/access/core/json.h"
#include "server/access/core/validation.h"

namespace sluice::access {
namespace {

TEST_F(AppealServiceTest, FailedRecordAfterGrantIsCompensated) {
  appeals_.insert_grant_error = absl::UnavailableError("db down");
  auto created = Service().appeals().Create(Request(kAuto, "24h"), "u@x.com");
  EXPECT_TRUE(absl::IsUnavailable(created.status())) << created.status();
  EXPECT_EQ(client_->granted.size(), 1u);
  EXPECT_EQ(client_->revoked.size(), 1u);  // no access without a record
  EXPECT_TRUE(appeals_.state.appeals.empty());  // rolled back
}

TEST_F(AppealServiceTest, ExtensionWindow) {
  ASSERT_TRUE(Service().appeals().Create(Request(kAuto, "24h"), "u@x.com").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(Service().appeals().Create(Request(kAuto, "24h"), "u@x.com").status()));
  now_ += absl::Hours(23.5);  // inside the 1h window
  auto ext = Service().appeals().Create(Request(kAuto, "24h"), "u@x.com");
  ASSERT_TRUE(ext.ok()) << ext.status();
  EXPECT_EQ(client_->revoked.size(), 0u);  // no gap
  int active = 0;
  for (auto& [id, g] : appeals_.state.grants) active += g.status() == "active";
  EXPECT_EQ(active, 1);
  // Both appeals stay approved (no "terminated"): the replaced one's grant
  // is inactive, so it can no longer be revoked, and the new one holds it.
  std::string old_id;
  for (auto& [id, a] : appeals_.state.appeals) {
    EXPECT_EQ(a.status(), "approved") << id;
    if (id != (*ext)[0].id()) old_id = id;
  }
  ASSERT_FALSE(old_id.empty());
  auto old = Service().appeals().Get(old_id);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->grant().status(), "inactive");
  EXPECT_EQ(old->revoked_by(), "system");
  auto again = Service().appeals().Revoke(old_id, {"s@x.com", true}, "r");
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();
  EXPECT_NE(again.status().message().find("no active grant"), std::string::npos);
  EXPECT_EQ(client_->revoked.size(), 0u);
  auto current = Service().appeals().Revoke((*ext)[0].id(), {"s@x.com", true}, "r");
  ASSERT_TRUE(current.ok()) << current.status();
  EXPECT_EQ(current->status(), "approved");
  EXPECT_EQ(current->grant().status(), "inactive");
}

TEST_F(AppealServiceTest, CancelRevokeAndBulkRules) {
  auto created = Service().appeals().Create(Request(kManual), "u@x.com");
  ASSERT_TRUE(created.ok());
  std::string id = (*created)[0].id();
  EXPECT_TRUE(absl::IsPermissionDenied(Service().appeals().Cancel(id, "other@x.com").status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(Service().appeals().Revoke(id, {"s@x.com", true}, "r").status()));
  auto canceled = Service().appeals().Cancel(id, "u@x.com");
  ASSERT_TRUE(canceled.ok()) << canceled.status();
  EXPECT_EQ(canceled->status(), "canceled");  // Guardian's spelling (was "cancelled")
  auto twice = Service().appeals().Cancel(id, "u@x.com");
  EXPECT_TRUE(absl::IsFailedPrecondition(twice.status()));
  EXPECT_NE(twice.status().message().find("is canceled"), std::string::npos) << twice.status();
  EXPECT_TRUE(absl::IsInvalidArgument(Service().grants().RevokeMany({}, "s@x.com", "r").status()));
  GrantSelector by_type;
  by_type.provider_types = {"fake"};  // finding H3: every grant of a provider type at once
  auto refused = Service().grants().RevokeMany(by_type, "s@x.com", "r");
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_NE(refused.status().message().find("account_ids"), std::string::npos);
  EXPECT_TRUE(absl::IsInvalidArgument(Service().appeals().Get("nope").status()));
}

TEST_F(AppealServiceTest, RevokeIsForAdminsAndTheGrantsOwnAccount) {
  auto created = Service().appeals().Create(Request(kAuto, "24h"), "u@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  std::string id = (*created)[0].id();
  EXPECT_TRUE(absl::IsPermissionDenied(Service().appeals().Revoke(id, {"eve@x.com", false}, "x").status()));
  EXPECT_TRUE(client_->revoked.empty());
  auto own = Service().appeals().Revoke(id, {"u@x.com", false}, "done");
  ASSERT_TRUE(own.ok()) << own.status();
  // Guardian's RevokeAppeal: the appeal stays approved, its grant inactive.
  EXPECT_EQ(own->status(), "approved");
  EXPECT_EQ(own->grant().status(), "inactive");
  EXPECT_EQ(own->revoked_by(), "u@x.com");
  EXPECT_EQ(own->revoke_reason(), "done");
  EXPECT_EQ(client_->revoked.size(), 1u);
  // Revoking again is refused (the access is gone), naming why.
  auto again = Service().appeals().Revoke(id, {"u@x.com", false}, "again");
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();
  EXPECT_NE(again.status().message().find("no active grant"), std::string::npos);
  EXPECT_EQ(client_->revoked.size(), 1u);
}

TEST_F(AppealServiceTest, ReadsAreScopedToCreatorAccountApproversAndAdmins) {
  auto created = Service().appeals().Create(Request(kManual), "u@x.com");
  ASSERT_TRUE(created.ok());
  std::string id = (*created)[0].id();
  EXPECT_TRUE(Service().appeals().GetFor(id, {"u@x.com", false}).ok());
  EXPECT_TRUE(Service().appeals().GetFor(id, {"o@x.com", false}).ok());  // approver
  EXPECT_TRUE(Service().appeals().GetFor(id, {"root@x.com", true}).ok());
  EXPECT_TRUE(absl::IsPermissionDenied(Service().appeals().GetFor(id, {"eve@x.com", false}).status()));

  ASSERT_TRUE(Service().approvals().Act(id, "owner", "approve", "o@x.com", "").ok());
  auto grant_id = Service().appeals().Get(id)->grant().id();
  EXPECT_TRUE(Service().grants().GetGrant(grant_id, {"u@x.com", false}).ok());
  EXPECT_TRUE(Service().grants().GetGrant(grant_id, {"o@x.com", false}).ok());  // the resource's approver
  EXPECT_TRUE(absl::IsPermissionDenied(Service().grants().GetGrant(grant_id, {"eve@x.com", false}).status()));
}

TEST_F(AppealServiceTest, BulkRevokeRevokesEachGrantOnItsOwn) {
  for (const char* u : {"u1@x.com", "u2@x.com", "u3@x.com"}) {
    ASSERT_TRUE(Service().appeals().Create(Request(kAuto, "24h"), u).ok());
  }
  client_->revoke_fail_account = "u2@x.com";  // the provider fails in the middle
  GrantSelector s;
  s.account_ids = {"u1@x.com", "u2@x.com", "u3@x.com"};
  auto result = Service().grants().RevokeMany(s, "admin@x.com", "offboarding");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->revoked.size(), 2u);
  ASSERT_EQ(result->failed.size(), 1u);
  EXPECT_EQ(result->failed[0].account_id(), "u2@x.com");
  EXPECT_NE(result->failed[0].error().find("refused"), std::string::npos);
  // The database agrees with the provider for every grant.
  for (const auto& [gid, g] : appeals_.state.grants) {
    EXPECT_EQ(g.status(), g.account_id() == "u2@x.com" ? "active" : "inactive") << g.account_id();
  }
  EXPECT_EQ(client_->revoked.size(), 2u);
}

TEST_F(AppealServiceTest, EveryProviderCallIsJournaledAndSettled) {
  auto created = Service().appeals().Create(Request(kAuto, "24h"), "u@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(Service().appeals().Revoke((*created)[0].id(), {"u@x.com", false}, "done").ok());
  EXPECT_EQ(journal_.Statuses(),
            (std::vector<std::string>{"grant:committed", "revoke:committed"}));

  // A failed provider call is settled as failed; a rollback as compensated.
  client_->grant_error = absl::UnavailableError("provider down");
  EXPECT_FALSE(Service().appeals().Create(Request(kAuto, "24h"), "v@x.com").ok());
  client_->grant_error = absl::OkStatus();
  appeals_.insert_grant_error = absl::UnavailableError("db down");
  EXPECT_FALSE(Service().appeals().Create(Request(kAuto, "24h"), "w@x.com").ok());
  EXPECT_EQ(journal_.Statuses(),
            (std::vector<std::string>{"grant:committed", "revoke:committed", "grant:failed",
                                      "grant:compensated"}));
  // No journal, no provider call.
  appeals_.insert_grant_error = absl::OkStatus();
  journal_.begin_error = absl::UnavailableError("journal down");
  size_t granted = client_->granted.size();
  EXPECT_FALSE(Service().appeals().Create(Request(kAuto, "24h"), "z@x.com").ok());
  EXPECT_EQ(client_->granted.size(), granted);
}

TEST_F(AppealServiceTest, ProviderValidatesTheAccountBeforeAnythingIsStored) {
  client_->account_error = absl::InvalidArgumentError("account_id: \"public\" is PUBLIC");
  auto refused = Service().appeals().Create(Request(kAuto, "24h"), "public");
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << refused.status();
  EXPECT_NE(refused.status().message().find("resources[0]: account_id:"), std::string::npos)
      << refused.status();
  EXPECT_EQ(client_->validated_accounts, std::vector<std::string>{"public"});
  EXPECT_TRUE(client_->granted.empty());
  EXPECT_TRUE(appeals_.state.appeals.empty());
  client_->account_error = absl::OkStatus();
  ASSERT_TRUE(Service().appeals().Create(Request(kAuto, "24h"), "u@x.com").ok());
  EXPECT_EQ(client_->validated_accounts.back(), "u@x.com");
}

// Review F-H2: a plugin's account form (Google's: lower case) is what the
// appeal and grant store and what every provider call carries; the account
// still acts on its grant in the casing its identity has.
TEST_F(AppealServiceTest, AccountsAreStoredInThePluginsForm) {
  client_->lower_case_accounts = true;
  auto created = Service().appeals().Create(Request(kAuto, "24h"), "Jane.Doe@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ((*created)[0].account_id(), "jane.doe@x.com");
  EXPECT_EQ(client_->validated_accounts.back(), "jane.doe@x.com");
  ASSERT_EQ(client_->granted.size(), 1u);
  EXPECT_EQ(client_->granted[0].account_id, "jane.doe@x.com");
  auto revoked = Service().appeals().Revoke((*created)[0].id(), {"Jane.Doe@x.com", false}, "done");
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  ASSERT_EQ(client_->revoked.size(), 1u);
  EXPECT_EQ(client_->revoked[0].account_id, "jane.doe@x.com");
}

// Review F-M3: what the plugin returns at grant time is kept on the grant
// and handed back at revoke, with the account's other active grants on the
// provider when the plugin asks for them.
TEST_F(AppealServiceTest, ProviderStateIsKeptOnTheGrantAndPassedToRevoke) {
  client_->uses_other_grants = true;
  client_->grant_state = R"({"site_role_before":"Viewer"})";
  auto first = Service().appeals().Create(Request(kAuto, "24h"), "u@x.com");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)[0].grant().provider_state(), client_->grant_state);
  client_->grant_state = R"({"site_role_before":"Explorer"})";
  auto second = Service().appeals().Create(Request(kManual, "24h"), "u@x.com");
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_TRUE(Service().approvals().Act((*second)[0].id(), "owner", "approve", "o@x.com", "ok").ok());
  ASSERT_EQ(client_->granted.size(), 2u);
  ASSERT_EQ(client_->granted[1].other_grants.size(), 1u) << "the first grant is active";
  EXPECT_EQ(client_->granted[1].other_grants[0].resource_urn, "urn-auto");
  EXPECT_EQ(client_->granted[1].other_grants[0].provider_state, R"({"site_role_before":"Viewer"})");

  ASSERT_TRUE(Service().appeals().Revoke((*first)[0].id(), {"u@x.com", false}, "done").ok());
  ASSERT_EQ(client_->revoked.size(), 1u);
  EXPECT_EQ(client_->revoked[0].provider_state, R"({"site_role_before":"Viewer"})");
  ASSERT_EQ(client_->revoked[0].other_grants.size(), 1u);
  EXPECT_EQ(client_->revoked[0].other_grants[0].resource_urn, "urn-manual");
  EXPECT_EQ(client_->revoked[0].other_grants[0].permissions, std::vector<std::string>{"read"});
  ASSERT_TRUE(Service().appeals().Revoke((*second)[0].id(), {"u@x.com", false}, "done").ok());
  ASSERT_EQ(client_->revoked.size(), 2u);
  EXPECT_EQ(client_->revoked[1].provider_state, R"({"site_role_before":"Explorer"})");
  EXPECT_TRUE(client_->revoked[1].other_grants.empty()) << "the revoked grant is not its own peer";
}

// Finding L8: without duration_options any duration was accepted, so
// "876000h" was permanent access even where permanent access is not allowed.
TEST_F(AppealServiceTest, DurationsAreCappedAndPermanentAccessNeedsAPolicyThatAllowsIt) {
  // Policy "auto" lists no duration_options and does not allow permanent access.
  auto permanent = Service().appeals().Create(Request(kAuto), "u@x.com");
  EXPECT_TRUE(absl::IsInvalidArgument(permanent.status())) << permanent.status();
  EXPECT_NE(permanent.status().message().find("options.duration: required"), std::string::npos);
  auto forever = Service().appeals().Create(Request(kAuto, "876000h"), "u@x.com");
  EXPECT_TRUE(absl::IsInvalidArgument(forever.status())) << forever.status();
  EXPECT_NE(forever.status().message().find("access.max_grant_duration"), std::string::npos);
  EXPECT_TRUE(client_->granted.empty());
  auto longest = Service().appeals().Create(Request(kAuto, "2160h"), "u@x.com");  // the default cap
  ASSERT_TRUE(longest.ok()) << longest.status();
  EXPECT_EQ(FromTimestamp((*longest)[0].grant().expiration_date()), now_ + absl::Hours(2160));

  AccessServices short_cap(&appeals_, &resources_, &policies_, providers_.get(), registry_.get(),
                          nullptr, [this] { return now_; }, AppealLimits{absl::Hours(1)});
  EXPECT_TRUE(absl::IsInvalidArgument(short_cap.appeals().Create(Request(kAuto, "90m"), "v@x.com").status()));
  EXPECT_TRUE(short_cap.appeals().Create(Request(kAuto, "1h"), "v@x.com").ok());
}

TEST_F(AppealServiceTest, ResourcesPerRequestAreBounded) {
  pb::CreateAppealRequest req;
  for (int i = 0; i <= kMaxAppealResources; ++i) *req.add_resources() = Request(kAuto, "1h").resources(0);
  auto st = Service().appeals().Create(req, "u@x.com").status();
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  EXPECT_EQ(st.message().rfind("resources: at most 100", 0), 0u) << st;
  EXPECT_TRUE(appeals_.state.appeals.empty());
}

// Issue 17: Guardian's policy questions, answered in
// details.__policy_questions.
TEST_F(AppealServiceTest, RequiredQuestionsMustBeAnswered) {
  SetManualPolicy(R"({"steps": [{"name": "owner", "strategy": "manual", "approvers": ["o@x.com"]}],
      "appeal": {"allow_permanent_access": true, "questions": [
        {"key": "team", "question": "Which team?", "required": true},
        {"key": "why", "question": "Why?"}]}})");
  auto missing = Service().appeals().Create(Request(kManual), "u@x.com");
  EXPECT_TRUE(absl::IsInvalidArgument(missing.status())) << missing.status();
  EXPECT_NE(missing.status().message().find("details.__policy_questions.team"), std::string::npos)
      << missing.status();
  pb::CreateAppealRequest req = Request(kManual);
  ASSERT_TRUE(JsonStringToProto(R"({"__policy_questions": {"team": ""}})",
                                req.mutable_resources(0)->mutable_details()).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(Service().appeals().Create(req, "u@x.com").status()));  // empty
  ASSERT_TRUE(JsonStringToProto(R"({"__policy_questions": {"team": "data"}})",
                                req.mutable_resources(0)->mutable_details()).ok());
  auto created = Service().appeals().Create(req, "u@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ((*created)[0].details().fields().at("__policy_questions").struct_value()
                .fields().at("team").string_value(), "data");
}

// Issue 17: Guardian's dont_allow_self_approval; a step nobody but the
// requester or creator could approve rejects the appeal at creation.
TEST_F(AppealServiceTest, AStepLeftWithoutApproversRejectsTheAppealAtCreation) {
  SetManualPolicy(R"({"steps": [{"name": "owner", "strategy": "manual", "approvers": ["o@x.com"],
      "dont_allow_self_approval": true}], "appeal": {"allow_permanent_access": true}})");
  auto stuck = Service().appeals().Create(Request(kManual), "o@x.com");
  EXPECT_TRUE(absl::IsFailedPrecondition(stuck.status())) << stuck.status();
  EXPECT_NE(stuck.status().message().find("step \"owner\""), std::string::npos);
  EXPECT_TRUE(appeals_.state.appeals.empty());
  // On behalf is not allowed by this policy; a second approver makes it work.
  SetManualPolicy(R"({"steps": [{"name": "owner", "strategy": "manual",
      "approvers": ["o@x.com", "p@x.com"], "dont_allow_self_approval": true}],
      "appeal": {"allow_permanent_access": true}})");
  auto created = Service().appeals().Create(Request(kManual), "o@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  std::string id = (*created)[0].id();
  EXPECT_TRUE(absl::IsPermissionDenied(Service().approvals().Act(id, "owner", "approve", "o@x.com", "").status()));
  EXPECT_TRUE(Service().approvals().Act(id, "owner", "approve", "p@x.com", "").ok());
}

// Issue 17: AdditionalAppeal.policy is honoured; a soft failure is recorded
// on the appeal.
TEST_F(AppealServiceTest, RequirementPolicyOverrideAndSoftFailure) {
  SetManualPolicy(absl::StrCat(R"({"steps": [{"name": "owner", "strategy": "manual",
      "approvers": ["o@x.com"]}], "appeal": {"allow_permanent_access": true},
      "requirements": [{"on": {"role": "viewer"}, "appeals": [
        {"resource": {"id": ")", kAuto, R"("}, "role": "viewer", "options": {"duration": "24h"},
         "policy": {"id": "pol", "version": 1}},
        {"resource": {"id": "00000000-0000-0000-0000-000000000009"}, "role": "viewer"}]}]})"));
  auto created = Service().appeals().Create(Request(kManual), "u@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  auto done = Service().approvals().Act((*created)[0].id(), "owner", "approve", "o@x.com", "");
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status(), "approved");
  // The auto resource's own policy would approve at once; "pol" v1 waits.
  auto additional = AppealsOn(kAuto);
  ASSERT_EQ(additional.size(), 1u);
  EXPECT_EQ(additional[0].status(), "pending");
  EXPECT_EQ(additional[0].policy_id(), "pol");
  EXPECT_EQ(client_->granted.size(), 1u);
  ASSERT_EQ(done->requirement_failures_size(), 1);
  EXPECT_EQ(done->requirement_failures(0).appeal(), 1);
  EXPECT_EQ(appeals_.state.appeals.at(done->id()).requirement_failures_size(), 1);  // stored
}

// Issue 17: a hard requirement's appeals are created with the approval, and
// their failure fails it (the provider grant is compensated).
TEST_F(AppealServiceTest, HardRequirementFailsTheApproval) {
  SetManualPolicy(R"({"steps": [{"name": "owner", "strategy": "manual",
      "approvers": ["o@x.com"]}], "appeal": {"allow_permanent_access": true},
      "requirements": [{"on": {"role": "viewer"}, "on_failure": "hard", "appeals": [
        {"resource": {"id": "00000000-0000-0000-0000-000000000009"}, "role": "viewer"}]}]})");
  auto created = Service().appeals().Create(Request(kManual), "u@x.com");
  ASSERT_TRUE(created.ok()) << created.status();
  std::string id = (*created)[0].id();
  auto failed = Service().approvals().Act(id, "owner", "approve", "o@x.com", "");
  EXPECT_TRUE(absl::IsFailedPrecondition(failed.status())) << failed.status();
  EXPECT_NE(failed.status().message().find("requirements[0].appeals[0]"), std::string::npos);
  EXPECT_EQ(appeals_.state.appeals.at(id).status(), "pending");
  EXPECT_EQ(client_->granted.size(), client_->revoked.size());  // no access left behind
  // A satisfiable hard requirement: the additional appeal (auto policy) is
  // granted in the same transaction.
  ASSERT_TRUE(Service().appeals().Cancel(id, "u@x.com").ok());
  SetManualPolicy(absl::StrCat(R"({"steps": [{"name": "owner", "strategy": "manual",
      "approvers": ["o@x.com"]}], "appeal": {"allow_permanent_access": true},
      "requirements": [{"on": {"role": "viewer"}, "on_failure": "hard", "appeals": [
        {"resource": {"id": ")", kAuto, R"("}, "role": "viewer", "options": {"duration": "24h"}}]}]})"));
  auto again = Service().appeals().Create(Request(kManual), "u@x.com");
  ASSERT_TRUE(again.ok()) << again.status();
  auto done = Service().approvals().Act((*again)[0].id(), "owner", "approve", "o@x.com", "");
  ASSERT_TRUE(done.ok()) << done.status();
  auto additional = AppealsOn(kAuto);
  ASSERT_EQ(additional.size(), 1u);
  EXPECT_EQ(additional[0].status(), "approved");
}

}  // namespace
}  // namespace sluice::access
