// The grant lifecycle's store paths against real PostgreSQL: an imported
// grant without an appeal, reading a grant in a transaction, UpdateGrant
// writing owner, restore and expiration fields, and what a non-admin's
// lists (visible_to) contain.
#include <gtest/gtest.h>

#include <set>

#include "server/access/store/testing/store_test.h"
#include "server/access/core/validation.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/postgres_repositories.h"

namespace sluice::access {
namespace {

class GrantStoreTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (HasFatalFailure()) return;
    rid_ = CreateResource("table", "t1");
  }

  std::string rid_;
};

TEST_F(GrantStoreTest, ImportedGrantRoundTripsWithOwnerAndRestoreFields) {
  PostgresAppealRepository appeals(pool_.get());
  pb::Grant g;
  g.set_status("active");
  g.set_status_in_provider("active");
  g.set_account_id("u@x.com");
  g.set_account_type("user");
  g.set_resource_id(rid_);
  g.set_role("viewer");
  g.add_permissions("SELECT");
  g.set_is_permanent(true);
  g.set_source("import");
  g.set_provider_state(R"({"site_role_before":"Viewer"})");
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) { return tx.InsertGrant(&g); }).ok());
  ASSERT_FALSE(g.id().empty());

  absl::Time restored = absl::FromUnixSeconds(1800000000), expires = restored + absl::Hours(5);
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) -> absl::Status {
    auto got = tx.GetGrant(g.id(), /*for_update=*/true);
    if (!got.ok()) return got.status();
    EXPECT_EQ(got->resource().urn(), "t1");
    EXPECT_TRUE(got->appeal_id().empty());
    EXPECT_EQ(got->provider_state(), R"({"site_role_before":"Viewer"})");
    got->set_provider_state(R"({"site_role_before":"Explorer"})");
    got->set_owner("v@x.com");
    got->set_restored_by("admin@x.com");
    *got->mutable_restored_at() = ToTimestamp(restored);
    got->set_restore_reason("mistake");
    got->set_is_permanent(false);
    *got->mutable_expiration_date() = ToTimestamp(expires);
    got->set_expiration_date_reason("restored");
    return tx.UpdateGrant(*got);
  }).ok());
  auto read = appeals.GetGrant(g.id());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->source(), "import");
  EXPECT_EQ(read->owner(), "v@x.com");
  EXPECT_EQ(read->restored_by(), "admin@x.com");
  EXPECT_EQ(FromTimestamp(read->restored_at()), restored);
  EXPECT_EQ(read->restore_reason(), "mistake");
  EXPECT_FALSE(read->is_permanent());
  EXPECT_EQ(FromTimestamp(read->expiration_date()), expires);
  EXPECT_EQ(read->expiration_date_reason(), "restored");
  EXPECT_EQ(read->provider_state(), R"({"site_role_before":"Explorer"})");  // review F-M3

  // By provider: the grant is found with its resource.
  std::vector<pb::Grant> active;
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) -> absl::Status {
    GrantSelector s;
    s.provider_types = {"noop"};
    auto found = tx.FindActiveGrants(s, 10);
    if (found.ok()) active = *found;
    return found.status();
  }).ok());
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].id(), g.id());

  absl::Status missing = appeals.InTransaction([&](AccessTx& tx) {
    return tx.GetGrant("00000000-0000-0000-0000-000000000000", false).status();
  });
  EXPECT_TRUE(absl::IsNotFound(missing)) << missing;
}

// What a non-admin sees (finding F-L1 rewrote the visible_to filter to be
// index-driven; the rows must stay exactly these): the grants they hold or
// own and the grants of resources whose appeals list them as approver; the
// appeals they created, are the account of, or approve.
class VisibilityTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (HasFatalFailure()) return;
    PostgresProviderRepository providers(pool_.get());
    StoredProvider sp;
    sp.provider.set_type("noop");
    sp.provider.set_urn("urn1");
    sp.provider.mutable_config()->set_type("noop");
    std::vector<pb::Resource> rs;
    for (const char* urn : {"r1", "r2", "r3"}) {
      pb::Resource r;
      r.set_type("table");
      r.set_urn(urn);
      rs.push_back(r);
    }
    ASSERT_TRUE(providers.Create(sp, rs, {"provider.create", "a@x.com"}).ok());
    auto list = PostgresResourceRepository(pool_.get()).List(ResourceFilter{}, Page{}, nullptr);
    ASSERT_TRUE(list.ok() && list->size() == 3u);
    for (const auto& r : *list) rid_[r.urn()] = r.id();
    appeals_ = std::make_unique<PostgresAppealRepository>(pool_.get());
  }
  std::string Grant(const std::string& account, const std::string& owner, const std::string& urn,
                    const std::string& status = "active") {
    pb::Grant g;
    g.set_status(status);
    g.set_account_id(account);
    g.set_account_type("user");
    g.set_resource_id(rid_[urn]);
    g.set_role("viewer");
    g.set_is_permanent(true);
    g.set_source("import");
    g.set_owner(owner);
    EXPECT_TRUE(appeals_->InTransaction([&](AccessTx& tx) { return tx.InsertGrant(&g); }).ok());
    return g.id();
  }
  std::string Appeal(const std::string& account, const std::string& creator, const std::string& urn,
                     std::vector<std::string> approvers) {
    pb::Appeal a;
    a.set_resource_id(rid_[urn]);
    a.set_policy_id("p1");
    a.set_policy_version(1);
    a.set_status("pending");
    a.set_account_id(account);
    a.set_account_type("user");
    a.set_role(absl::StrCat("role-", ++roles_));
    a.set_created_by(creator);
    pb::Approval* p = a.add_approvals();
    p->set_name("owner");
    p->set_status("pending");
    for (const auto& e : approvers) p->add_approvers(e);
    p->set_policy_id("p1");
    p->set_policy_version(1);
    EXPECT_TRUE(appeals_->InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&a); }).ok());
    return a.id();
  }
  std::set<std::string> GrantIds(GrantFilter f, int* total) {
    auto got = appeals_->ListGrants(f, total);
    EXPECT_TRUE(got.ok()) << got.status();
    std::set<std::string> ids;
    if (got.ok()) {
      for (const auto& g : *got) ids.insert(g.id());
    }
    return ids;
  }
  std::set<std::string> AppealIds(AppealFilter f, int* total) {
    auto got = appeals_->ListAppeals(f, total);
    EXPECT_TRUE(got.ok()) << got.status();
    std::set<std::string> ids;
    if (got.ok()) {
      for (const auto& a : *got) ids.insert(a.id());
    }
    return ids;
  }
  std::unique_ptr<PostgresAppealRepository> appeals_;
  std::map<std::string, std::string> rid_;
  int roles_ = 0;
};

