// Issue 28's store methods against real PostgreSQL (fresh database per
// test): PatchAppeal's ReplaceAppeal (stale approvals), appeal comments,
// ListUserRoles, ResourceRepository::Create and ProviderRepository::ResourceTypes.
#include <gtest/gtest.h>

#include "server/access/core/json.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/postgres_repositories.h"
#include "server/access/store/testing/store_test.h"

namespace sluice::access {
namespace {

class RoutesStoreTest : public testing::StoreTest {
 protected:
  // A noop provider "urn1" with resources of type t (urns a, b) and u (urn c);
  // returns the id of resource a.
  std::string SeedResources() {
    PostgresProviderRepository providers(pool_.get());
    StoredProvider sp;
    sp.provider.set_type("noop");
    sp.provider.set_urn("urn1");
    sp.provider.mutable_config()->set_type("noop");
    std::vector<pb::Resource> rs;
    for (auto [type, urn] : {std::pair{"t", "a"}, {"t", "b"}, {"u", "c"}}) {
      pb::Resource r;
      r.set_type(type);
      r.set_urn(urn);
      rs.push_back(r);
    }
    auto created = providers.Create(sp, rs, {"provider.create", "a@x.com"});
    EXPECT_TRUE(created.ok()) << created.status();
    PostgresResourceRepository resources(pool_.get());
    ResourceFilter f;
    f.urn = "a";
    auto list = resources.List(f, Page{}, nullptr);
    EXPECT_TRUE(list.ok() && list->size() == 1u);
    return list.ok() && !list->empty() ? (*list)[0].id() : "";
  }

  static pb::Appeal NewAppeal(const std::string& rid, const std::string& role,
                              const std::vector<std::string>& steps) {
    pb::Appeal a;
    a.set_resource_id(rid);
    a.set_policy_id("p1");
    a.set_policy_version(1);
    a.set_status("pending");
    a.set_account_id("u@x.com");
    a.set_account_type("user");
    a.set_role(role);
    a.set_created_by("u@x.com");
    for (const auto& step : steps) {
      pb::Approval* p = a.add_approvals();
      p->set_name(step);
      p->set_status("pending");
      p->add_approvers("o@x.com");
      p->set_policy_id("p1");
      p->set_policy_version(1);
    }
    return a;
  }

  absl::StatusOr<pb::Appeal> Load(PostgresAppealRepository& repo, const std::string& id) {
    absl::StatusOr<pb::Appeal> got = absl::NotFoundError("");
    absl::Status st = repo.InTransaction([&](AccessTx& tx) {
      got = tx.GetAppeal(id, false);
      return got.status();
    });
    if (!st.ok()) return st;
    return got;
  }
};

TEST_F(RoutesStoreTest, ReplaceAppealKeepsEarlierApprovalsAsStale) {
  std::string rid = SeedResources();
  PostgresAppealRepository repo(pool_.get());
  pb::Appeal a = NewAppeal(rid, "viewer", {"owner", "lead"});
  ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&a); }).ok());
  std::string old_first = a.approvals(0).id();

  pb::Appeal patched = NewAppeal(rid, "admin", {"owner"});
  patched.set_id(a.id());
  patched.set_revision(1);
  patched.mutable_approvals(0)->set_appeal_revision(1);
  patched.set_description("more");
  ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) { return tx.ReplaceAppeal(&patched); }).ok());
  ASSERT_FALSE(patched.approvals(0).id().empty());
  EXPECT_NE(patched.approvals(0).id(), old_first);

  auto got = Load(repo, a.id());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->role(), "admin");
  EXPECT_EQ(got->revision(), 1u);
  EXPECT_EQ(got->description(), "more");
  ASSERT_EQ(got->approvals_size(), 1);  // only the current revision's
  EXPECT_EQ(got->approvals(0).appeal_revision(), 1u);
  EXPECT_FALSE(got->approvals(0).is_stale());

  // The stale ones stay, without approvers, and are not listed.
  int stale = 0, with_approvers = 1;
  ASSERT_TRUE(pool_->Run([&](soci::session& sql) {
    sql << "SELECT count(*) FROM approvals WHERE is_stale", soci::into(stale);
    sql << "SELECT count(*) FROM approvals WHERE is_stale AND approvers <> '[]'::jsonb",
        soci::into(with_approvers);
    return absl::OkStatus();
  }).ok());
  EXPECT_EQ(stale, 2);
  EXPECT_EQ(with_approvers, 0);
  ApprovalFilter f;
  f.approver = "o@x.com";
  int total = 0;
  auto listed = repo.ListApprovals(f, &total);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(total, 1);

  // Another pending appeal for the same access wins: AlreadyExists.
  pb::Appeal other = NewAppeal(rid, "viewer", {"owner"});
  ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&other); }).ok());
  pb::Appeal clash = NewAppeal(rid, "viewer", {"owner"});
  clash.set_id(a.id());
  clash.set_revision(2);
  EXPECT_TRUE(absl::IsAlreadyExists(
      repo.InTransaction([&](AccessTx& tx) { return tx.ReplaceAppeal(&clash); })));
}

