// Repository tests against real PostgreSQL (fresh database per test).
#include "server/access/store/postgres_repositories.h"
#include "server/access/store/postgres_appeal_repository.h"

#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"

#include "server/access/store/testing/store_test.h"
#include "server/access/core/json.h"

namespace sluice::access {
namespace {

class RepositoriesTest : public testing::StoreTest {
 protected:
  static pb::Resource Res(const std::string& type, const std::string& urn,
                          const std::string& details_json = "{}") {
    pb::Resource r;
    r.set_type(type);
    r.set_urn(urn);
    r.set_name(urn);
    *r.mutable_details() = JsonToStruct(nlohmann::json::parse(details_json));
    return r;
  }

};

TEST_F(RepositoriesTest, PolicyVersions) {
  PostgresPolicyRepository repo(pool_.get());
  pb::Policy p;
  p.set_id("p1");
  p.set_version(1);
  p.set_description("first");
  ASSERT_TRUE(repo.Insert(p, {"policy.create", "a@x.com"}).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(repo.Insert(p, {"policy.create", "a@x.com"})));
  p.set_version(2);
  p.set_description("second");
  ASSERT_TRUE(repo.Insert(p, {"policy.update", "a@x.com"}).ok());
  auto latest = repo.Get("p1", 0);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->version(), 2u);
  EXPECT_EQ(latest->description(), "second");
  auto v1 = repo.Get("p1", 1);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->description(), "first");
  EXPECT_TRUE(absl::IsNotFound(repo.Get("p1", 3).status()));
  EXPECT_TRUE(absl::IsNotFound(repo.Get("nope", 0).status()));
  int64_t count = 0;
  // Every version, oldest first (Guardian's ListPolicies).
  auto list = repo.List(Page{}, &count, {});
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].version(), 1u);
  EXPECT_EQ((*list)[0].description(), "first");
  EXPECT_EQ((*list)[1].version(), 2u);
  EXPECT_EQ(count, 2);

  PostgresAuditLogRepository audit(pool_.get());
  int64_t total = 0;
  auto logs = audit.List({"policy.update", "", "", "", 50, 0}, &total);
  ASSERT_TRUE(logs.ok()) << logs.status();
  EXPECT_EQ(total, 1);
  auto all = audit.List({"", "a@x.com", "", "", 1, 0}, &total);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(total, 2);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].action(), "policy.update");  // newest first
  EXPECT_TRUE(absl::IsInvalidArgument(audit.List({"", "", "not-a-time", "", 1, 0}, &total).status()));
  auto future = audit.List({"", "", "2999-01-01T00:00:00Z", "", 10, 0}, &total);
  ASSERT_TRUE(future.ok());
  EXPECT_EQ(total, 0);
}

