// Guardian's list filters (issue 28, item 4) against real PostgreSQL: each
// filter of ListGrants, ListAppeals, ListApprovals, ListResources,
// ListProviders and ListPolicies, for an admin (no visible_to / approver)
// and for a non-admin, whose filters narrow within what they may see.
#include <gtest/gtest.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "server/access/core/validation.h"
#include "server/access/store/postgres_appeal_repository.h"
#include "server/access/store/postgres_repositories.h"
#include "server/access/store/testing/store_test.h"

namespace sluice::access {
namespace {

using Ids = std::set<std::string>;

// Seconds since the epoch of 2026-MM-01T00:00:00Z.
int64_t Month(int m) {
  static const int64_t kJan2026 = 1767225600;  // 2026-01-01T00:00:00Z
  static const int kDays[] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30};
  int64_t days = 0;
  for (int i = 1; i < m; ++i) days += kDays[i];
  return kJan2026 + days * 86400;
}

class ListFiltersTest : public testing::StoreTest {
 protected:
  static constexpr char kU[] = "u@x.com";  // the non-admin caller

  void SetUp() override {
    StoreTest::SetUp();
    if (HasFatalFailure()) return;
    PostgresProviderRepository providers(pool_.get());
    auto add = [&](const std::string& type, const std::string& urn,
                   std::vector<std::pair<std::string, std::string>> res) {
      StoredProvider sp;
      sp.provider.set_type(type);
      sp.provider.set_urn(urn);
      sp.provider.mutable_config()->set_type(type);
      std::vector<pb::Resource> rs;
      for (const auto& [rtype, rurn] : res) {
        pb::Resource r;
        r.set_type(rtype);
        r.set_urn(rurn);
        r.set_name(absl::StrCat("name of ", rurn));
        rs.push_back(r);
      }
      auto created = providers.Create(sp, rs, {"provider.create", "a@x.com"});
      EXPECT_TRUE(created.ok()) << created.status();
      if (created.ok()) provider_id_[urn] = created->provider.id();
    };
    add("noop", "urn1", {{"table", "r1"}, {"table", "r2"}, {"view", "r3"}});
    add("gcs", "bucket-prod", {{"bucket", "bucket-a"}});
    auto list = PostgresResourceRepository(pool_.get()).List(ResourceFilter{}, Page{}, nullptr);
    ASSERT_TRUE(list.ok() && list->size() == 4u);
    for (const auto& r : *list) rid_[r.urn()] = r.id();
    appeals_ = std::make_unique<PostgresAppealRepository>(pool_.get());

    // Grants. u holds g1 and g5, owns g1 and g3, and approves an appeal on
    // bucket-a (a3), so u may see g4 too; g2 is not u's to see.
    g1_ = Grant(kU, kU, "r1", "viewer", "active", "user", Month(1), 3);
    g2_ = Grant("o1@x.com", "o1@x.com", "r1", "editor", "active", "serviceAccount", Month(2), 30);
    g3_ = Grant("o2@x.com", kU, "r2", "viewer", "inactive", "user", Month(3), 0);
    g4_ = Grant("o3@x.com", "o3@x.com", "bucket-a", "viewer", "active", "user", Month(4), 5);
    g5_ = Grant(kU, "o4@x.com", "r3", "admin", "active", "user", Month(5), 0);
    // Appeals, one approval each. u sees a1 (theirs), a2 and a3 (approver).
    a1_ = Appeal(kU, kU, "r1", "viewer", "pending", "user", "z@x.com", Month(1));
    a2_ = Appeal("o1@x.com", "o1@x.com", "r2", "editor", "approved", "user", kU, Month(2));
    a3_ = Appeal("o2@x.com", "o2@x.com", "bucket-a", "viewer", "pending", "user", kU, Month(3));
    a4_ = Appeal("o5@x.com", "o5@x.com", "r3", "viewer", "pending", "serviceAccount", "z@x.com",
                 Month(4));
  }