TEST_F(RoutesStoreTest, CommentsInOrderWithAudit) {
  std::string rid = SeedResources();
  PostgresAppealRepository repo(pool_.get());
  pb::Appeal a = NewAppeal(rid, "viewer", {"owner"});
  ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&a); }).ok());
  for (const char* body : {"first", "second"}) {
    pb::AppealComment c;
    c.set_appeal_id(a.id());
    c.set_created_by("u@x.com");
    c.set_body(body);
    ASSERT_TRUE(repo.InsertComment(&c, {"appeal.comment", "u@x.com"}).ok());
    EXPECT_FALSE(c.id().empty());
    EXPECT_EQ(c.body(), body);
    EXPECT_GT(c.created_at().seconds(), 0);
  }
  auto oldest = repo.ListComments(a.id(), false);
  ASSERT_TRUE(oldest.ok()) << oldest.status();
  ASSERT_EQ(oldest->size(), 2u);
  EXPECT_EQ((*oldest)[0].body(), "first");
  auto newest = repo.ListComments(a.id(), true);
  ASSERT_TRUE(newest.ok());
  EXPECT_EQ((*newest)[0].body(), "second");
  EXPECT_TRUE(repo.ListComments("00000000-0000-0000-0000-000000000000", false)->empty());
  int audits = 0;
  ASSERT_TRUE(pool_->Run([&](soci::session& sql) {
    sql << "SELECT count(*) FROM audit_logs WHERE action = 'appeal.comment' AND data ? 'id'",
        soci::into(audits);
    return absl::OkStatus();
  }).ok());
  EXPECT_EQ(audits, 2);
}

TEST_F(RoutesStoreTest, AppealAuditByActionAndAppealNewestFirst) {
  PostgresAppealRepository repo(pool_.get());
  const std::string a = "11111111-1111-1111-1111-111111111111";
  const std::string b = "22222222-2222-2222-2222-222222222222";
  ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) -> absl::Status {
    for (const AuditEntry& e :
         {AuditEntry{"appeal.create", "u@x.com", {{"resource_id", "r"}}},
          AuditEntry{"appeal.approve", "o@x.com", {{"id", a}, {"approval", "owner"}}},
          AuditEntry{"appeal.cancel", "u@x.com", {{"id", b}}},
          AuditEntry{"appeal.comment", "u@x.com", {{"appeal_id", a}}},
          AuditEntry{"appeal.revoke", "admin@x.com", {{"appeal_id", a}, {"grant_id", "g"}}}}) {
      if (auto s = tx.Audit(e); !s.ok()) return s;
    }
    return absl::OkStatus();
  }).ok());
  auto got = repo.ListAppealAudit(a, {"appeal.approve", "appeal.cancel", "appeal.revoke"});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  // One transaction: one timestamp, so the id breaks the tie (newest first).
  EXPECT_EQ((*got)[0].action(), "appeal.revoke");
  EXPECT_EQ((*got)[0].actor(), "admin@x.com");
  EXPECT_EQ((*got)[0].data().fields().at("grant_id").string_value(), "g");
  EXPECT_EQ((*got)[1].action(), "appeal.approve");
  EXPECT_GT((*got)[1].timestamp().seconds(), 0);
  EXPECT_TRUE(repo.ListAppealAudit(a, {})->empty());
  EXPECT_TRUE(repo.ListAppealAudit("nope", {"appeal.approve"})->empty());
}

TEST_F(RoutesStoreTest, UserRolesAreTheDistinctRolesOfActiveOwnedGrants) {
  std::string rid = SeedResources();
  PostgresAppealRepository repo(pool_.get());
  auto grant = [&](const std::string& account, const std::string& role, const std::string& status,
                   const std::string& owner) {
    pb::Grant g;
    g.set_status(status);
    g.set_account_id(account);
    g.set_account_type("user");
    g.set_resource_id(rid);
    g.set_role(role);
    g.set_is_permanent(true);
    g.set_source("import");
    g.set_owner(owner);
    ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) { return tx.InsertGrant(&g); }).ok());
  };
  grant("me@x.com", "viewer", "active", "me@x.com");
  grant("sa-1", "viewer", "active", "me@x.com");
  grant("sa-2", "editor", "active", "me@x.com");
  grant("sa-3", "admin", "inactive", "me@x.com");
  grant("you@x.com", "owner", "active", "you@x.com");
  auto roles = repo.ListUserRoles("me@x.com");
  ASSERT_TRUE(roles.ok()) << roles.status();
  EXPECT_EQ(*roles, (std::vector<std::string>{"editor", "viewer"}));
  EXPECT_TRUE(repo.ListUserRoles("nobody@x.com")->empty());
}