TEST_F(RepositoriesTest, ProviderSyncSemantics) {
  PostgresProviderRepository providers(pool_.get());
  PostgresResourceRepository resources(pool_.get());
  StoredProvider sp;
  sp.provider.set_type("noop");
  sp.provider.set_urn("urn1");
  sp.provider.mutable_config()->set_type("noop");
  sp.encrypted_credentials = "v1:secret";
  auto created = providers.Create(
      sp, {Res("t", "a", R"({"owner":"alice@x.com","team":{"name":"data"}})"), Res("t", "b")},
      {"provider.create", "a@x.com"});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_FALSE(created->provider.id().empty());
  EXPECT_TRUE(absl::IsAlreadyExists(providers.Create(sp, {}, {"provider.create", "a@x.com"}).status()));

  auto got = providers.Get(created->provider.id());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->encrypted_credentials, "v1:secret");
  EXPECT_TRUE(absl::IsNotFound(providers.Get("not-a-uuid").status()));
  EXPECT_TRUE(absl::IsNotFound(providers.Get("00000000-0000-0000-0000-000000000000").status()));

  ResourceFilter f;
  auto list = resources.List(f, Page{}, nullptr);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 2u);
  f.details = {{{"team", "name"}, "data"}};
  list = resources.List(f, Page{}, nullptr);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].urn(), "a");
  std::string id_a = (*list)[0].id();

  // A provider-owned key is never overridden: the update is refused whole.
  auto refused = resources.Update(
      id_a, JsonToStruct(nlohmann::json::parse(R"({"extra":"x","owner":"mallory@x.com"})")),
      nullptr, {"resource.update", "a@x.com"});
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << refused.status();
  EXPECT_NE(refused.status().message().find("details.owner"), std::string::npos);
  EXPECT_EQ(StructToJson(resources.Get(id_a)->details())["owner"], "alice@x.com");
  // A user-added key survives a re-sync.
  auto upd = resources.Update(id_a, JsonToStruct(nlohmann::json::parse(R"({"extra":"x"})")),
                              nullptr, {"resource.update", "a@x.com"});
  ASSERT_TRUE(upd.ok()) << upd.status();
  EXPECT_EQ(StructToJson(upd->details())["extra"], "x");
  EXPECT_EQ(StructToJson(upd->details())["owner"], "alice@x.com");

  // Re-sync without b: b soft-deleted; a keeps "extra".
  ASSERT_TRUE(providers.SyncResources(created->provider, {Res("t", "a", R"({"owner":"bob@x.com"})")},
                                      {"provider.sync", "system"})
                  .ok());
  f = ResourceFilter();
  list = resources.List(f, Page{}, nullptr);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(StructToJson((*list)[0].details())["extra"], "x");
  EXPECT_EQ(StructToJson((*list)[0].details())["owner"], "bob@x.com");
  f.is_deleted = true;
  list = resources.List(f, Page{}, nullptr);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].urn(), "b");
  std::string id_b = (*list)[0].id();

  // b comes back: undeleted with the same id.
  ASSERT_TRUE(providers.SyncResources(created->provider, {Res("t", "a"), Res("t", "b")},
                                      {"provider.sync", "system"})
                  .ok());
  auto b = resources.Get(id_b);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->is_deleted());

  ASSERT_TRUE(resources.Delete(id_b, {"resource.delete", "a@x.com"}).ok());
  EXPECT_TRUE(resources.Get(id_b)->is_deleted());
  EXPECT_TRUE(absl::IsNotFound(resources.Delete("x", {"resource.delete", "a@x.com"})));

  // Deleting the provider soft-deletes its resources.
  ASSERT_TRUE(providers.Delete(created->provider.id(), {"provider.delete", "a@x.com"}).ok());
  EXPECT_TRUE(resources.Get(id_a)->is_deleted());
  EXPECT_TRUE(absl::IsNotFound(providers.Delete(created->provider.id(), {"provider.delete", "a"})));
}