  // A grant created at `created` (seconds) expiring `expires_in_days` from
  // now (0: permanent).
  std::string Grant(const std::string& account, const std::string& owner, const std::string& urn,
                    const std::string& role, const std::string& status, const std::string& type,
                    int64_t created, int expires_in_days) {
    pb::Grant g;
    g.set_status(status);
    g.set_account_id(account);
    g.set_account_type(type);
    g.set_resource_id(rid_[urn]);
    g.set_role(role);
    g.set_is_permanent(expires_in_days == 0);
    if (expires_in_days > 0) {
      *g.mutable_expiration_date() =
          ToTimestamp(absl::Now() + absl::Hours(24 * expires_in_days - 1));
    }
    g.set_source("import");
    g.set_owner(owner);
    EXPECT_TRUE(appeals_->InTransaction([&](AccessTx& tx) { return tx.InsertGrant(&g); }).ok());
    SetCreated("grants", g.id(), created);
    return g.id();
  }

  std::string Appeal(const std::string& account, const std::string& creator, const std::string& urn,
                     const std::string& role, const std::string& status, const std::string& type,
                     const std::string& approver, int64_t created) {
    pb::Appeal a;
    a.set_resource_id(rid_[urn]);
    a.set_policy_id("p1");
    a.set_policy_version(1);
    a.set_status(status);
    a.set_account_id(account);
    a.set_account_type(type);
    a.set_role(role);
    a.set_created_by(creator);
    pb::Approval* p = a.add_approvals();
    p->set_name("owner");
    p->set_status(status == "pending" ? "pending" : "approved");
    p->add_approvers(approver);
    p->set_policy_id("p1");
    p->set_policy_version(1);
    EXPECT_TRUE(appeals_->InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&a); }).ok());
    SetCreated("appeals", a.id(), created);
    approval_of_[a.id()] = a.approvals(0).id();
    return a.id();
  }

  void SetCreated(const std::string& table, const std::string& id, int64_t secs) {
    ASSERT_TRUE(pool_->Run([&](soci::session& sql) -> absl::Status {
      sql << "UPDATE " << table << " SET created_at = to_timestamp(" << secs
          << "), updated_at = to_timestamp(" << secs << ") WHERE id = CAST(:id AS uuid)",
          soci::use(id);
      return absl::OkStatus();
    }).ok());
  }

  // The ids a grant list returns, for an admin and, when `as_user`, for u.
  Ids Grants(GrantFilter f, bool as_user, int* total = nullptr) {
    if (as_user) f.visible_to = kU;
    int t = 0;
    auto got = appeals_->ListGrants(f, &t);
    EXPECT_TRUE(got.ok()) << got.status();
    if (total) *total = t;
    Ids ids;
    if (got.ok()) {
      for (const auto& g : *got) ids.insert(g.id());
    }
    return ids;
  }
  Ids Appeals(AppealFilter f, bool as_user) {
    if (as_user) f.visible_to = kU;
    int t = 0;
    auto got = appeals_->ListAppeals(f, &t);
    EXPECT_TRUE(got.ok()) << got.status();
    Ids ids;
    if (got.ok()) {
      for (const auto& a : *got) ids.insert(a.id());
    }
    EXPECT_EQ(static_cast<size_t>(t), ids.size());
    return ids;
  }
  // Approval ids, named by their appeal's id.
  Ids Approvals(ApprovalFilter f, bool as_user) {
    if (as_user) f.approver = kU;
    int t = 0;
    auto got = appeals_->ListApprovals(f, &t);
    EXPECT_TRUE(got.ok()) << got.status();
    Ids ids;
    if (got.ok()) {
      for (const auto& p : *got) {
        EXPECT_EQ(approval_of_[p.appeal_id()], p.id());
        ids.insert(p.appeal_id());
      }
    }
    EXPECT_EQ(static_cast<size_t>(t), ids.size());
    return ids;
  }
  std::vector<std::string> Urns(const ResourceFilter& f, int64_t* total = nullptr) {
    auto got = PostgresResourceRepository(pool_.get()).List(f, Page{1000, 0}, total);
    EXPECT_TRUE(got.ok()) << got.status();
    std::vector<std::string> urns;
    if (got.ok()) {
      for (const auto& r : *got) urns.push_back(r.urn());
    }
    return urns;
  }

  std::unique_ptr<PostgresAppealRepository> appeals_;
  std::map<std::string, std::string> rid_, provider_id_, approval_of_;
  std::string g1_, g2_, g3_, g4_, g5_, a1_, a2_, a3_, a4_;
};