TEST_F(RoutesStoreTest, CreateResourceAndResourceTypes) {
  SeedResources();
  PostgresResourceRepository resources(pool_.get());
  pb::Resource r;
  r.set_provider_type("noop");
  r.set_provider_urn("urn1");
  r.set_type("v");
  r.set_urn("extra");
  r.set_name("Extra");
  *r.mutable_details() = JsonToStruct(nlohmann::json{{"owner", "o@x.com"}});
  (*r.mutable_labels())["team"] = "data";
  auto created = resources.Create(r, {"resource.create", "a@x.com"});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_FALSE(created->id().empty());
  EXPECT_EQ(created->name(), "Extra");
  EXPECT_EQ(created->labels().at("team"), "data");
  EXPECT_EQ(StructToJson(created->details())["owner"], "o@x.com");
  auto dup = resources.Create(r, {"resource.create", "a@x.com"});
  EXPECT_TRUE(absl::IsAlreadyExists(dup.status())) << dup.status();

  PostgresProviderRepository providers(pool_.get());
  auto types = providers.ResourceTypes();
  ASSERT_TRUE(types.ok()) << types.status();
  EXPECT_EQ(types->at("noop"), (std::vector<std::string>{"t", "u", "v"}));
  ASSERT_TRUE(resources.Delete(created->id(), {"resource.delete", "a@x.com"}).ok());
  EXPECT_EQ(providers.ResourceTypes()->at("noop"), (std::vector<std::string>{"t", "u"}));
}

TEST_F(RoutesStoreTest, AppendedStepsAndTheirDetails) {
  std::string rid = SeedResources();
  PostgresAppealRepository repo(pool_.get());
  pb::Appeal a = NewAppeal(rid, "viewer", {"owner"});
  ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&a); }).ok());
  pb::Approval* added = a.add_approvals();
  added->set_name("security");
  added->set_status("blocked");
  added->add_approvers("sec@x.com");
  added->set_policy_id("p1");
  added->set_policy_version(1);
  *added->mutable_details() = JsonToStruct(nlohmann::json{{"ticket", "SEC-1"}});
  ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) { return tx.AppendApprovals(&a, 1); }).ok());
  ASSERT_FALSE(a.approvals(1).id().empty());
  ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) {
    return tx.UpdateApprovalDetails(a.approvals(1).id(),
                                    JsonToStruct(nlohmann::json{{"ticket", "SEC-2"}}));
  }).ok());
  auto got = Load(repo, a.id());
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->approvals_size(), 2);
  EXPECT_EQ(got->approvals(1).name(), "security");
  EXPECT_EQ(got->approvals(1).status(), "blocked");
  EXPECT_EQ(StructToJson(got->approvals(1).details())["ticket"], "SEC-2");
  EXPECT_EQ(got->approvals(0).details().fields_size(), 0);
}

TEST_F(RoutesStoreTest, ApprovalSummariesGroupAndFilter) {
  std::string rid = SeedResources();
  PostgresAppealRepository repo(pool_.get());
  for (const char* role : {"viewer", "editor", "owner"}) {
    pb::Appeal a = NewAppeal(rid, role, {"first", "second"});
    a.mutable_approvals(1)->set_status("blocked");
    if (std::string(role) == "owner") a.mutable_approvals(0)->set_approvers(0, "other@x.com");
    ASSERT_TRUE(repo.InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&a); }).ok());
  }
  ApprovalSummaryQuery q;
  q.group_columns = {"p.status"};
  auto all = repo.SummarizeApprovals(q);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].first, std::vector<std::string>{"blocked"});
  EXPECT_EQ((*all)[0].second, 3);
  EXPECT_EQ((*all)[1].first, std::vector<std::string>{"pending"});
  q.approvers = {"o@x.com"};
  q.statuses = {"pending"};
  q.group_columns = {"p.status", "a.role"};
  auto mine = repo.SummarizeApprovals(q);
  ASSERT_TRUE(mine.ok()) << mine.status();
  ASSERT_EQ(mine->size(), 2u);  // editor and viewer; the owner appeal's step is other@'s
  EXPECT_EQ((*mine)[0].first, (std::vector<std::string>{"pending", "editor"}));
  EXPECT_EQ((*mine)[1].second, 1);
}

}  // namespace
}  // namespace sluice::access