// The appeal, its approvals and its audit row go in together; a duplicate
// pending appeal writes nothing.
TEST_F(RepositoriesTest, InsertAppealAuditedWritesApprovalsAndAudit) {
  PostgresProviderRepository providers(pool_.get());
  StoredProvider sp;
  sp.provider.set_type("noop");
  sp.provider.set_urn("urn1");
  sp.provider.mutable_config()->set_type("noop");
  auto created = providers.Create(sp, {Res("t", "a")}, {"provider.create", "a@x.com"});
  ASSERT_TRUE(created.ok()) << created.status();
  PostgresResourceRepository resources(pool_.get());
  auto list = resources.List(ResourceFilter{}, Page{}, nullptr);
  ASSERT_TRUE(list.ok() && list->size() == 1u);
  std::string rid = (*list)[0].id();

  PostgresAppealRepository appeals(pool_.get());
  pb::Appeal a;
  a.set_resource_id(rid);
  a.set_policy_id("p1");
  a.set_policy_version(3);
  a.set_status("pending");
  a.set_account_id("u@x.com");
  a.set_account_type("user");
  a.set_role("viewer");
  a.set_created_by("c@x.com");
  for (const char* step : {"first", "second"}) {
    pb::Approval* p = a.add_approvals();
    p->set_name(step);
    p->set_status("pending");
    p->add_approvers("o@x.com");
    p->set_policy_id("p1");
    p->set_policy_version(3);
  }
  auto audit = [] { return AuditEntry{"appeal.create", "c@x.com", {{"role", "viewer"}}}; };
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) { return tx.InsertAppealAudited(&a, audit()); }).ok());
  ASSERT_FALSE(a.id().empty());
  ASSERT_EQ(a.approvals_size(), 2);
  EXPECT_FALSE(a.approvals(0).id().empty());
  EXPECT_NE(a.approvals(0).id(), a.approvals(1).id());
  EXPECT_EQ(a.approvals(1).appeal_id(), a.id());

  absl::StatusOr<pb::Appeal> got = absl::NotFoundError("");
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) {
    got = tx.GetAppeal(a.id(), false);
    return got.status();
  }).ok());
  ASSERT_EQ(got->approvals_size(), 2);
  EXPECT_EQ(got->approvals(0).name(), "first");
  EXPECT_EQ(got->approvals(0).id(), a.approvals(0).id());
  EXPECT_EQ(got->approvals(1).name(), "second");
  EXPECT_EQ(got->approvals(1).approvers(0), "o@x.com");
  EXPECT_EQ(got->policy_version(), 3u);

  // Guardian's appeal list carries approvals only with with_approvals.
  AppealFilter page;
  page.size = 10;
  int listed_total = 0;
  auto unlisted = appeals.ListAppeals(page, &listed_total);
  ASSERT_TRUE(unlisted.ok() && unlisted->size() == 1u) << unlisted.status();
  EXPECT_EQ((*unlisted)[0].approvals_size(), 0);
  page.with_approvals = true;
  auto with_steps = appeals.ListAppeals(page, &listed_total);
  ASSERT_TRUE(with_steps.ok() && with_steps->size() == 1u) << with_steps.status();
  ASSERT_EQ((*with_steps)[0].approvals_size(), 2);
  EXPECT_EQ((*with_steps)[0].approvals(1).name(), "second");

  pb::Appeal dup = a;
  dup.clear_id();
  EXPECT_TRUE(absl::IsAlreadyExists(
      appeals.InTransaction([&](AccessTx& tx) { return tx.InsertAppealAudited(&dup, audit()); })));

  std::string data;
  int n = 0;
  ASSERT_TRUE(pool_->Run([&](soci::session& sql) {
    sql << "SELECT count(*) FROM audit_logs WHERE action = 'appeal.create'", soci::into(n);
    sql << "SELECT data::text FROM audit_logs WHERE action = 'appeal.create'", soci::into(data);
    return absl::OkStatus();
  }).ok());
  EXPECT_EQ(n, 1);
  auto j = nlohmann::json::parse(data);
  EXPECT_EQ(j["id"], a.id());
  EXPECT_EQ(j["role"], "viewer");

  // Without approvals: still one appeal, no approval rows.
  pb::Appeal bare = a;
  bare.clear_id();
  bare.clear_approvals();
  bare.set_role("editor");
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&bare); }).ok());
  EXPECT_FALSE(bare.id().empty());
  EXPECT_NE(bare.id(), a.id());

  // With an active grant for (account, resource, role), nothing is written.
  pb::Grant g;
  g.set_status("active");
  g.set_status_in_provider("active");
  g.set_account_id("u@x.com");
  g.set_account_type("user");
  g.set_resource_id(rid);
  g.set_role("admin");
  g.set_is_permanent(true);
  g.set_source("import");
  g.set_owner("c@x.com");
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) { return tx.InsertGrant(&g); }).ok());
  pb::Appeal granted = bare;
  granted.clear_id();
  granted.set_role("admin");
  absl::StatusOr<bool> wrote = false;
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) {
    wrote = tx.InsertAppealUnlessActiveGrant(&granted, audit());
    return wrote.status();
  }).ok());
  EXPECT_FALSE(*wrote);
  EXPECT_TRUE(granted.id().empty());
  pb::Appeal other = granted;
  other.set_role("owner");
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) {
    wrote = tx.InsertAppealUnlessActiveGrant(&other, audit());
    return wrote.status();
  }).ok());
  EXPECT_TRUE(*wrote);
  EXPECT_FALSE(other.id().empty());
  ASSERT_TRUE(pool_->Run([&](soci::session& sql) {
    sql << "SELECT count(*) FROM appeals WHERE role = 'admin'", soci::into(n);
    return absl::OkStatus();
  }).ok());
  EXPECT_EQ(n, 0);
  ASSERT_TRUE(pool_->Run([&](soci::session& sql) {
    sql << "SELECT count(*) FROM audit_logs WHERE action = 'appeal.create'", soci::into(n);
    return absl::OkStatus();
  }).ok());
  EXPECT_EQ(n, 2);
}

