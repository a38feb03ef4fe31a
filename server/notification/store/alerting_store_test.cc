// Alert providers, namespaces and rules on a real PostgreSQL (migration 0012).
#include <gtest/gtest.h>

#include "common/db/testing/test_database.h"
#include "server/notification/store/store.h"

namespace sluice::db {
const MigrationSet& CoreMigrations();
}  // namespace sluice::db

namespace sluice::notification {
namespace {

class AlertingStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = db::TestDatabase::Create();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    auto pool = db::Pool::Create(db_->dsn(), 2);
    ASSERT_TRUE(pool.ok()) << pool.status();
    pool_ = std::move(*pool);
    auto applied = db::Migrate(*pool_, {db::CoreMigrations(), db::NotificationMigrations()});
    ASSERT_TRUE(applied.ok()) << applied.status();
    repo_ = std::make_unique<PostgresAlertingRepository>(pool_.get());
  }
  std::unique_ptr<db::TestDatabase> db_;
  std::unique_ptr<db::Pool> pool_;
  std::unique_ptr<PostgresAlertingRepository> repo_;
};

TEST_F(AlertingStoreTest, ProvidersNamespacesAndRulesRoundTrip) {
  AlertProvider p;
  p.host = "http://prom:9090";
  p.urn = "prom";
  p.name = "prom";
  p.type = "prometheus";
  p.labels = {{"env", "prod"}};
  auto pid = repo_->CreateProvider(p, "v2:sealed");
  ASSERT_TRUE(pid.ok()) << pid.status();
  EXPECT_EQ(repo_->CreateProvider(p, "").status().code(), absl::StatusCode::kAlreadyExists);
  std::string sealed;
  auto got = repo_->GetProvider(*pid, &sealed);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(sealed, "v2:sealed");
  EXPECT_EQ(got->labels.at("env"), "prod");
  EXPECT_EQ(repo_->ListProviders("", "cortex")->size(), 0u);
  EXPECT_EQ(repo_->ListProviders("prom", "")->size(), 1u);

  AlertNamespace n;
  n.provider_id = *pid;
  n.urn = "team-a";
  n.name = "team-a";
  auto nid = repo_->CreateNamespace(n, "");
  ASSERT_TRUE(nid.ok()) << nid.status();
  EXPECT_EQ(repo_->CreateNamespace(n, "").status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(repo_->DeleteProvider(*pid).code(), absl::StatusCode::kFailedPrecondition);

  AlertRule r;
  r.name = "siren_api_prom_team-a_team-a_CPUHigh_CPU";
  r.enabled = true;
  r.group_name = "CPUHigh";
  r.rule_namespace = "team-a";
  r.template_name = "CPU";
  r.namespace_id = *nid;
  r.variables = {{"warning", "50", "int", "threshold"}};
  auto saved = repo_->UpsertRule(r);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_TRUE(saved->enabled);
  EXPECT_EQ(saved->variables.at(0).description, "threshold");
  EXPECT_EQ(repo_->DeleteNamespace(*nid).code(), absl::StatusCode::kFailedPrecondition);

  r.enabled = false;
  auto again = repo_->UpsertRule(r);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->id, saved->id);
  EXPECT_FALSE(again->enabled);
  AlertRuleFilter f;
  f.template_name = "CPU";
  f.namespace_id = *nid;
  EXPECT_EQ(repo_->ListRules(f)->size(), 1u);
  f.group_name = "Other";
  EXPECT_EQ(repo_->ListRules(f)->size(), 0u);

  EXPECT_TRUE(repo_->DeleteNamespace(*nid).ok());
  EXPECT_TRUE(repo_->DeleteProvider(*pid).ok());
  EXPECT_EQ(repo_->GetProvider(*pid, nullptr).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sluice::notification
