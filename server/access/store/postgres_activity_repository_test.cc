// PostgresActivityRepository against real PostgreSQL (fresh database per
// test): upsert on (provider, provider_activity_id), the resource matched
// by URN, Get's NotFound, and each of ListActivities' filters.
#include "server/access/store/postgres_activity_repository.h"

#include <gtest/gtest.h>

#include "server/access/core/json.h"
#include "server/access/store/postgres_repositories.h"
#include "server/access/store/testing/store_test.h"

namespace sluice::access {
namespace {

class ActivityStoreTest : public testing::StoreTest {
 protected:
  // A bigquery provider "proj" with dataset "proj:d"; sets provider_id_ and
  // resource_id_.
  void SetUp() override {
    testing::StoreTest::SetUp();
    PostgresProviderRepository providers(pool_.get());
    StoredProvider sp;
    sp.provider.set_type("bigquery");
    sp.provider.set_urn("proj");
    sp.provider.mutable_config()->set_type("bigquery");
    pb::Resource r;
    r.set_type("dataset");
    r.set_urn("proj:d");
    auto created = providers.Create(sp, {r}, {"provider.create", "a@x.com"});
    ASSERT_TRUE(created.ok()) << created.status();
    provider_id_ = created->provider.id();
    PostgresResourceRepository resources(pool_.get());
    ResourceFilter f;
    f.urn = "proj:d";
    auto list = resources.List(f, Page{}, nullptr);
    ASSERT_TRUE(list.ok() && list->size() == 1u);
    resource_id_ = (*list)[0].id();
  }

  pb::ProviderActivity Activity(const std::string& insert_id, const std::string& account,
                                const std::string& urn, int64_t seconds) {
    pb::ProviderActivity a;
    a.set_provider_id(provider_id_);
    a.set_provider_activity_id(insert_id);
    a.set_account_id(account);
    a.set_account_type("user");
    a.set_type("google.cloud.bigquery.v2.JobService.InsertJob");
    a.mutable_timestamp()->set_seconds(seconds);
    a.add_authorizations("bigquery.tables.getData");
    a.add_related_permissions("roles/bigquery.dataViewer");
    (*a.mutable_metadata()->mutable_fields())["k"].set_string_value("v");
    a.mutable_resource()->set_provider_type("bigquery");
    a.mutable_resource()->set_provider_urn("proj");
    a.mutable_resource()->set_type("dataset");
    a.mutable_resource()->set_urn(urn);
    return a;
  }

  std::string provider_id_, resource_id_;
};

TEST_F(ActivityStoreTest, UpsertKeepsOneRowPerProviderActivityAndMatchesTheResource) {
  PostgresActivityRepository repo(pool_.get());
  std::vector<pb::ProviderActivity> batch = {Activity("i1", "u@x.com", "proj:d", 1000),
                                             Activity("i2", "v@x.com", "proj:gone", 2000)};
  ASSERT_TRUE(repo.BulkUpsert(&batch).ok());
  EXPECT_FALSE(batch[0].id().empty());
  EXPECT_EQ(batch[0].resource_id(), resource_id_);
  EXPECT_EQ(batch[0].resource().id(), resource_id_);
  EXPECT_EQ(batch[1].resource_id(), "");  // no Sluice resource with that urn
  EXPECT_EQ(batch[1].resource().urn(), "proj:gone");
  EXPECT_GT(batch[0].created_at().seconds(), 0);

  // Re-importing i1 replaces it (same id); a batch repeating a key keeps the last.
  std::vector<pb::ProviderActivity> again = {Activity("i1", "w@x.com", "proj:d", 1000),
                                             Activity("i3", "u@x.com", "proj:d", 3000),
                                             Activity("i3", "z@x.com", "proj:d", 3000)};
  ASSERT_TRUE(repo.BulkUpsert(&again).ok());
  EXPECT_EQ(again[0].id(), batch[0].id());
  EXPECT_EQ(again[1].id(), again[2].id());
  auto all = repo.List({});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].provider_activity_id(), "i3");  // newest first
  EXPECT_EQ((*all)[0].account_id(), "z@x.com");
  EXPECT_EQ((*all)[2].account_id(), "w@x.com");

  auto got = repo.Get(batch[0].id());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->provider_id(), provider_id_);
  EXPECT_EQ(got->timestamp().seconds(), 1000);
  EXPECT_EQ(got->authorizations(0), "bigquery.tables.getData");
  EXPECT_EQ(got->related_permissions(0), "roles/bigquery.dataViewer");
  EXPECT_EQ(got->metadata().fields().at("k").string_value(), "v");
  EXPECT_EQ(got->type(), "google.cloud.bigquery.v2.JobService.InsertJob");
  EXPECT_TRUE(absl::IsNotFound(repo.Get("00000000-0000-0000-0000-000000000000").status()));
  EXPECT_TRUE(absl::IsNotFound(repo.Get("nope").status()));
}

TEST_F(ActivityStoreTest, ListFilters) {
  PostgresActivityRepository repo(pool_.get());
  std::vector<pb::ProviderActivity> batch = {Activity("i1", "u@x.com", "proj:d", 1000),
                                             Activity("i2", "v@x.com", "proj:gone", 2000),
                                             Activity("i3", "u@x.com", "proj:d", 3000)};
  batch[2].set_type("google.cloud.bigquery.v2.TableDataService.List");
  ASSERT_TRUE(repo.BulkUpsert(&batch).ok());
  auto ids = [&](const ActivityFilter& f) {
    std::vector<std::string> out;
    auto got = repo.List(f);
    EXPECT_TRUE(got.ok()) << got.status();
    if (got.ok()) {
      for (const auto& a : *got) out.push_back(a.provider_activity_id());
    }
    return out;
  };
  using V = std::vector<std::string>;
  ActivityFilter f;
  f.account_ids = {"u@x.com"};
  EXPECT_EQ(ids(f), (V{"i3", "i1"}));
  f = {};
  f.resource_ids = {resource_id_};
  EXPECT_EQ(ids(f), (V{"i3", "i1"}));
  f = {};
  f.types = {"google.cloud.bigquery.v2.TableDataService.List"};
  EXPECT_EQ(ids(f), (V{"i3"}));
  f = {};
  f.provider_ids = {provider_id_};
  EXPECT_EQ(ids(f).size(), 3u);
  f.provider_ids = {"not-a-uuid"};
  EXPECT_TRUE(ids(f).empty());
  f = {};
  f.timestamp.start_micros = 2000 * 1000000LL;  // inclusive bounds
  f.timestamp.end_micros = 3000 * 1000000LL;
  EXPECT_EQ(ids(f), (V{"i3", "i2"}));
}

}  // namespace
}  // namespace sluice::access