// Issue 28: Appeal.creator is any JSON value, as Guardian's; the appeal's
// data column keeps strings, numbers, arrays and objects as they are
// (before, creator was a Struct and only objects could be held).
TEST_F(RepositoriesTest, AppealCreatorRoundTripsAnyJsonValue) {
  PostgresProviderRepository providers(pool_.get());
  StoredProvider sp;
  sp.provider.set_type("noop");
  sp.provider.set_urn("urn-creator");
  sp.provider.mutable_config()->set_type("noop");
  ASSERT_TRUE(providers.Create(sp, {Res("t", "c")}, {"provider.create", "a@x.com"}).ok());
  PostgresResourceRepository resources(pool_.get());
  auto list = resources.List(ResourceFilter{}, Page{}, nullptr);
  ASSERT_TRUE(list.ok() && list->size() == 1u);
  PostgresAppealRepository appeals(pool_.get());
  int n = 0;
  for (const char* creator : {R"("c@x.com")", "42.5", R"(["a", 1, true, null])",
                              R"({"email": "c@x.com", "manager": {"email": "m@x.com"}})"}) {
    pb::Appeal a;
    a.set_resource_id((*list)[0].id());
    a.set_policy_id("p1");
    a.set_policy_version(1);
    a.set_status("pending");
    a.set_account_id("u@x.com");
    a.set_account_type("user");
    a.set_role(absl::StrCat("role", n++));  // one pending appeal per role
    a.set_created_by("c@x.com");
    ASSERT_TRUE(JsonStringToProto(creator, a.mutable_creator()).ok()) << creator;
    ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&a); }).ok());
    absl::StatusOr<pb::Appeal> got = absl::NotFoundError("");
    ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) {
      got = tx.GetAppeal(a.id(), false);
      return got.status();
    }).ok());
    EXPECT_EQ(ProtoToJson(got->creator()), nlohmann::json::parse(creator)) << creator;
  }
}