TEST_F(ListFiltersTest, GrantFiltersForAdminAndNonAdmin) {
  int total = 0;
  EXPECT_EQ(Grants({}, false, &total), (Ids{g1_, g2_, g3_, g4_, g5_}));
  EXPECT_EQ(total, 5);
  EXPECT_EQ(Grants({}, true, &total), (Ids{g1_, g3_, g4_, g5_}));
  EXPECT_EQ(total, 4);

  GrantFilter f;
  f.resource_urns = {"r1"};  // the issue's case: only r1's grants
  EXPECT_EQ(Grants(f, false, &total), (Ids{g1_, g2_}));
  EXPECT_EQ(total, 2);
  EXPECT_EQ(Grants(f, true), (Ids{g1_}));

  f = {};
  f.owners = {"o1@x.com", "o3@x.com"};
  EXPECT_EQ(Grants(f, false), (Ids{g2_, g4_}));
  EXPECT_EQ(Grants(f, true), (Ids{g4_}));
  f.owner = kU;  // owner / created_by join the owners list
  EXPECT_EQ(Grants(f, false), (Ids{g1_, g2_, g3_, g4_}));

  f = {};
  f.account_types = {"serviceAccount"};
  EXPECT_EQ(Grants(f, false), (Ids{g2_}));
  EXPECT_EQ(Grants(f, true), (Ids{}));

  f = {};
  f.roles = {"editor", "admin"};
  EXPECT_EQ(Grants(f, false), (Ids{g2_, g5_}));
  EXPECT_EQ(Grants(f, true), (Ids{g5_}));

  f = {};
  f.account_ids = {"o1@x.com", kU};
  EXPECT_EQ(Grants(f, false), (Ids{g1_, g2_, g5_}));
  EXPECT_EQ(Grants(f, true), (Ids{g1_, g5_}));

  f = {};
  f.provider_types = {"gcs"};
  EXPECT_EQ(Grants(f, false), (Ids{g4_}));
  EXPECT_EQ(Grants(f, true), (Ids{g4_}));
  f = {};
  f.provider_urns = {"urn1"};
  EXPECT_EQ(Grants(f, false), (Ids{g1_, g2_, g3_, g5_}));
  EXPECT_EQ(Grants(f, true), (Ids{g1_, g3_, g5_}));
  f = {};
  f.resource_types = {"view"};
  EXPECT_EQ(Grants(f, false), (Ids{g5_}));
  f = {};
  f.resource_ids = {rid_["r2"]};
  EXPECT_EQ(Grants(f, false), (Ids{g3_}));
  EXPECT_EQ(Grants(f, true), (Ids{g3_}));

  f = {};
  f.q = "o1@";  // Guardian: LIKE on account_id, role, resource urn, name
  EXPECT_EQ(Grants(f, false), (Ids{g2_}));
  EXPECT_EQ(Grants(f, true), (Ids{}));
  f.q = "bucket";
  EXPECT_EQ(Grants(f, false), (Ids{g4_}));
  f.q = "BUCKET";  // case-sensitive, as Guardian's LIKE
  EXPECT_EQ(Grants(f, false), (Ids{}));

  f = {};
  f.created = {Month(2) * 1000000 + 1000000, Month(4) * 1000000};  // inclusive end
  EXPECT_EQ(Grants(f, false), (Ids{g3_, g4_}));
  EXPECT_EQ(Grants(f, true), (Ids{g3_, g4_}));
  f.created = {Month(4) * 1000000 + 1000000, 0};
  EXPECT_EQ(Grants(f, false), (Ids{g5_}));
  f.created = {0, Month(1) * 1000000};
  EXPECT_EQ(Grants(f, false), (Ids{g1_}));

  // expiring_in_days applies only with statuses containing "active".
  f = {};
  f.expiring_in_days = 7;
  EXPECT_EQ(Grants(f, false).size(), 5u);
  f.statuses = {"active"};
  EXPECT_EQ(Grants(f, false), (Ids{g1_, g4_}));
  EXPECT_EQ(Grants(f, true), (Ids{g1_, g4_}));
  f.expiring_in_days = 60;
  EXPECT_EQ(Grants(f, false), (Ids{g1_, g2_, g4_}));

  // order_by and paging; total counts every match.
  f = {};
  f.order_by = {{"created_at", false}};
  f.size = 2;
  auto page = appeals_->ListGrants(f, &total);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].id(), g1_);
  EXPECT_EQ((*page)[1].id(), g2_);
  EXPECT_EQ(total, 5);
  f.order_by = {{"updated_at", true}};
  f.visible_to = kU;
  page = appeals_->ListGrants(f, &total);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].id(), g5_);
  EXPECT_EQ((*page)[1].id(), g4_);
  EXPECT_EQ(total, 4);
}