TEST_F(VisibilityTest, NonAdminSeesExactlyOwnOwnedAndApproverRows) {
  const std::string u = "u@x.com";
  // Appeals: u approves one on r1 (so every grant of r1 is u's to see), is
  // the account of one and the creator of another on r2; the others are
  // someone else's, including one on r1 whose approver is z.
  std::string a_approver = Appeal("o6@x.com", "o6@x.com", "r1", {"z@x.com", u});
  std::string a_account = Appeal(u, "o7@x.com", "r2", {"z@x.com"});
  std::string a_creator = Appeal("o8@x.com", u, "r2", {"z@x.com"});
  Appeal("o9@x.com", "o9@x.com", "r1", {"z@x.com"});
  Appeal("o10@x.com", "o10@x.com", "r3", {"uu@x.com", "xu@x.com"});
  Appeal("u@x.co", "u@x.co", "r3", {"u@x.co"});  // a prefix of u is someone else
  // Grants: held, owned (also inactive), on r1 (approver), and others.
  std::string g_held = Grant(u, "o1@x.com", "r3");
  std::string g_owned = Grant("o2@x.com", u, "r3", "inactive");
  std::string g_r1a = Grant("o3@x.com", "o3@x.com", "r1");
  std::string g_r1b = Grant("o4@x.com", "", "r1", "inactive");
  std::string g_both = Grant(u, u, "r2");
  Grant("o5@x.com", "o5@x.com", "r2");
  Grant("o11@x.com", "o11@x.com", "r3");
  Grant("U@X.COM", "u@x.co", "r3");

  GrantFilter gf;
  gf.visible_to = u;
  int total = 0;
  EXPECT_EQ(GrantIds(gf, &total), (std::set<std::string>{g_held, g_owned, g_r1a, g_r1b, g_both}));
  EXPECT_EQ(total, 5);
  // With other filters and paging, over the same set.
  gf.statuses = {"active"};
  EXPECT_EQ(GrantIds(gf, &total), (std::set<std::string>{g_held, g_r1a, g_both}));
  EXPECT_EQ(total, 3);
  gf.statuses.clear();
  gf.size = 2;
  std::set<std::string> paged = GrantIds(gf, &total);
  gf.offset = 2;
  for (const auto& id : GrantIds(gf, &total)) paged.insert(id);
  gf.offset = 4;
  for (const auto& id : GrantIds(gf, &total)) paged.insert(id);
  EXPECT_EQ(total, 5);
  EXPECT_EQ(paged, (std::set<std::string>{g_held, g_owned, g_r1a, g_r1b, g_both}));
  gf = GrantFilter();
  gf.visible_to = u;
  gf.q = "r1";  // the resource join applies to the visible set as well
  EXPECT_EQ(GrantIds(gf, &total), (std::set<std::string>{g_r1a, g_r1b}));
  // Someone who is nobody's approver, holder or owner sees nothing.
  gf = GrantFilter();
  gf.visible_to = "nobody@x.com";
  EXPECT_TRUE(GrantIds(gf, &total).empty());
  EXPECT_EQ(total, 0);
  // An admin (no visible_to) sees all eight.
  EXPECT_EQ(GrantIds(GrantFilter(), &total).size(), 8u);

  AppealFilter af;
  af.visible_to = u;
  EXPECT_EQ(AppealIds(af, &total), (std::set<std::string>{a_approver, a_account, a_creator}));
  EXPECT_EQ(total, 3);
  af.size = 1;
  af.offset = 2;
  EXPECT_EQ(AppealIds(af, &total).size(), 1u);
  EXPECT_EQ(total, 3);
  af = AppealFilter();
  af.visible_to = u;
  af.resource_urns = {"r2"};
  EXPECT_EQ(AppealIds(af, &total), (std::set<std::string>{a_account, a_creator}));
  af.visible_to = "nobody@x.com";
  af.resource_urns.clear();
  EXPECT_TRUE(AppealIds(af, &total).empty());
  EXPECT_EQ(total, 0);
}

}  // namespace
}  // namespace sluice::access