// The appeal list reads the data column without the keys whose columns it
// sets (sql_rows.cc kAppealDataRest): every field kept only in data still
// comes back, through the list as through GetAppeal.
TEST_F(RepositoriesTest, AppealDataOnlyFieldsSurviveListAndGet) {
  PostgresProviderRepository providers(pool_.get());
  StoredProvider sp;
  sp.provider.set_type("noop");
  sp.provider.set_urn("urn-data");
  sp.provider.mutable_config()->set_type("noop");
  ASSERT_TRUE(providers.Create(sp, {Res("t", "d", R"({"k": {"n": 1}})")},
                               {"provider.create", "a@x.com"}).ok());
  PostgresResourceRepository resources(pool_.get());
  auto list = resources.List(ResourceFilter{}, Page{}, nullptr);
  ASSERT_TRUE(list.ok() && list->size() == 1u);
  PostgresAppealRepository appeals(pool_.get());
  pb::Appeal a;
  a.set_resource_id((*list)[0].id());
  a.set_policy_id("p1");
  a.set_policy_version(2);
  a.set_status("pending");
  a.set_account_id("u@x.com");
  a.set_account_type("user");
  a.set_role("viewer");
  a.set_created_by("c@x.com");
  a.add_permissions("read");
  a.add_permissions("write");
  a.mutable_options()->set_duration("24h");
  a.mutable_options()->mutable_expiration_date()->set_seconds(2000000000);
  *a.mutable_details() = JsonToStruct(nlohmann::json::parse(R"({"why": "on call", "n": 3})"));
  (*a.mutable_labels())["team"] = "core";
  a.set_description("needs it");
  ASSERT_TRUE(JsonStringToProto(R"({"email": "c@x.com"})", a.mutable_creator()).ok());
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) { return tx.InsertAppeal(&a); }).ok());
  auto check = [&](const pb::Appeal& got) {
    EXPECT_EQ(got.id(), a.id());
    EXPECT_EQ(got.policy_version(), 2u);
    EXPECT_EQ(got.role(), "viewer");
    ASSERT_EQ(got.permissions_size(), 2);
    EXPECT_EQ(got.permissions(1), "write");
    EXPECT_EQ(got.options().duration(), "24h");
    EXPECT_EQ(got.options().expiration_date().seconds(), 2000000000);
    EXPECT_EQ(StructToJson(got.details()), nlohmann::json::parse(R"({"why": "on call", "n": 3})"));
    EXPECT_EQ(got.labels().at("team"), "core");
    EXPECT_EQ(got.description(), "needs it");
    EXPECT_EQ(ProtoToJson(got.creator()), nlohmann::json::parse(R"({"email": "c@x.com"})"));
    EXPECT_GT(got.created_at().seconds(), 0);
  };
  AppealFilter f;
  f.size = 10;
  int total = 0;
  auto listed = appeals.ListAppeals(f, &total);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  check((*listed)[0]);
  EXPECT_EQ(StructToJson((*listed)[0].resource().details()), nlohmann::json::parse(R"({"k": {"n": 1}})"));
  absl::StatusOr<pb::Appeal> got = absl::NotFoundError("");
  ASSERT_TRUE(appeals.InTransaction([&](AccessTx& tx) {
    got = tx.GetAppeal(a.id(), false);
    return got.status();
  }).ok());
  check(*got);
}

// Guardian's Find orders by created_at ASC, not by id.
TEST_F(RepositoriesTest, PolicyListIsOldestFirstNotById) {
  PostgresPolicyRepository policies(pool_.get());
  for (auto [id, v] : {std::pair{"zz", 1u}, std::pair{"aa", 1u}, std::pair{"zz", 2u}}) {
    pb::Policy p;
    p.set_id(id);
    p.set_version(v);
    ASSERT_TRUE(policies.Insert(p, {"policy.create", "a@x.com"}).ok());
  }
  int64_t total = 0;
  auto all = policies.List(Page{}, &total, {});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(total, 3);
  std::vector<std::pair<std::string, uint32_t>> got;
  for (const auto& p : *all) got.push_back({p.id(), p.version()});
  EXPECT_EQ(got, (std::vector<std::pair<std::string, uint32_t>>{{"zz", 1}, {"aa", 1}, {"zz", 2}}));
}