TEST_F(ListFiltersTest, WithPendingAppealFillsPendingAppealId) {
  GrantFilter f;
  f.resource_urns = {"r1"};
  int total = 0;
  auto without = appeals_->ListGrants(f, &total);
  ASSERT_TRUE(without.ok());
  for (const auto& g : *without) EXPECT_EQ(g.pending_appeal_id(), "");
  f.with_pending_appeal = true;
  for (bool as_user : {false, true}) {
    f.visible_to = as_user ? kU : "";
    auto with = appeals_->ListGrants(f, &total);
    ASSERT_TRUE(with.ok());
    for (const auto& g : *with) {
      // a1 is u's pending appeal for r1 as viewer: g1's account, resource, role.
      EXPECT_EQ(g.pending_appeal_id(), g.id() == g1_ ? a1_ : "") << g.id();
    }
  }
}

TEST_F(ListFiltersTest, AppealFiltersForAdminAndNonAdmin) {
  EXPECT_EQ(Appeals({}, false), (Ids{a1_, a2_, a3_, a4_}));
  EXPECT_EQ(Appeals({}, true), (Ids{a1_, a2_, a3_}));
  AppealFilter f;
  f.ids = {a2_, a4_};
  EXPECT_EQ(Appeals(f, false), (Ids{a2_, a4_}));
  EXPECT_EQ(Appeals(f, true), (Ids{a2_}));
  f = {};
  f.resource_ids = {rid_["r1"], rid_["r3"]};
  EXPECT_EQ(Appeals(f, false), (Ids{a1_, a4_}));
  EXPECT_EQ(Appeals(f, true), (Ids{a1_}));
  f = {};
  f.roles = {"viewer"};
  EXPECT_EQ(Appeals(f, false), (Ids{a1_, a3_, a4_}));
  EXPECT_EQ(Appeals(f, true), (Ids{a1_, a3_}));
  f = {};
  f.account_types = {"serviceAccount"};
  EXPECT_EQ(Appeals(f, false), (Ids{a4_}));
  EXPECT_EQ(Appeals(f, true), (Ids{}));
  f = {};
  f.q = "bucket-a";
  EXPECT_EQ(Appeals(f, false), (Ids{a3_}));
  EXPECT_EQ(Appeals(f, true), (Ids{a3_}));
  f.q = "o5@";
  EXPECT_EQ(Appeals(f, false), (Ids{a4_}));
  EXPECT_EQ(Appeals(f, true), (Ids{}));
  f = {};
  f.resource_urns = {"r2"};
  EXPECT_EQ(Appeals(f, false), (Ids{a2_}));
  EXPECT_EQ(Appeals(f, true), (Ids{a2_}));
  f = {};
  f.provider_types = {"gcs"};
  EXPECT_EQ(Appeals(f, false), (Ids{a3_}));
  f = {};
  f.created = {Month(2) * 1000000, Month(3) * 1000000};
  EXPECT_EQ(Appeals(f, false), (Ids{a2_, a3_}));
  EXPECT_EQ(Appeals(f, true), (Ids{a2_, a3_}));
  f.created = {Month(3) * 1000000 + 1000000, 0};
  EXPECT_EQ(Appeals(f, false), (Ids{a4_}));
  EXPECT_EQ(Appeals(f, true), (Ids{}));
  // Newest first by default; order_by created_at ascending.
  f = {};
  f.size = 1;
  int total = 0;
  auto page = appeals_->ListAppeals(f, &total);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ((*page)[0].id(), a4_);
  EXPECT_EQ(total, 4);
  f.order_by = {{"created_at", false}};
  page = appeals_->ListAppeals(f, &total);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ((*page)[0].id(), a1_);
}

