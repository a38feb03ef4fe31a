#include "server/access/store/testing/store_test.h"

#include <soci/soci.h>

#include "server/access/store/postgres_repositories.h"

namespace sluice::access::testing {

void StoreTest::SetUp() {
  auto db = db::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  db_ = std::move(*db);
  auto pool = db::Pool::Create(db_->dsn(), 2);
  ASSERT_TRUE(pool.ok()) << pool.status();
  pool_ = std::move(*pool);
  // audit_logs comes from the core migration; create it the same way here.
  ASSERT_TRUE(pool_->Run([](soci::session& sql) {
    sql << "CREATE TABLE audit_logs (id bigserial PRIMARY KEY, timestamp timestamptz NOT "
           "NULL DEFAULT now(), action text NOT NULL, actor text NOT NULL, data jsonb NOT "
           "NULL DEFAULT '{}'::jsonb, trace_id text)";  // core migrations 0001 and 0002
    return absl::OkStatus();
  }).ok());
  auto applied = db::Migrate(*pool_, {db::AccessMigrations()});
  ASSERT_TRUE(applied.ok()) << applied.status();
}

std::string StoreTest::CreateResource(const std::string& type, const std::string& urn,
                                      const std::string& name) {
  PostgresProviderRepository providers(pool_.get());
  StoredProvider sp;
  sp.provider.set_type("noop");
  sp.provider.set_urn("urn1");
  sp.provider.mutable_config()->set_type("noop");
  pb::Resource r;
  r.set_type(type);
  r.set_urn(urn);
  r.set_name(name);
  auto created = providers.Create(sp, {r}, {"provider.create", "a@x.com"});
  EXPECT_TRUE(created.ok()) << created.status();
  auto list = PostgresResourceRepository(pool_.get()).List(ResourceFilter{}, Page{}, nullptr);
  EXPECT_TRUE(list.ok() && list->size() == 1u);
  return list.ok() && !list->empty() ? (*list)[0].id() : "";
}

}  // namespace sluice::access::testing