// Finding L2: resources, providers and policies were listed without LIMIT.
TEST_F(RepositoriesTest, ListsArePagedWithTotals) {
  PostgresPolicyRepository policies(pool_.get());
  for (const char* id : {"p1", "p2", "p3"}) {
    for (uint32_t v : {1u, 2u}) {
      pb::Policy p;
      p.set_id(id);
      p.set_version(v);
      ASSERT_TRUE(policies.Insert(p, {"policy.create", "a@x.com"}).ok());
    }
  }
  int64_t total = 0;
  // Every version, in creation order: p1 v1, p1 v2, p2 v1, p2 v2, ...
  auto pp = policies.List(Page{2, 1}, &total, {});
  ASSERT_TRUE(pp.ok()) << pp.status();
  EXPECT_EQ(total, 6);
  ASSERT_EQ(pp->size(), 2u);
  EXPECT_EQ((*pp)[0].id(), "p1");
  EXPECT_EQ((*pp)[0].version(), 2u);
  EXPECT_EQ((*pp)[1].id(), "p2");
  EXPECT_EQ((*pp)[1].version(), 1u);

  PostgresProviderRepository providers(pool_.get());
  PostgresResourceRepository resources(pool_.get());
  std::vector<pb::Resource> rs;
  for (int i = 0; i < 5; ++i) rs.push_back(Res("t", "r" + std::to_string(i)));
  for (const char* urn : {"u1", "u2"}) {
    StoredProvider sp;
    sp.provider.set_type("noop");
    sp.provider.set_urn(urn);
    ASSERT_TRUE(providers.Create(sp, rs, {"provider.create", "a@x.com"}).ok());
  }
  auto pv = providers.ListPage(Page{1, 1}, &total, {});
  ASSERT_TRUE(pv.ok()) << pv.status();
  EXPECT_EQ(total, 2);
  ASSERT_EQ(pv->size(), 1u);
  EXPECT_EQ((*pv)[0].provider.urn(), "u2");

  ResourceFilter f;
  f.provider_urn = "u2";
  auto page = resources.List(f, Page{2, 3}, &total);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(total, 5);
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].urn(), "r3");
  EXPECT_EQ((*page)[1].urn(), "r4");
  auto past = resources.List(f, Page{2, 10}, &total);
  ASSERT_TRUE(past.ok());
  EXPECT_TRUE(past->empty());
  EXPECT_EQ(total, 5);
}

TEST_F(RepositoriesTest, JobLockIsExclusive) {
  PostgresJobLock lock(pool_.get());
  bool inner_ran = true;
  auto ran = lock.RunExclusive(42, [&] {
    PostgresJobLock other(pool_.get());  // another session of the pool
    auto r = other.RunExclusive(42, [] {});
    inner_ran = r.ok() && *r;
  });
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_TRUE(*ran);
  EXPECT_FALSE(inner_ran);
  auto again = lock.RunExclusive(42, [] {});
  EXPECT_TRUE(again.ok() && *again);
}

// Finding M3: with db.pool_size 1 the job lock held the only connection and
// the job body (and every RPC) waited for it forever.
TEST_F(RepositoriesTest, JobLockHoldsNoPooledConnection) {
  db::PoolOptions options;
  options.size = 1;
  options.lease_timeout = absl::Seconds(2);
  auto one = db::Pool::Create(db_->dsn(), options);
  ASSERT_TRUE(one.ok()) << one.status();
  db::Pool* pool = one->get();
  PostgresJobLock lock(pool);
  auto select = [pool] {
    return pool->Run([](soci::session& sql) {
      int n = 0;
      sql << "SELECT 1", soci::into(n);
      return n == 1 ? absl::OkStatus() : absl::InternalError("SELECT 1");
    });
  };
  absl::Status in_job, concurrent;
  absl::Notification job_started, rpc_done;
  std::thread rpc([&] {
    job_started.WaitForNotification();
    concurrent = select();  // an RPC while the job holds its lock
    rpc_done.Notify();
  });
  auto ran = lock.RunExclusive(7, [&] {
    job_started.Notify();
    in_job = select();  // the job body's own queries
    rpc_done.WaitForNotificationWithTimeout(absl::Seconds(10));
  });
  rpc.join();
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_TRUE(*ran);
  EXPECT_TRUE(in_job.ok()) << in_job;
  EXPECT_TRUE(concurrent.ok()) << concurrent;
}

}  // namespace
}  // namespace sluice::access