TEST_F(ListFiltersTest, ApprovalFiltersForAdminAndNonAdmin) {
  EXPECT_EQ(Approvals({}, false), (Ids{a1_, a2_, a3_, a4_}));
  EXPECT_EQ(Approvals({}, true), (Ids{a2_, a3_}));
  ApprovalFilter f;
  f.appeal_statuses = {"pending"};
  EXPECT_EQ(Approvals(f, false), (Ids{a1_, a3_, a4_}));
  EXPECT_EQ(Approvals(f, true), (Ids{a3_}));
  f = {};
  f.resource_urns = {"bucket-a"};
  EXPECT_EQ(Approvals(f, false), (Ids{a3_}));
  EXPECT_EQ(Approvals(f, true), (Ids{a3_}));
  f = {};
  f.roles = {"editor"};
  EXPECT_EQ(Approvals(f, false), (Ids{a2_}));
  EXPECT_EQ(Approvals(f, true), (Ids{a2_}));
  f = {};
  f.account_types = {"serviceAccount"};
  EXPECT_EQ(Approvals(f, false), (Ids{a4_}));
  EXPECT_EQ(Approvals(f, true), (Ids{}));
  f = {};
  f.account_ids = {"o2@x.com", "o5@x.com"};
  EXPECT_EQ(Approvals(f, false), (Ids{a3_, a4_}));
  EXPECT_EQ(Approvals(f, true), (Ids{a3_}));
  f = {};
  f.q = "o1@";
  EXPECT_EQ(Approvals(f, false), (Ids{a2_}));
  EXPECT_EQ(Approvals(f, true), (Ids{a2_}));
  f = {};
  f.provider_urns = {"bucket-prod"};
  EXPECT_EQ(Approvals(f, false), (Ids{a3_}));
  f = {};
  f.provider_types = {"noop"};
  f.resource_types = {"table"};
  EXPECT_EQ(Approvals(f, false), (Ids{a1_, a2_}));
  EXPECT_EQ(Approvals(f, true), (Ids{a2_}));
  f = {};
  f.created = {Month(3) * 1000000, 0};
  EXPECT_EQ(Approvals(f, false), (Ids{a3_, a4_}));
  EXPECT_EQ(Approvals(f, true), (Ids{a3_}));
  f = {};
  f.statuses = {"approved"};
  EXPECT_EQ(Approvals(f, false), (Ids{a2_}));
}

TEST_F(ListFiltersTest, ResourceFiltersAndMatchers) {
  using V = std::vector<std::string>;
  ResourceFilter f;
  int64_t total = 0;
  EXPECT_EQ(Urns(f, &total), (V{"bucket-a", "r1", "r2", "r3"}));  // gcs < noop
  EXPECT_EQ(total, 4);
  f.ids = {rid_["r1"], rid_["bucket-a"]};
  EXPECT_EQ(Urns(f), (V{"bucket-a", "r1"}));
  f = {};
  f.provider_types = {"gcs"};
  EXPECT_EQ(Urns(f), (V{"bucket-a"}));
  f = {};
  f.provider_urns = {"urn1"};
  EXPECT_EQ(Urns(f), (V{"r1", "r2", "r3"}));
  f = {};
  f.types = {"view", "bucket"};
  EXPECT_EQ(Urns(f), (V{"bucket-a", "r3"}));
  f = {};
  f.urns = {"r1", "r2"};
  EXPECT_EQ(Urns(f), (V{"r1", "r2"}));
  f = {};
  f.q = "BUCK";  // ILIKE on urn or name
  EXPECT_EQ(Urns(f), (V{"bucket-a"}));
  f.q = "r2";  // exact urn match first, then the name matches
  EXPECT_EQ(Urns(f), (V{"r2"}));
  f.q = "name of";
  EXPECT_EQ(Urns(f).size(), 4u);
  f = {};
  f.urn_match.starts_with = "r";
  EXPECT_EQ(Urns(f), (V{"r1", "r2", "r3"}));
  f.urns = {"bucket-a"};  // ORed with the list
  EXPECT_EQ(Urns(f).size(), 4u);
  f = {};
  f.urn_match.ends_with = "2";
  EXPECT_EQ(Urns(f), (V{"r2"}));
  f = {};
  f.urn_match.contains = "ucke";
  EXPECT_EQ(Urns(f), (V{"bucket-a"}));
  f.urn_match.contains = "_";  // matched literally, not as a wildcard
  EXPECT_EQ(Urns(f), (V{}));
  f = {};
  f.urn_match.not_starts_with = "r";
  EXPECT_EQ(Urns(f), (V{"bucket-a"}));
  f = {};
  f.urn_match.not_contains = "1";
  EXPECT_EQ(Urns(f), (V{"bucket-a", "r2", "r3"}));
  f = {};
  f.urn_match.not_ends_with = "3";
  f.urn_match.not_starts_with = "b";  // the negatives are ANDed
  EXPECT_EQ(Urns(f), (V{"r1", "r2"}));
  f = {};
  f.provider_urn_match.starts_with = "bucket";
  EXPECT_EQ(Urns(f), (V{"bucket-a"}));
  f = {};
  f.provider_urn_match.not_ends_with = "1";
  EXPECT_EQ(Urns(f), (V{"bucket-a"}));
  f = {};
  f.provider_urn_match.contains = "rn";
  f.provider_urns = {"bucket-prod"};
  EXPECT_EQ(Urns(f).size(), 4u);
  f = {};
  f.order_by = {{"urn", true}};
  EXPECT_EQ(Urns(f), (V{"r3", "r2", "r1", "bucket-a"}));
  f.order_by = {{"name", false}};
  EXPECT_EQ(Urns(f), (V{"bucket-a", "r1", "r2", "r3"}));
}

TEST_F(ListFiltersTest, ProviderAndPolicyFilters) {
  PostgresProviderRepository providers(pool_.get());
  auto urns = [&](const ProviderFilter& f) {
    int64_t total = 0;
    auto got = providers.ListPage(Page{100, 0}, &total, f);
    EXPECT_TRUE(got.ok()) << got.status();
    std::set<std::string> out;
    for (const auto& p : *got) out.insert(p.provider.urn());
    EXPECT_EQ(static_cast<size_t>(total), out.size());
    return out;
  };
  using S = std::set<std::string>;
  EXPECT_EQ(urns({}), (S{"urn1", "bucket-prod"}));
  EXPECT_EQ(urns({{provider_id_["urn1"]}, {}, {}}), (S{"urn1"}));
  EXPECT_EQ(urns({{}, {"bucket-prod"}, {}}), (S{"bucket-prod"}));
  EXPECT_EQ(urns({{}, {"bucket-prod:gcs", "urn1:gcs"}, {}}), (S{"bucket-prod"}));
  EXPECT_EQ(urns({{}, {}, {"noop"}}), (S{"urn1"}));
  EXPECT_EQ(urns({{}, {"urn1"}, {"gcs"}}), (S{}));

  PostgresPolicyRepository policies(pool_.get());
  for (const char* id : {"p1", "p2", "p3"}) {
    for (uint32_t v : {1u, 2u, 3u}) {
      pb::Policy p;
      p.set_id(id);
      p.set_version(v);
      ASSERT_TRUE(policies.Insert(p, {"policy.create", "a@x.com"}).ok());
    }
  }
  auto versions = [&](const std::vector<std::string>& ids, int64_t* total) {
    auto got = policies.List(Page{100, 0}, total, ids);
    EXPECT_TRUE(got.ok()) << got.status();
    std::vector<std::string> out;
    for (const auto& p : *got) out.push_back(absl::StrCat(p.id(), ":", p.version()));
    return out;
  };
  using V = std::vector<std::string>;
  int64_t total = 0;
  EXPECT_EQ(versions({}, &total).size(), 9u);  // every version, as Guardian
  EXPECT_EQ(total, 9);
  // Guardian: "<id>" every version, "<id>:0" the latest, "<id>:<n>" one.
  EXPECT_EQ(versions({"p1", "p2:0", "p3:2", "bad:x:y"}, &total),
            (V{"p1:1", "p1:2", "p1:3", "p2:3", "p3:2"}));
  EXPECT_EQ(total, 5);
  EXPECT_EQ(versions({"nope"}, &total), (V{}));
}

}  // namespace
}  // namespace sluice::access
